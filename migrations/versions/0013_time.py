"""correspondence time: time rules, turn clocks, reminders, vacations and board events

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("turn_since", When, nullable=True))
        batch_op.add_column(sa.Column("due_at", When, nullable=True))
        batch_op.add_column(sa.Column("reminders_sent", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("warned", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.create_index("ix_games_due", ["due_at"], unique=False)
    # A game under way gets the turn from its last move, and the time pass looks at it at once.
    op.execute("UPDATE games SET turn_since = updated_at, due_at = updated_at WHERE status = 'active'")
    with op.batch_alter_table("open_challenges", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.JSON(), nullable=True))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thinking_seconds", sa.Double(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("bank_seconds", sa.Double(), nullable=True))
    with op.batch_alter_table("offers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reminders_sent", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "vacations",
        sa.Column("id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("starts_at", When, nullable=False),
        sa.Column("ends_at", When, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("start_told", sa.Boolean(), nullable=False),
        sa.Column("end_told", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_vacations_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vacations")),
    )
    op.create_index("ix_vacations_player_ends", "vacations", ["player_id", "ends_at"], unique=False)
    op.create_index("ix_vacations_start_told_starts", "vacations", ["start_told", "starts_at"], unique=False)
    op.create_index("ix_vacations_end_told_ends", "vacations", ["end_told", "ends_at"], unique=False)
    op.create_table(
        "board_events",
        sa.Column("id", Id, nullable=False),
        sa.Column("game_id", Id, nullable=False),
        sa.Column("after_move", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_board_events_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_board_events")),
    )
    op.create_index("ix_board_events_game", "board_events", ["game_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_board_events_game", table_name="board_events")
    op.drop_table("board_events")
    op.drop_index("ix_vacations_end_told_ends", table_name="vacations")
    op.drop_index("ix_vacations_start_told_starts", table_name="vacations")
    op.drop_index("ix_vacations_player_ends", table_name="vacations")
    op.drop_table("vacations")
    with op.batch_alter_table("offers", schema=None) as batch_op:
        batch_op.drop_column("reminders_sent")
    with op.batch_alter_table("open_challenges", schema=None) as batch_op:
        batch_op.drop_column("time_control")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("bank_seconds")
        batch_op.drop_column("thinking_seconds")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_due")
        batch_op.drop_column("warned")
        batch_op.drop_column("reminders_sent")
        batch_op.drop_column("due_at")
        batch_op.drop_column("turn_since")
        batch_op.drop_column("time_control")
