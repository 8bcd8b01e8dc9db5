"""bots as players: a player may be a bot, and what each bot is thinking about is claimed

Every club has the bots ``bot1`` (the weakest), ``bot2`` ... one for each level `pbm.bots`
plays: the server signs each up the first time anyone names it
(`pbm.store.bot_players.sign_up_named`), with no address and a password hash no password
matches (`NO_PASSWORD`). `players.bot_level` says which players are bots; `bot_turns` holds each
bot's claim on what it works out at a board (`pbm.mail.bot_turns`). A bot left by a downgrade is
a bot again.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)

NO_PASSWORD = "!"
"""A bot's password hash: not an argon2 hash, so no password verifies against it."""


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
        sa.column("bot_level", sa.Integer()),
    )
    # Bots a downgrade left as plain players (their games name them): bots again, by their userids.
    connection = op.get_bind()
    left = connection.execute(sa.select(players.c.userid).where(players.c.password_hash == NO_PASSWORD)).scalars().all()
    for userid in left:
        if userid.startswith("bot") and userid[3:].isdecimal():
            op.execute(players.update().where(players.c.userid == userid).values(bot_level=int(userid[3:])))


def downgrade() -> None:
    # The bots stay as players (their games name them): without an address or a password that
    # works, they do nothing.
    op.drop_table("bot_turns")
    op.drop_index("ix_players_bot_level", table_name="players")
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.drop_column("bot_level")
