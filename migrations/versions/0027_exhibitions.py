"""exhibitions: a game of bots alone that an administrator started

A game with the server's bots ends once no person is left in play in it, so that bots think
only for people; an administrator may start a game of bots alone to be watched, which plays
on: `games.exhibition` says which. Every game before is none.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", recreate="never") as batch:
        batch.add_column(sa.Column("exhibition", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("games", recreate="never") as batch:
        batch.drop_column("exhibition")
