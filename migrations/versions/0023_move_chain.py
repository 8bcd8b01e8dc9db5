"""move chain: every move carries the hash of the game's chain after it; sent mail is pruned

`moves.chain_hash` and `games.chain_head` (`pbm.crypto.chain`). Games played before get their
chain computed here, from their header (game, board, options, players, start, dice commitment)
and their moves in order, exactly as the server would have linked them: so a record of an old
game verifies like a new one, and the next move links on. Done once here rather than lazily,
so that reading a game never writes and every board has a head its next move can link to.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from pbm.games.fairdice import commitment
    from pbm.crypto import chain
    from pbm.store.models import UTCDateTime

    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("chain_head", sa.String(length=64), nullable=True))
    # Sent mail is forgotten after PBM_KEEP_SENT_DAYS: the time pass finds it by this index.
    op.create_index("ix_outbox_status_sent", "outbox_messages", ["status", "sent_at"])
    with op.batch_alter_table("moves", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("chain_hash", sa.String(length=64), nullable=True))

    games = sa.table(
        "games",
        *(sa.column(name) for name in ("id", "game_type", "board", "secret", "chain_head")),
        sa.column("options", sa.JSON),
        sa.column("created_at", UTCDateTime),
    )
    seats = sa.table("seats", *(sa.column(name) for name in ("game_id", "seat", "player_id")))
    players = sa.table("players", *(sa.column(name) for name in ("id", "userid")))
    moves = sa.table(
        "moves",
        *(sa.column(name) for name in ("id", "game_id", "number", "seat", "notation", "chain_hash")),
        sa.column("created_at", UTCDateTime),
    )
    connection = op.get_bind()
    for game in connection.execute(sa.select(games).order_by(games.c.id)).all():
        userids = (
            connection.execute(
                sa.select(players.c.userid)
                .join(seats, seats.c.player_id == players.c.id)
                .where(seats.c.game_id == game.id)
                .order_by(seats.c.seat)
            )
            .scalars()
            .all()
        )
        header = chain.Header(
            game=game.game_type,
            board=game.board,
            options=game.options or {},
            players=tuple(userids),
            started=game.created_at,
            dice_commitment=commitment(bytes(game.secret)) if game.secret is not None else None,
        )
        head = chain.header_hash(header)
        for move in connection.execute(
            sa.select(moves).where(moves.c.game_id == game.id).order_by(moves.c.number)
        ).all():
            player = userids[move.seat] if move.seat < len(userids) else ""
            link = chain.Link(
                game.game_type, game.board, move.number, move.seat, player, move.notation, move.created_at
            )
            head = chain.link_hash(link, head)
            connection.execute(sa.update(moves).where(moves.c.id == move.id).values(chain_hash=head))
        connection.execute(sa.update(games).where(games.c.id == game.id).values(chain_head=head))


def downgrade() -> None:
    op.drop_index("ix_outbox_status_sent", table_name="outbox_messages")
    # In place, never by copying a table: SQLite drops a copied table's old rows with foreign keys on.
    with op.batch_alter_table("moves", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("chain_hash")
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("chain_head")
