"""challenge policies: whether a player takes challenges to a game type, and how many games at once

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "challenge_policies",
        sa.Column("player_id", Id, nullable=False),
        sa.Column("game_type", sa.String(length=32), nullable=False),
        sa.Column("accepts", sa.Boolean(), nullable=False),
        sa.Column("most_games", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_challenge_policies_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", "game_type", name=op.f("pk_challenge_policies")),
    )


def downgrade() -> None:
    op.drop_table("challenge_policies")
