"""throughput: find a player by address, whatever its case, through an index

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_player_addresses_lower_address", "player_addresses", [sa.text("lower(address)")])


def downgrade() -> None:
    op.drop_index("ix_player_addresses_lower_address", table_name="player_addresses")
