"""A bot as a player of a served club against the plain UCT, by mail: ``python -m benchmarks.served_match``.

    python -m benchmarks.served_match [--game cephalopod] [--level 4] [--games N] [--first K]

`benchmarks.uct_match` plays the bot through `pbm.bots.choose`; here the bot plays as the
club's ``botN`` does for anyone: a server runs in this process (SQLite in a scratch folder,
replies to a maildir) with its bots thinking in their own process as `pbm serve`'s do, alice
challenges the bot (seats alternating: the bot first in even games) and mails each move the
plain UCT of `benchmarks.uct_match` chooses for her, as a move command over SMTP.

Thinking time: the bots' thinking process is a child of this one, and its CPU time (from
``/proc``, counted in ticks of 10 ms) over a game, divided by the bot's moves, is the bot's CPU
seconds a move; for each of alice's moves the UCT gets what the bot's last move took (the first:
the ladder's figure for the level), counted on the CPU clock of the thread it thinks in (the
server's threads share this process). Printed too: the wall seconds from alice's move applied
to the bot's (the move list's times), what a player waits on this machine as busy as it is,
against the CPU seconds and the ladder's table.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

import pbm.bots
import pbm.games
from benchmarks.bot_turns import ALICE, send
from benchmarks.club import served_club
from benchmarks.uct_match import uct_move, wilson
from pbm.bots.dodeca import blind
from pbm.serving.server import Server, ServerThread
from pbm.store.models import Board, BoardStatus, MoveRecord, Seat

TICKS = os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    """The CPU seconds this process's children (the bots' thinking process) have used so far."""
    total = 0.0
    for child in multiprocessing.active_children():
        try:
            fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime
    return total


def latest(server: Server, game: str) -> tuple[Board, int] | None:
    """The last board of `game` and alice's seat there."""
    with server.database.reading() as session:
        row = session.scalar(select(Board).where(Board.game_type == game).order_by(Board.id.desc()).limit(1))
        if row is None:
            return None
        seat = session.scalar(
            select(Seat.seat).join(Seat.player).where(Seat.game_id == row.id, Seat.player.has(userid="alice"))
        )
        session.expunge(row)
        return row, int(seat or 0)


