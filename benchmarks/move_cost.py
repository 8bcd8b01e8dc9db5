"""What one reply move costs to process, as the database and the game grow.

    python -m benchmarks.move_cost [--games 100000] [--long 300] [--boards 41]
                                   [--database-url URL]

Two databases are made (SQLite files unless a PostgreSQL server is given):
a small one that holds only the measured boards, and a large one that also
holds `--games` other games with their players, ratings, and a history of
received and sent mail as a club that size would have. In each, the same
fresh Cephalopod boards get a reply move at move 3; in the small one, Dodeca
boards (the game whose games run longest) get one at move 3 and one at move
`--long`, their move lists stored move by move. Each move is a real mail,
read and applied by the server's own `Processor` in this process.

It prints, for each case, the processor's CPU time per move (median of the
boards) and the SQL statements per move; flat cost means the same numbers
down each pair of rows. Each case's first board warms up, then the cases
take turns board by board, so that a busy moment of the machine weighs on
all alike. Statement counts are exact; the times vary by a few percent from
run to run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import event, insert

import pbm.games
from benchmarks import club
from benchmarks.serving import SECRET
from benchmarks.web_pages import fill, scratch_database
from pbm.config import load_settings
from pbm.mail.tokens import ReplyTokens
from pbm.serving.server import Server
from pbm.store.inbox import save_inbound
from pbm.store.models import InboundMessage, OutboxMessage

HISTORY_PER_GAME = 2
"""Received mails kept per background game (and twice as many sent): a club's history."""


@dataclass
class Measured:
    """A board the benchmark moves on, followed with the engine."""

    game_type: str
    board_id: int
    player_ids: list[int]
    addresses: list[str]
    state: Any


def add_boards(server: Server, game_type: str, count: int, plies: int, rng: random.Random, tag: str) -> list[Measured]:
    """`count` boards of `game_type` between fresh players, `plies` random moves into the game, each
    of those moves in the board's move list and hash chain (`benchmarks.club`)."""
    engine = pbm.games.get(game_type)
    # A day ago, a move a minute: within every clock's time (a board left 21 days forfeits).
    long_ago = datetime.now(timezone.utc) - timedelta(days=1)
    boards = []
    with server.database.transaction() as session:
        for index in range(count):
            seated = [club.sign_up(session, f"{tag}{index}{side}", now=long_ago) for side in "ab"]
            # Numbered apart from the large database's other games.
            started = club.start_game(
                session, game_type, seated, now=long_ago, number=10_000_000 + rng.randrange(10**9)
            )
            moves, state = [], started.state
            for _ in range(plies):
                move, state = club.going_on(engine, state, rng)
                moves.append(move)
            played = club.play_moves(session, started, moves, now=long_ago)
            boards.append(
                Measured(
                    game_type,
                    played.row.id,
                    [p.id for p in seated],
                    [p.addresses[0].address for p in seated],
                    played.state,
                )
            )
    return boards


def add_history(server: Server, games: int) -> None:
    """Received and sent mail of the past, as `games` games would have left it (all of it done)."""
    long_ago = datetime.now(timezone.utc) - timedelta(days=200)
    raw = b"From: someone@bench.example\r\nSubject: move\r\n\r\na1\r\n"
    for first in range(0, games * HISTORY_PER_GAME, 10_000):
        ids = range(first, min(first + 10_000, games * HISTORY_PER_GAME))
        with server.database.transaction() as session:
            session.execute(
                insert(InboundMessage),
                [
                    {"raw": raw, "message_id": f"<h{i}@bench.example>", "dedupe_key": f"history:{i}",
                     "envelope_from": f"player{i % 5000}@bench.example", "envelope_to": "pbm@localhost", "peer": "",
                     "received_at": long_ago, "status": "processed", "processed_at": long_ago, "read_at": long_ago}
                    for i in ids
                ],
            )  # fmt: skip
            session.execute(
                insert(OutboxMessage),
                [
                    {"recipient": f"player{(i * 2 + k) % 5000}@bench.example", "message_id": f"<o{i}.{k}@bench>",
                     "raw": raw, "kind": "board", "status": "sent", "attempts": 1, "next_attempt_at": long_ago,
                     "last_error": "", "created_at": long_ago, "sent_at": long_ago}
                    for i in ids
                    for k in (0, 1)
                ],
            )  # fmt: skip


@dataclass(frozen=True)
class Cost:
    cpu_ms: float
    statements: float


