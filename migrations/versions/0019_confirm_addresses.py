"""no spam cannon: addresses are confirmed before they get mail, signups are counted per sending host

Every address in use when this runs counts as confirmed for its player.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27
"""

from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("players", sa.Column("signup_host", sa.String(length=64), nullable=True))
    # Nullable, no default, no foreign key: PostgreSQL and SQLite add it without rewriting the outbox.
    op.add_column("outbox_messages", sa.Column("player_id", Id, nullable=True))
    op.create_index("ix_players_signup_host_created", "players", ["signup_host", "created_at"])
    confirmations = op.create_table(
        "address_confirmations",
        sa.Column("id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("expires_at", When, nullable=True),
        sa.Column("confirmed_at", When, nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_address_confirmations_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_address_confirmations")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_address_confirmations_token_hash")),
    )
    op.create_index("ix_address_confirmations_address_created", "address_confirmations", ["address", "created_at"])
    op.create_index("ix_address_confirmations_player_address", "address_confirmations", ["player_id", "address"])
    op.create_index("ix_address_confirmations_created", "address_confirmations", ["created_at"])
    now = datetime.now(timezone.utc)
    addresses = sa.table("player_addresses", sa.column("player_id", Id), sa.column("address", sa.String(320)))
    in_use = sa.select(
        addresses.c.player_id,
        sa.func.lower(addresses.c.address),
        sa.literal(now, When),
        sa.literal(now, When),
    ).distinct()
    op.execute(
        confirmations.insert().from_select(["player_id", "address", "created_at", "confirmed_at"], in_use)
    )


def downgrade() -> None:
    op.drop_table("address_confirmations")
    with op.batch_alter_table("outbox_messages", recreate="never") as batch:
        batch.drop_column("player_id")
    op.drop_index("ix_players_signup_host_created", table_name="players")
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.drop_column("signup_host")