def wait_for(server: Server, game: str, board_id: int | None, count: int, timeout: float = 600.0) -> tuple[Board, int]:
    """The board once a new one is started (`board_id` None) or it has `count` moves or is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = latest(server, game)
        if now is not None:
            row, _ = now
            fresh = board_id is None or row.id == board_id
            if (board_id is None and row.status == BoardStatus.ACTIVE and row.move_count == 0) or (
                board_id is not None and fresh and (row.move_count >= count or row.status != BoardStatus.ACTIVE)
            ):
                return now
        time.sleep(0.02)
    raise TimeoutError(f"board {board_id} did not reach move {count}")


def one_game(server: Server, port: int, game: str, level: int, number: int, first_seconds: float) -> dict[str, Any]:
    """Play game `number` through the server; the bot's score and its seconds."""
    engine = pbm.games.get(game)
    rules = pbm.bots.plan(game, level).rules
    bot_seat = number % 2
    seats = f"bot{level} alice" if bot_seat == 0 else f"alice bot{level}"
    send(port, ALICE, f"{game} challenge {seats}")
    row, alice = wait_for(server, game, None, 0)
    assert alice == 1 - bot_seat, (alice, bot_seat)
    rng = random.Random(f"served {game} {number}")
    cpu_before = children_cpu()
    uct_spent, uct_moves, bot_moves, bot_cpu_before_its_last = 0.0, 0, 0, 0.0
    while row.status == BoardStatus.ACTIVE:
        state = engine.resume(row.state, row.secret)
        if state.to_move != alice:
            row, _ = wait_for(server, game, row.id, row.move_count + 1)
            continue
        bot_moves = (row.move_count + (1 - bot_seat)) // 2  # the bot's moves so far
        bot_cpu = children_cpu() - cpu_before
        allowed = bot_cpu - bot_cpu_before_its_last if bot_moves else first_seconds
        public = blind(state) if game == "dodeca" else state
        started = time.thread_time()  # this thread's: the server's threads work in this process too
        chosen, _ = uct_move(rules, public, allowed, rng, clock=time.thread_time)
        uct_spent += time.thread_time() - started
        uct_moves += 1
        bot_cpu_before_its_last = children_cpu() - cpu_before  # the bot thinks next
        send(port, ALICE, f"{game} move {row.board} alice alice-pw {rules.notation(chosen)}#{row.move_count + 1}")
        row, _ = wait_for(server, game, row.id, row.move_count + 1)
    bot_cpu = children_cpu() - cpu_before
    with server.database.reading() as session:
        times = session.scalars(
            select(MoveRecord.created_at).where(MoveRecord.game_id == row.id).order_by(MoveRecord.number)
        ).all()
    # A bot's move's wall time: from the move before it (alice's) being applied to its own (the
    # bot's first move in an even game follows the challenge, not a move: it is left out).
    waits = [(times[i] - times[i - 1]).total_seconds() for i in range(1, len(times)) if i % 2 == bot_seat]
    winners = row.winners or []
    score = 0.5 if not winners else (1.0 / len(winners) if bot_seat in winners else 0.0)
    bot_moves = (len(times) + (1 - bot_seat)) // 2
    return {
        "score": score,
        "bot_cpu": bot_cpu / max(1, bot_moves),
        "uct_cpu": uct_spent / max(1, uct_moves),
        "waits": waits,
        "plies": len(times),
        "end": row.end_code,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.served_match", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cephalopod")
    parser.add_argument("--level", type=int, default=None, help="the bot's level (the top one)")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--first", type=int, default=0, help="the number of the first game (0): seeds and seats")
    args = parser.parse_args(argv)
    level = args.level or pbm.bots.levels(args.game)[-1]
    measured = pbm.bots.strength(args.game) or {}
    table_seconds = float(measured.get("seconds_per_move", {}).get(str(level), 0.3))
    played = []
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        server = served_club(home, max_challenges_per_sender_per_hour=1000)
        with ServerThread(server, timeout=60) as running:
            assert running.smtp_port is not None
            send(running.smtp_port, ALICE, "signup alice alice-pw")
            for number in range(args.first, args.first + args.games):
                one = one_game(server, running.smtp_port, args.game, level, number, table_seconds)
                played.append(one)
                print(
                    f"  {args.game} game {number}: bot{level} scored {one['score']} after {one['plies']} plies"
                    f" ({one['end']}), {one['bot_cpu']:.3f} CPU s a move against the UCT's {one['uct_cpu']:.3f};"
                    f" wall from alice's move to the bot's: median {statistics.median(one['waits']):.2f} s,"
                    f" worst {max(one['waits']):.2f} s",
                    file=sys.stderr,
                    flush=True,
                )
    score = sum(one["score"] for one in played)
    wins = sum(one["score"] == 1.0 for one in played)
    draws = sum(0.0 < one["score"] < 1.0 for one in played)
    low, high = wilson(score, len(played))
    waits = [wait for one in played for wait in one["waits"]]
    waits.sort()
    print(
        f"{args.game} served: bot{level} scored {score}/{len(played)} ({wins} won, {draws} drawn,"
        f" {len(played) - wins - draws} lost; 95% {100 * low:.0f}-{100 * high:.0f}%) against plain UCT by mail;"
        f" {statistics.mean(one['bot_cpu'] for one in played):.3f} CPU s a move against"
        f" {statistics.mean(one['uct_cpu'] for one in played):.3f}; the ladder's table says {table_seconds} s;"
        f" wall seconds a bot move took here: median {statistics.median(waits):.2f},"
        f" 95th percentile {waits[int(0.95 * (len(waits) - 1))]:.2f}, worst {waits[-1]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
