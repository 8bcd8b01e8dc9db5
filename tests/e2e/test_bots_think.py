"""Through a real `pbm serve`: every bot turn is searched, in Dodeca against every level and in
Cephalopod against bot4, and still after the bots' thinking process is SIGKILLed mid-turn.

Read from what an operator reads: the server's log (each searched answer is a line
``bot3 at dodeca 103: a2-a3=1 (0.4 s)``; one without searching says so) and its metrics
(``pbm_bot_unthought_answers_total``, ``pbm_bot_thinking_replaced_total``). Alice plays a few
moves of each game by mail (level 1's choice, from the board as the database holds it), then
resigns: whole games would say nothing more of the thinking.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import select

import pbm.bots
import pbm.games
from pbm.store.database import Database
from pbm.store.models import Board
from tests.conftest import ON_SQLITE_ONLY
from tests.e2e.conftest import free_port
from tests.e2e.test_processes import PbmProcess, wait_until
from tests.support import mail

pytestmark = ON_SQLITE_ONLY  # the thinking is the same whatever the database: once is enough

ALICE = "alice@example.org"
BOT_SECONDS = 20
"""PBM_BOT_SECONDS: above what a turn takes even after a new thinking process had to start on a busy machine."""
ALICE_MOVES = 3
"""Alice's moves in each game: each is answered by a bot turn."""


