"""seeks, open challenges and password resets

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("player_id", Id, nullable=False),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("wanted", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("since", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seeks_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", "game_type", name=op.f("pk_seeks")),
    )
    op.create_table(
        "open_challenges",
        sa.Column("id", Id, nullable=False),
        sa.Column("game_type", sa.String(32), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("challenger_id", Id, nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("expires_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["challenger_id"],
            ["players.id"],
            name=op.f("fk_open_challenges_challenger_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_open_challenges")),
        sa.UniqueConstraint("game_type", "board", name=op.f("uq_open_challenges_game_type")),
    )
    op.create_index(op.f("ix_open_challenges_expires_at"), "open_challenges", ["expires_at"])
    op.create_table(
        "password_resets",
        sa.Column("id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("expires_at", When, nullable=False),
        sa.Column("used_at", When, nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_password_resets_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_resets")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_resets_token_hash")),
    )
    op.create_index(op.f("ix_password_resets_player_id"), "password_resets", ["player_id"])


def downgrade() -> None:
    op.drop_table("password_resets")
    op.drop_table("open_challenges")
    op.drop_table("seeks")
