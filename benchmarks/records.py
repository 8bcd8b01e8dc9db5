"""What keeping every game provable costs: storage per move, a long game's record exported and
verified, and a board mail's receipt.

    python -m benchmarks.records [--plies 400] [--runs 5]

One long Dodeca game (the game whose games run longest) is played on a fresh SQLite database
through the store's own `record_move`, so every move is linked into the chain as the server
links it. Printed, each beside its baseline measured in the same run:

- the move table's bytes per move with the chain hashes, and with them cleared (before);
- exporting the game's record (`pbm.views.record`, signed), against the dice record
  `pbm dice-record` exported before;
- `pbm verify` on it, against `pbm verify-dice` on the dice record of the same game;
- signing one receipt, and its bytes in a board mail.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import text

import pbm.facts
import pbm.games
from pbm.crypto.keys import SigningKeys
from pbm.games import fairdice
from pbm.records import verify
from pbm.store import boards, players
from pbm.store.database import Database
from pbm.timekeeping import clocks
from pbm.views import record as document
from pbm.views.board import dice_record
from pbm.views.live import LiveBoard
from pbm.views.moves import report_data
from pbm.words import Words

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def median_seconds(work: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def play_long_game(database: Database, plies: int, seed: int) -> int:
    """A Dodeca game of (up to) `plies` random legal moves, stored move by move; its board id."""
    engine = pbm.games.get("dodeca")
    chooser = random.Random(seed)
    with database.transaction() as session:
        seated = [
            players.sign_up(session, u, "x", [f"{u}@example.org"], sender=f"{u}@example.org", now=START)
            for u in ("alice", "bob")
        ]
        session.flush()
        state = engine.new(players=2, seed=chooser.randbytes(32))
        row = boards.start(
            session,
            "dodeca",
            players=seated,
            options={},
            state=engine.dump(state),
            secret=engine.secret_of(state),
            to_move=state.to_move,
            challenger=seated[0],
            now=START,
            time_control=clocks.TimeControl(),
        )
        board = LiveBoard(row, engine, state)
        now = START
        for _ in range(plies):
            if engine.result(board.state) is not None:
                break
            move = chooser.choice(engine.legal_moves(board.state))
            after = engine.play(board.state, move)
            now += timedelta(hours=3)
            boards.record_move(
                session,
                row,
                seat=board.state.to_move,
                notation=move,
                comment="",
                report=report_data(engine.report(board.state, move, after)),
                now=now,
                inbound_id=None,
            )
            board.advance(after)
        if engine.result(board.state) is None:
            boards.finish(
                session,
                row,
                winners=[0],
                code="resigned",
                reason=pbm.facts.Fact("resigned"),
                called_off=pbm.facts.Fact("resigned"),
                now=now,
            )
        else:
            result = engine.result(board.state)
            boards.finish(
                session,
                row,
                winners=result.winners,
                code=result.code,
                reason=result.fact,
                called_off=result.fact,
                now=now,
            )
        return row.id


def move_table_bytes(path: Path) -> int:
    """The move table's bytes in use (SQLite's dbstat), after a VACUUM."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("VACUUM")
        return int(connection.execute("SELECT sum(pgsize - unused) FROM dbstat WHERE name = 'moves'").fetchone()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plies", type=int, default=400, help="moves of the long game (it may end sooner)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each timing (the median is printed)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.db"
        database = Database(f"sqlite:///{path}")
        database.upgrade()
        keys = SigningKeys(Path(folder) / "signing")
        board_id = play_long_game(database, args.plies, args.seed)
        engine = pbm.games.get("dodeca")

        def export() -> dict[str, Any]:
            with database.reading() as session:
                row = boards.by_id(session, board_id)
                live = LiveBoard(row)
                moves = boards.moves_of(session, row)
                built = document.build(engine, row, live.state, moves, site="bench", generated=START)
                return json.loads(json.dumps(document.sign(built, keys)))

        def export_dice() -> dict[str, Any]:
            with database.reading() as session:
                row = boards.by_id(session, board_id)
                live = LiveBoard(row)
                found = dice_record(engine, row, live.state, boards.moves_of(session, row))
                assert found is not None
                return json.loads(json.dumps(found))

        record, dice = export(), export_dice()
        plies = record["pbm"]["ply"]
        assert verify.verify(record).genuine and fairdice.verify(dice).ok

        print(
            f"long game: Dodeca, {plies} plies; record {len(json.dumps(record)):,} bytes, "
            f"dice record {len(json.dumps(dice)):,} bytes"
        )
        export_s, dice_s = median_seconds(export, args.runs), median_seconds(export_dice, args.runs)
        label = "export (read, build, sign)"
        print(f"{label:<34} {export_s * 1000:8.1f} ms  baseline dice-record: {dice_s * 1000:8.1f} ms")
        verify_s = median_seconds(lambda: verify.verify(record), args.runs)
        verify_dice_s = median_seconds(lambda: fairdice.verify(dice), args.runs)
        print(f"{'pbm verify':<34} {verify_s * 1000:8.1f} ms  baseline verify-dice: {verify_dice_s * 1000:8.1f} ms")
        head = record["pbm"]["head"]
        receipt_s = median_seconds(lambda: keys.receipt("dodeca", 101, plies, head), args.runs * 20)
        line = Words().say(keys.receipt("dodeca", 101, plies, head))
        print(f"{'a receipt signed':<34} {receipt_s * 1e6:8.1f} µs  {len(line.encode()) + 1} bytes in each board mail")
        database.dispose()
        with_chain = move_table_bytes(path)
        with database.transaction() as session:
            session.execute(text("UPDATE moves SET chain_hash = NULL"))
        database.dispose()
        without_chain = move_table_bytes(path)
        print(
            f"{'storage per move':<34} {with_chain / plies:8.1f} B   before (no chain): {without_chain / plies:8.1f} B"
        )
        database.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
