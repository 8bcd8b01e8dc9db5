"""queued moves: played for a player when their turn comes, marked (Auto)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "queued_moves",
        sa.Column("game_id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("at_move", sa.Integer(), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_queued_moves_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_queued_moves_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", name=op.f("pk_queued_moves")),
    )
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("auto", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("auto")
    op.drop_table("queued_moves")