class ServeWithLog(PbmProcess):
    """`pbm serve` with its log in a file, its metrics on a port, and its bots' thinking process found."""

    def __init__(self, database_url: str, workdir: Path) -> None:
        super().__init__(database_url, workdir)
        self.metrics_port = free_port()
        self.env.update(
            PBM_METRICS_LISTEN=f"127.0.0.1:{self.metrics_port}",
            PBM_BOT_SECONDS=str(BOT_SECONDS),
            PBM_CONFIRM_ADDRESSES="off",
        )
        self.log = workdir / "serve.log"

    def start(self, *args: str) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pbm", "serve", *args],
                env=self.env,
                cwd=self.workdir,
                stdout=log,
                stderr=log,
            )
        wait_for_metrics(self)

    def logged(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def metric(self, name: str, **labels: str) -> float:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        shown = ",".join(f'{key}="{value}"' for key, value in labels.items())
        series = f"{name}{{{shown}}}" if labels else name
        (value,) = re.findall(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
        return float(value)

    def thinker(self) -> int | None:
        """The pid of the bots' thinking process (a spawned child of the server), if one runs."""
        assert self.process is not None
        for process in Path("/proc").glob("[0-9]*"):
            try:
                state, parent = (process / "stat").read_text().rsplit(")", 1)[1].split()[:2]
                command = (process / "cmdline").read_bytes()
            except OSError:
                continue
            if int(parent) == self.process.pid and state != "Z" and b"spawn_main" in command:
                return int(process.name)
        return None


def wait_for_metrics(server: ServeWithLog) -> None:
    def answers() -> bool:
        assert server.process is not None and server.process.poll() is None, "pbm serve exited"
        try:
            server.metric("pbm_database_up")
        except OSError:
            return False
        return True

    wait_until(answers, what="pbm serve's metrics")


@pytest.fixture
def serve(database_url, tmp_path):
    server = ServeWithLog(database_url, tmp_path)
    server.start()
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    yield server
    if server.process is not None and server.process.poll() is None:
        server.kill()


def board(database: Database, game: str, number: int) -> Board | None:
    with database.reading() as session:
        row = session.scalar(select(Board).where(Board.game_type == game, Board.board == number))
        if row is not None:
            session.expunge(row)
        return row


def alice_to_move(database: Database, game: str, number: int) -> bool:
    row = board(database, game, number)
    if row is None or row.status != "active":
        return False
    alice = next(seat.seat for seat in row.seats if seat.player.userid == "alice")
    return row.to_move == alice


def alice_moves(server: ServeWithLog, database: Database, game: str, number: int) -> int:
    """Alice waits for her turn at board `number` and mails level 1's move; the move count after it."""
    wait_until(
        lambda: alice_to_move(database, game, number), timeout=BOT_SECONDS + 30, what=f"alice's turn at {number}"
    )
    row = board(database, game, number)
    assert row is not None
    engine = pbm.games.get(game)
    state = engine.resume(row.state, row.secret)
    move = pbm.bots.choose(game, state, 1, seed=row.move_count)
    server.send(mail(ALICE, f"{game} move {number} alice alice-pw {move}"), ALICE)
    wait_until(lambda: (board(database, game, number) or row).move_count > row.move_count, what="alice's move applied")
    return row.move_count + 1


def play_a_few_moves(server: ServeWithLog, database: Database, game: str, bot: str, number: int) -> None:
    """Alice challenges `bot` at `game` (board `number`), answers its moves `ALICE_MOVES` times, sees
    its last answer, and resigns."""
    server.send(mail(ALICE, f"{game} challenge alice {bot}"), ALICE)
    wait_until(lambda: board(database, game, number) is not None, what=f"{game} board {number}")
    for _ in range(ALICE_MOVES):
        alice_moves(server, database, game, number)
    wait_until(lambda: alice_to_move(database, game, number), timeout=BOT_SECONDS + 30, what=f"{bot}'s last answer")
    server.send(mail(ALICE, f"{game} resign {number} alice alice-pw"), ALICE)
    wait_until(lambda: (board(database, game, number) or Board()).status == "finished", what="alice's resignation")


def searched(log: str, bot: str, game: str, number: int) -> list[str]:
    """The moves `bot` answered from its search at `game` `number`, as the log says them."""
    return re.findall(rf"INFO pbm\.mail\.bot_turns: {bot} at {game} {number}: (.+) \(\d+\.\d s\)$", log, re.MULTILINE)


def assert_no_incident(server: ServeWithLog) -> None:
    assert "without searching" not in server.logged()
    assert "a fact does not change" not in server.logged()
    for game in ("cephalopod", "cubeo", "dodeca"):
        assert server.metric("pbm_bot_unthought_answers_total", game=game) == 0


def test_every_bot_turn_is_searched_in_dodeca_at_every_level_then_in_cephalopod_against_bot4(serve, database):
    for level in (1, 2, 3, 4):
        play_a_few_moves(serve, database, "dodeca", f"bot{level}", 100 + level)
    play_a_few_moves(serve, database, "cephalopod", "bot4", 101)
    log = serve.logged()
    for number, bot, game in [(101, "bot1", "dodeca"), (102, "bot2", "dodeca"), (103, "bot3", "dodeca")]:
        assert len(searched(log, bot, game, number)) >= ALICE_MOVES, f"{bot}'s turns at {game} {number}"
    assert len(searched(log, "bot4", "dodeca", 104)) >= ALICE_MOVES
    assert len(searched(log, "bot4", "cephalopod", 101)) >= ALICE_MOVES
    assert_no_incident(serve)
    assert serve.metric("pbm_bot_thinking_replaced_total", reason="died") == 0


def test_a_thinking_process_sigkilled_mid_turn_is_replaced_and_the_turn_still_searched(serve, database):
    play_a_few_moves(serve, database, "dodeca", "bot2", 101)  # the thinking process is up
    killed = serve.thinker()
    assert killed is not None
    serve.send(mail(ALICE, "cephalopod challenge alice bot4"), ALICE)
    wait_until(lambda: board(database, "cephalopod", 101) is not None, what="the cephalopod board")
    after = alice_moves(serve, database, "cephalopod", 101)
    time.sleep(0.3)  # bot4 thinks about 2 s a move on a 5x5 board
    assert (board(database, "cephalopod", 101) or Board()).move_count == after, "bot4 is still thinking"
    os.kill(killed, signal.SIGKILL)
    killed_at = time.monotonic()
    wait_until(lambda: alice_to_move(database, "cephalopod", 101), timeout=BOT_SECONDS + 5, what="bot4's answer")
    assert time.monotonic() - killed_at < BOT_SECONDS, "thought again within PBM_BOT_SECONDS"
    log = serve.logged()
    assert "the bots' thinking process was lost (it died (exit code -9)): a new one takes over" in log
    assert len(searched(log, "bot4", "cephalopod", 101)) == 1
    assert serve.thinker() not in (None, killed)
    play_a_few_moves(serve, database, "dodeca", "bot3", 102)
    assert_no_incident(serve)
    assert serve.metric("pbm_bot_thinking_replaced_total", reason="died") == 1
