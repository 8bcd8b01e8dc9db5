"""a sent mail that carried a secret (a password reset's reply address) is kept without it

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

RESET_TOKEN = re.compile(rb"reset-[0-9a-f]{32}")
"""A password reset's reply token (`pbm.store.resets`), as reset mails carried it when this was written."""
REMOVED_TOKEN = b"removed"
"""`pbm.mail.compose.REMOVED_TOKEN`, as it was when this was written."""


def upgrade() -> None:
    # Nullable and without a default: PostgreSQL and SQLite add it without rewriting the table.
    op.add_column("outbox_messages", sa.Column("raw_without_secret", sa.LargeBinary(), nullable=True))
    # Reset mails queued before kept their tokens, which may still work: those that went (or never
    # will) lose them now, those still waiting once they go.
    outbox = sa.table(
        "outbox_messages",
        sa.column("id", sa.Integer),
        sa.column("kind", sa.String),
        sa.column("status", sa.String),
        sa.column("raw", sa.LargeBinary),
        sa.column("raw_without_secret", sa.LargeBinary),
    )
    connection = op.get_bind()
    resets = connection.execute(
        sa.select(outbox.c.id, outbox.c.status, outbox.c.raw).where(outbox.c.kind == "password_reset")
    ).all()
    for message_id, status, raw in resets:
        without = RESET_TOKEN.sub(REMOVED_TOKEN, bytes(raw))
        kept = {"raw_without_secret": without} if status == "pending" else {"raw": without}
        connection.execute(sa.update(outbox).where(outbox.c.id == message_id).values(**kept))


def downgrade() -> None:
    with op.batch_alter_table("outbox_messages", recreate="never") as batch:
        batch.drop_column("raw_without_secret")
