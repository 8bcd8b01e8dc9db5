"""submissions: a move seen privately first, played when confirmed

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("game_id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("move", sa.String(length=64), nullable=False),
        sa.Column("at_move", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_submissions_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_submissions_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", name=op.f("pk_submissions")),
    )


def downgrade() -> None:
    op.drop_table("submissions")
