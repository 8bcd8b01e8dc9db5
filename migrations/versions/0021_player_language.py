"""pbm in French: each player's language (None: the club's default, PBM_LANGUAGE)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable with no default: both databases add it without rewriting the table.
    op.add_column("players", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    # recreate="never": SQLite 3.35+ drops a column in place; a recreated table would lose the
    # players' foreign keys' ON DELETE behaviour under batch mode (see 0020).
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("language")
