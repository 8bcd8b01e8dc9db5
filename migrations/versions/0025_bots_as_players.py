"""bots as players: bot1 to bot4 sign up with the club, and what each is thinking about is claimed

Every club has the bots, whoever signed up: players ``bot1`` (the weakest) to ``bot4``, one for
each level `pbm.bots` plays, with no address and a password hash no password matches
(`pbm.store.bot_players.NO_PASSWORD`). A person who took one of those userids before bots
existed keeps it, and that bot is not made. `bot_turns` holds each bot's claim on what it works
out at a board (`pbm.mail.bot_turns`).

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28
"""

from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)

LEVELS = 4
"""The levels every game's bots play today (`pbm.bots.levels`): a level added later comes with a
migration of its own that signs its bot up."""
NO_PASSWORD = "!"
"""Not an argon2 hash: no password verifies against it (as ``!`` in /etc/shadow)."""


def upgrade() -> None:
    op.add_column("players", sa.Column("bot_level", sa.Integer(), nullable=True))
    op.create_index("ix_players_bot_level", "players", ["bot_level"])
    op.create_table(
        "bot_turns",
        sa.Column("game_id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("task", sa.String(64), nullable=False),
        sa.Column("worker", sa.String(128), nullable=True),
        sa.Column("claimed_until", When, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("inbound_id", Id, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_bot_turns_game_id_games"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_bot_turns_player_id_players"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"], ["inbound_messages.id"], name=op.f("fk_bot_turns_inbound_id_inbound_messages")
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", name=op.f("pk_bot_turns")),
    )
    players = sa.table(
        "players",
        sa.column("userid", sa.String(32)),
        sa.column("password_hash", sa.String(255)),
        sa.column("created_at", When),
        sa.column("bot_level", sa.Integer()),
    )
    connection = op.get_bind()
    now = datetime.now(timezone.utc)
    for level in range(1, LEVELS + 1):
        userid = f"bot{level}"
        taken = connection.execute(sa.select(players.c.password_hash).where(players.c.userid == userid)).first()
        if taken is None:
            op.execute(
                players.insert().values(userid=userid, password_hash=NO_PASSWORD, created_at=now, bot_level=level)
            )
        elif taken.password_hash == NO_PASSWORD:  # the bot itself, left by a downgrade
            op.execute(players.update().where(players.c.userid == userid).values(bot_level=level))


def downgrade() -> None:
    # A bot that played stays as a player (its games name it): without an address or a password
    # that works, it does nothing. The others go.
    op.drop_table("bot_turns")
    players = sa.table("players", sa.column("id", Id), sa.column("bot_level", sa.Integer()))
    seats = sa.table("seats", sa.column("player_id", Id))
    ratings = sa.table("ratings", sa.column("player_id", Id))
    op.execute(
        players.delete().where(
            players.c.bot_level.is_not(None),
            players.c.id.not_in(sa.select(seats.c.player_id)),
            players.c.id.not_in(sa.select(ratings.c.player_id)),
        )
    )
    op.drop_index("ix_players_bot_level", table_name="players")
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.drop_column("bot_level")
