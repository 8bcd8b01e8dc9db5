"""held mail: a mail over the hourly limit waits instead of being dropped; limits count addresses whatever their case

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("outbox_messages", sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("outbox_messages", sa.Column("hold_reason", sa.String(length=16), nullable=True))
    op.add_column("outbox_messages", sa.Column("release_at", sa.DateTime(timezone=True), nullable=True))
    # Every mail queued so far counts against the limits from when it was made; a suppressed one never went.
    op.execute("UPDATE outbox_messages SET queued_at = created_at WHERE status <> 'suppressed'")
    op.drop_index("ix_outbox_recipient_created", table_name="outbox_messages")
    op.create_index(
        "ix_outbox_lower_recipient_queued", "outbox_messages", [sa.text("lower(recipient)"), "queued_at"]
    )
    op.create_index("ix_outbox_status_release", "outbox_messages", ["status", "release_at"])
    op.drop_index("ix_players_signup_sender_created", table_name="players")
    op.create_index(
        "ix_players_lower_signup_sender_created", "players", [sa.text("lower(signup_sender)"), "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_players_lower_signup_sender_created", table_name="players")
    op.create_index("ix_players_signup_sender_created", "players", ["signup_sender", "created_at"])
    op.drop_index("ix_outbox_status_release", table_name="outbox_messages")
    op.drop_index("ix_outbox_lower_recipient_queued", table_name="outbox_messages")
    op.create_index("ix_outbox_recipient_created", "outbox_messages", ["recipient", "created_at"])
    # Going back loses no mail: what is held stays, marked suppressed for the operator to see, and
    # what went out gathered into another mail counts as sent.
    op.execute("UPDATE outbox_messages SET status = 'suppressed' WHERE status = 'held'")
    op.execute("UPDATE outbox_messages SET status = 'sent' WHERE status = 'gathered'")
    with op.batch_alter_table("outbox_messages") as batch:
        batch.drop_column("release_at")
        batch.drop_column("hold_reason")
        batch.drop_column("queued_at")