@dataclass
class Case:
    """Boards of one kind in one database, moved on one after another."""

    name: str
    server: Server
    boards: list[Measured]
    seconds: list[float] = field(default_factory=list)
    statements: int = 0

    def cost(self) -> Cost:
        return Cost(1000 * statistics.median(self.seconds), self.statements / len(self.seconds))


def move_one(case: Case, measured: Measured, rng: random.Random) -> None:
    """One reply move on `measured`, read and applied alone; its CPU time and statements go to `case`."""
    server = case.server
    engine = pbm.games.get(measured.game_type)
    seat = measured.state.to_move
    move, after = club.going_on(engine, measured.state, rng)
    token = ReplyTokens(SECRET.encode()).make(measured.board_id, measured.player_ids[seat], measured.state.ply)
    recipient = f"pbm+{token}@localhost"
    raw = (
        f"From: {measured.addresses[seat]}\r\nTo: {recipient}\r\nSubject: Re: your move\r\n"
        f"Message-ID: <m{measured.board_id}.{measured.state.ply}@bench.example>\r\n\r\n{move}\r\n"
    ).encode()
    save_inbound(server.database, raw, envelope_from=measured.addresses[seat], envelope_to=[recipient])

    def count(*_: object) -> None:
        case.statements += 1

    sql_engines = {server.database.engine, server.database.read_engine}  # one and the same on PostgreSQL
    for sql_engine in sql_engines:
        event.listen(sql_engine, "before_cursor_execute", count)
    started = time.process_time()
    applied = server.processor.process_pending()
    case.seconds.append(time.process_time() - started)
    for sql_engine in sql_engines:
        event.remove(sql_engine, "before_cursor_execute", count)
    assert applied == 1, "the move mail was applied"
    measured.state = after


@contextmanager
def serving(url: str) -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(
            database_url=url,
            secret_key=SECRET,
            outbound=f"maildir:{folder}/outbox",
            smtp_listen="127.0.0.1:0",
            http_listen="127.0.0.1:0",
        )
        server = Server(settings, var_dir=Path(folder))
        server.database.upgrade()
        try:
            yield server
        finally:
            server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="other games in the large database")
    parser.add_argument("--long", type=int, default=300, help="the move number of the late move")
    parser.add_argument("--boards", type=int, default=41, help="boards measured in each case (the first warms up)")
    parser.add_argument("--database-url", help="a PostgreSQL server (default: SQLite files)")
    args = parser.parse_args(argv)
    rng = random.Random(7)

    with ExitStack() as stack:
        small = stack.enter_context(serving(stack.enter_context(scratch_database(args.database_url))))
        large = stack.enter_context(serving(stack.enter_context(scratch_database(args.database_url))))
        started = time.perf_counter()
        fill(large.database, args.games, max(2, args.games // 5), rng)
        add_history(large, args.games)
        filled = time.perf_counter() - started
        cases = [
            Case(f"Cephalopod move 3, {args.boards} games in the database", small,
                 add_boards(small, "cephalopod", args.boards, 2, rng, "c")),
            Case(f"Cephalopod move 3, {args.games + args.boards:,} games", large,
                 add_boards(large, "cephalopod", args.boards, 2, rng, "c")),
            Case("Dodeca move 3", small, add_boards(small, "dodeca", args.boards, 2, rng, "e")),
            Case(f"Dodeca move {args.long}", small, add_boards(small, "dodeca", args.boards, args.long - 1, rng, "l")),
        ]  # fmt: skip
        for case in cases:
            move_one(case, case.boards[0], rng)  # the first move of a process compiles what all need
            case.seconds.clear()
            case.statements = 0
        # As `pbm serve` does once started: the collector's full passes then walk only what the
        # moves make. Left to walk the modules and the filling's leftovers, a pass of some 100 ms
        # landed inside one move or another by allocation count, and moved the figures by 10%.
        small.settle()
        # The cases take turns, board by board, so that whatever else the machine does weighs on each alike.
        for index in range(1, args.boards):
            for case in cases:
                move_one(case, case.boards[index], rng)

    backend = "PostgreSQL" if args.database_url else "SQLite"
    print(f"Move cost: one reply move read and applied in process, {backend}, {args.boards} boards per case")
    print(f"  (the large database: {args.games:,} games, their players and {HISTORY_PER_GAME * args.games:,} "
          f"received mails; filled in {filled:.0f} s)")  # fmt: skip
    print(f"  {'case':48} {'CPU ms/move':>11} {'statements/move':>15}")
    for case in cases:
        cost = case.cost()
        print(f"  {case.name:48} {cost.cpu_ms:11.2f} {cost.statements:15.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
