"""A club's players and games set up for a benchmark through the store's own paths.

The benchmarks need thousands of players and boards in seconds, so they write them straight
into the store rather than by mail. They must still write them as the server does: a board
made by hand once lacked the first link of its hash chain, every move on it failed, and the load
benchmark measured error answers for a whole wave without anyone noticing. So every board here
is started by `pbm.store.boards.start` and every move recorded by `boards.record_move`: a new
invariant of the store holds for the benchmarks' data the day it is written.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

import pbm.games
from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.serving.server import Server
from pbm.store import boards, confirmations, players
from pbm.store.models import Board, Player
from pbm.timekeeping import clocks
from pbm.views.live import LiveBoard
from pbm.views.moves import report_data


def served_club(home: Path, **settings: Any) -> Server:
    """A whole `pbm serve` on an SQLite database in `home`, its answers in a Maildir there, on free
    ports, with addresses taken as confirmed and quick password hashes, migrated and ready to start
    (`pbm.serving.server.ServerThread`); `settings` add to or change those."""
    chosen = Settings(
        database_url=f"sqlite:///{home / 'pbm.db'}",
        smtp_listen="127.0.0.1:0",
        http_listen="127.0.0.1:0",
        outbound=f"maildir:{home / 'outbox'}",
        secret_key="b" * 40,
        confirm_addresses=False,
        home=home,
        **settings,
    )
    server = Server(chosen, passwords=fast_passwords(), var_dir=home)
    server.database.upgrade()
    return server


@dataclass(frozen=True)
class Started:
    """A board started for a benchmark, and the position it stands at."""

    row: Board
    players: list[Player]
    state: Any


def sign_up(session: Session, userid: str, *, password_hash: str = "unused", now: datetime) -> Player:
    """A player writing from ``USERID@bench.example``, that address confirmed as a club's are."""
    address = f"{userid}@bench.example"
    player = players.sign_up(session, userid, password_hash, [address], sender=address, now=now)
    confirmations.vouch(session, player, [address], now=now)
    return player


def start_game(
    session: Session,
    game_type: str,
    seated: Sequence[Player],
    *,
    now: datetime,
    number: int | None = None,
    options: dict[str, Any] | None = None,
    seed: bytes | None = None,
) -> Started:
    """A new board of `game_type` between `seated`, as a challenge starts one."""
    engine = pbm.games.get(game_type)
    options = options or {}
    state = engine.new(players=len(seated), options=options, **({"seed": seed} if seed is not None else {}))
    row = boards.start(
        session,
        game_type,
        players=list(seated),
        options=options,
        state=engine.dump(state),
        secret=engine.secret_of(state),
        to_move=state.to_move,
        challenger=seated[0],
        now=now,
        time_control=clocks.TimeControl(),
        number=number,
        created_at=now,
    )
    return Started(row, list(seated), state)


def play_moves(session: Session, started: Started, moves: Sequence[str], *, now: datetime) -> Started:
    """`moves` played at `started`, a minute apart from `now`, each written to its move list and
    hash chain as the server writes a move."""
    board = LiveBoard(started.row, pbm.games.get(started.row.game_type), started.state)
    for n, move in enumerate(moves, start=1):
        before = board.state
        after = board.engine.play(before, move)
        boards.record_move(
            session,
            started.row,
            seat=before.to_move,
            notation=move,
            comment="",
            report=report_data(board.engine.report(before, move, after)),
            now=now + timedelta(minutes=n),
            inbound_id=None,
        )
        board.advance(after)
    return Started(started.row, started.players, board.state)


def going_on(engine: Any, state: Any, rng: random.Random) -> tuple[str, Any]:
    """A random legal move that does not end the game, and the state after it: a measured game
    must still be going on at its last move."""
    candidates = list(engine.legal_moves(state))
    rng.shuffle(candidates)
    for move in candidates:
        after = engine.play(state, move)
        if engine.result(after) is None:
            return move, after
    raise RuntimeError("every move ends this game")
