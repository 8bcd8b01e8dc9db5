"""unconfirmed answers: answers to addresses nobody confirmed, counted per sending host

A mail whose From nobody confirmed may be forged: each answer to it is a mail to a stranger
that the club's domain sends. `unconfirmed_answers` keeps when each went and the host that
handed its mail to us, so they stop per host and for the whole server
(`pbm.store.unconfirmed_answers`).

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "unconfirmed_answers",
        sa.Column("id", Id, nullable=False),
        sa.Column("host", sa.String(128), nullable=False),
        sa.Column("answered_at", When, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_unconfirmed_answers")),
    )
    op.create_index("ix_unconfirmed_answers_host_answered", "unconfirmed_answers", ["host", "answered_at"])
    op.create_index("ix_unconfirmed_answers_answered", "unconfirmed_answers", ["answered_at"])


def downgrade() -> None:
    op.drop_table("unconfirmed_answers")
