"""several workers: an outbox lease names its worker, so a dead worker's rows go out at once

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable and without a default: PostgreSQL and SQLite add it without rewriting the table.
    op.add_column("outbox_messages", sa.Column("held_by", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox_messages") as batch:
        batch.drop_column("held_by")
