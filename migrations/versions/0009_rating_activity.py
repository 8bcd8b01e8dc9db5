"""rating activity: when each player's last rated game of a type ended

The standings put players who have not finished a rated game for a long time
apart, as pbmserv did ("Inactive"). Existing ratings learn it from the games
their players finished.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_rated_at", sa.DateTime(timezone=True), nullable=True))
    ratings = sa.table(
        "ratings",
        sa.column("player_id", sa.Integer),
        sa.column("game_type", sa.String),
        sa.column("last_rated_at", sa.DateTime(timezone=True)),
    )
    games = sa.table(
        "games",
        sa.column("id", sa.Integer),
        sa.column("game_type", sa.String),
        sa.column("status", sa.String),
        sa.column("finished_at", sa.DateTime(timezone=True)),
    )
    seats = sa.table("seats", sa.column("game_id", sa.Integer), sa.column("player_id", sa.Integer))
    last = (
        sa.select(sa.func.max(games.c.finished_at))
        .select_from(games.join(seats, seats.c.game_id == games.c.id))
        .where(
            seats.c.player_id == ratings.c.player_id,
            games.c.game_type == ratings.c.game_type,
            games.c.status == "finished",
        )
        .scalar_subquery()
    )
    op.get_bind().execute(sa.update(ratings).values(last_rated_at=last))


def downgrade() -> None:
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_column("last_rated_at")
