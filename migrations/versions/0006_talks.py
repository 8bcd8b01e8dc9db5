"""talks: the chats and messages players send, counted against flooding

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "talks",
        sa.Column("id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("game_id", Id, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_talks_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_talks_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_talks")),
    )
    with op.batch_alter_table("talks", schema=None) as batch_op:
        batch_op.create_index("ix_talks_player_created", ["player_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("talks", schema=None) as batch_op:
        batch_op.drop_index("ix_talks_player_created")
    op.drop_table("talks")
