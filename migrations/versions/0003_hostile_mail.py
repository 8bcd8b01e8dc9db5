"""hostile mail: reading apart from applying, ordering keys, volume limits

Mail is read (MIME to text) outside the write transaction that applies it, so
inbound mail gets the reading's result and claim; `inbound_keys` orders mails
that touch the same sender, player or board across workers. The volume limits
count signups per sender, challenges per challenger, wrong passwords per
player and mails per address (by kind, so error answers are counted apart).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa


revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "inbound_keys",
        sa.Column("inbound_id", Id, nullable=False),
        sa.Column("key", sa.String(length=320), nullable=False),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_inbound_keys_inbound_id_inbound_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("inbound_id", "key", name=op.f("pk_inbound_keys")),
    )
    with op.batch_alter_table("inbound_keys", schema=None) as batch_op:
        batch_op.create_index("ix_inbound_keys_key_inbound", ["key", "inbound_id"], unique=False)

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("challenger_id", Id, nullable=True))
        batch_op.create_index("ix_games_challenger_created", ["challenger_id", "created_at"], unique=False)
        batch_op.create_foreign_key(batch_op.f("fk_games_challenger_id_players"), "players", ["challenger_id"], ["id"])

    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("read_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("parsed", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("read_claim", sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column("read_claimed_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("read_attempts", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("read_seconds", sa.Double(), nullable=True))
        batch_op.add_column(sa.Column("read_peak_kb", sa.Integer(), nullable=True))

    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=32), nullable=False, server_default=""))
        batch_op.create_index("ix_outbox_recipient_created", ["recipient", "created_at"], unique=False)

    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("signup_sender", sa.String(length=254), nullable=True))
        batch_op.add_column(sa.Column("password_failures", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("password_locked_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_players_signup_sender_created", ["signup_sender", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index("ix_players_signup_sender_created")
        batch_op.drop_column("password_locked_until")
        batch_op.drop_column("password_failures")
        batch_op.drop_column("signup_sender")

    with op.batch_alter_table("outbox_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_recipient_created")
        batch_op.drop_column("kind")

    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_column("read_peak_kb")
        batch_op.drop_column("read_seconds")
        batch_op.drop_column("read_attempts")
        batch_op.drop_column("read_claimed_until")
        batch_op.drop_column("read_claim")
        batch_op.drop_column("parsed")
        batch_op.drop_column("read_at")

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_challenger_id_players"), type_="foreignkey")
        batch_op.drop_index("ix_games_challenger_created")
        batch_op.drop_column("challenger_id")

    with op.batch_alter_table("inbound_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_keys_key_inbound")
    op.drop_table("inbound_keys")
