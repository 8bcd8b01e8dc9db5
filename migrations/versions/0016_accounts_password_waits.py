"""wrong passwords are counted per sender: a stranger's guesses never make the player's own addresses wait

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

OTHER_ADDRESSES = ""
"""`pbm.store.players.OTHER_ADDRESSES`, as it was when this was written."""


def upgrade() -> None:
    op.create_table(
        "password_waits",
        sa.Column("player_id", Id, nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_password_waits_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", "sender", name=op.f("pk_password_waits")),
    )
    # Whoever sent the wrong passwords counted so far is not known: they count as strangers',
    # so that guessing stays slowed and no player's own address waits.
    op.execute(
        sa.text(
            "INSERT INTO password_waits (player_id, sender, failures, until)"
            " SELECT id, :other, password_failures, password_locked_until FROM players"
            " WHERE password_failures > 0 OR password_locked_until IS NOT NULL"
        ).bindparams(other=OTHER_ADDRESSES)
    )
    # Dropped in place, never by copying the table: on SQLite, with foreign keys on, dropping the
    # old `players` would take every row that refers to a player with it.
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.drop_column("password_locked_until")
        batch.drop_column("password_failures")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("password_failures", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("password_locked_until", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        sa.text(
            "UPDATE players SET"
            " password_failures = (SELECT max(w.failures) FROM password_waits w WHERE w.player_id = players.id),"
            " password_locked_until = (SELECT max(w.until) FROM password_waits w WHERE w.player_id = players.id)"
            " WHERE id IN (SELECT player_id FROM password_waits)"
        )
    )
    op.drop_table("password_waits")
