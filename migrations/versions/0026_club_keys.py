"""one club, one set of keys: the database names the secret key and the signing keys every worker uses

Several workers, each with a data folder of its own (two hosts), each made their own signing key
and could run with different secret keys: receipts split between keys, reply addresses one
worker made refused by another. `club_keys` records the secret key's fingerprint and each
signing key (its public key, its private key sealed with the secret key, which one is current),
so that a worker with other keys refuses to start and one without takes the club's
(`pbm.store.club_keys`). Filled by the first worker that starts after this migration.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "club_keys",
        sa.Column("id", Id, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=True),
        sa.Column("sealed_private", sa.String(255), nullable=True),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_keys")),
        sa.UniqueConstraint("kind", "key_id", name=op.f("uq_club_keys_kind")),
    )


def downgrade() -> None:
    op.drop_table("club_keys")
