"""mail that reaches people and respects their time: a player's zone, quiet hours and digests, bounces

A player may name the zone they live in (an IANA name; none: UTC) and the hours of their day
they want no mail (minutes after local midnight: start and end). Nullable columns without
defaults: PostgreSQL and SQLite add them without rewriting the table. Addresses our mail does
not reach, as bounces tell, are kept in a table of their own.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_PLAYER_COLUMNS = (
    ("time_zone", sa.String(length=64)),
    ("quiet_from", sa.Integer()),
    ("quiet_until", sa.Integer()),
    ("digest_times", sa.String(length=64)),
    ("digest_due_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    for name, kind in _PLAYER_COLUMNS:
        op.add_column("players", sa.Column(name, kind, nullable=True))
    op.create_table(
        "bounced_addresses",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("temporary_failures", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_bounced_addresses")),
    )


def downgrade() -> None:
    op.drop_table("bounced_addresses")
    # In place, never by copying the table (see 0020): SQLite 3.35 drops a column itself.
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        for name, _ in reversed(_PLAYER_COLUMNS):
            batch_op.drop_column(name)
