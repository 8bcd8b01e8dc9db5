"""indexes for the web pages

The front page lists each game type's most recently active games, and the live
updates look for games changed in the last minute; both read these indexes
instead of scanning every game.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("ix_games_type_status_updated", ["game_type", "status", "updated_at"], unique=False)
        batch_op.create_index("ix_games_updated", ["updated_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_updated")
        batch_op.drop_index("ix_games_type_status_updated")
