"""a club's mailbox at a provider: who reads it, and the mail stored but not yet moved

`mailbox_readers` holds one row per mailbox read over IMAP (`PBM_INBOUND`): the worker whose
lease lets it read the mailbox, and the folder's UIDVALIDITY as last seen. `mailbox_messages`
holds each mail stored in the inbox and not yet moved to the folder of processed mail, so a
reader that crashed between the two moves it without storing it again (`pbm.mail.mailbox`).

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "mailbox_readers",
        sa.Column("mailbox", sa.String(400), nullable=False),
        sa.Column("holder", sa.String(128), nullable=True),
        sa.Column("held_until", When, nullable=True),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("mailbox", name=op.f("pk_mailbox_readers")),
    )
    op.create_table(
        "mailbox_messages",
        sa.Column("mailbox", sa.String(400), nullable=False),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=False),
        sa.Column("uid", sa.BigInteger(), nullable=False),
        sa.Column("inbound_id", Id, nullable=True),
        sa.Column("stored_at", When, nullable=False),
        sa.PrimaryKeyConstraint("mailbox", "uidvalidity", "uid", name=op.f("pk_mailbox_messages")),
    )


def downgrade() -> None:
    op.drop_table("mailbox_messages")
    op.drop_table("mailbox_readers")
