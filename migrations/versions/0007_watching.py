"""watching: subscriptions to boards and game types, and notices when games end

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _watch_table(name: str) -> None:
    op.create_table(
        name,
        sa.Column("id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("game_type", sa.String(length=32), nullable=False),
        sa.Column("game_id", Id, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f(f"fk_{name}_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f(f"fk_{name}_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{name}")),
        sa.UniqueConstraint("player_id", "game_type", "game_id", name=op.f(f"uq_{name}_player_id")),
    )


def upgrade() -> None:
    _watch_table("subscriptions")
    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.create_index("ix_subscriptions_game", ["game_id"], unique=False)
        batch_op.create_index("ix_subscriptions_type", ["game_type", "game_id"], unique=False)
    _watch_table("end_notices")
    with op.batch_alter_table("end_notices", schema=None) as batch_op:
        batch_op.create_index("ix_end_notices_type", ["game_type", "game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("end_notices", schema=None) as batch_op:
        batch_op.drop_index("ix_end_notices_type")
    op.drop_table("end_notices")
    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.drop_index("ix_subscriptions_type")
        batch_op.drop_index("ix_subscriptions_game")
    op.drop_table("subscriptions")
