"""SIGKILL loops: whatever moment `pbm serve` dies at, every mail that got a 250 is
stored once, processed once, each move applied once, each reply queued once and
delivered once.

Several clients play games over SMTP (signups, a challenge, then a stream of
moves) while the server is SIGKILLed and restarted at random moments. Like an
MTA, a client tries a mail again when it meets a 4xx or a dead connection. The
run happens once per backend; each test below checks one promise on it.

Between two kills, `pbm backup` copies the database while the clients go on playing; the
last test restores that copy and audits it: every mail acknowledged before the copy began is
in it once, and a server on it finishes each exactly once.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.faults.audit import Tables, maildir_files, message_id_counts
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, Match, challenge, new_player, post, signup

SETTLE_SECONDS = 120.0
"""After the last restart, how long the queues may take to empty: long enough for
anything but mail held by a dead process's claim."""


@dataclass
class CrashRun:
    tables: Tables
    server: ServeProcess
    accepted: list[Letter] = field(default_factory=list)
    expected_moves: dict[tuple[str, int], list[tuple[int, str, str]]] = field(default_factory=dict)
    """(game, board) -> [(number, notation, Message-ID)] as the clients sent them."""
    client_errors: list[str] = field(default_factory=list)
    retried: int = 0
    unsettled: str = ""
    backup: Path | None = None
    """The copy `pbm backup` took in the middle of the kills."""
    before_backup: list[Letter] = field(default_factory=list)
    """The mails acknowledged (250) before the copy began: the copy must hold each of them."""
    backup_error: str = ""


def play(server: ServeProcess, tables: Tables, run: CrashRun, rng: random.Random, moves: int, lock) -> None:
    """One client: two fresh players sign up, challenge, and play `moves` moves, each mail until its 250."""

    def send(letter: Letter) -> None:
        sent = post(server.smtp_port, letter)
        with lock:
            run.accepted.append(letter)
            run.retried += len(sent.attempts) - 1

    try:
        match = Match("cephalopod", [new_player("k", rng), new_player("k", rng)], options={"size": 7})
        for player in match.players:
            send(signup(player))
        send(challenge("cephalopod", match.players, "-size=7"))
        match.board = wait_for(lambda: tables.board_of("cephalopod", match.userids), timeout=120)
        if match.board is None:
            raise AssertionError(f"the challenge of {match.userids} made no game")
        expected = run.expected_moves.setdefault(("cephalopod", match.board), [])
        for _ in range(moves):
            if match.over:
                break
            number = match.number
            move_letter, move = match.move_letter(rng)
            send(move_letter)
            expected.append((number, move, move_letter.message_id))
    except Exception as error:  # reported by the tests, not lost in a thread
        with lock:
            run.client_errors.append(f"{type(error).__name__}: {error}")


def kill_at_random(server: ServeProcess, kills: int, rng: random.Random, backup=None) -> None:
    """SIGKILL and restart `server` `kills` times, calling `backup` once, half-way: after the
    restart that follows the middle kill, while games are being played."""
    for kill in range(kills):
        time.sleep(rng.uniform(0.2, 1.5))
        server.kill()
        server.start()
        if kill == kills // 2 and backup is not None:
            backup()


def back_up(run: CrashRun, folder: Path, lock) -> None:
    """`pbm backup` while the clients play, noting first what had been acknowledged."""
    with lock:
        run.before_backup = list(run.accepted)
    done = subprocess.run(
        [sys.executable, "-m", "pbm", "backup", str(folder / "copy")],
        env=run.server.env,
        cwd=run.server.workdir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode == 0:
        run.backup = folder / "copy"
    else:
        run.backup_error = done.stderr


@pytest.fixture(scope="module")
def crash_run(module_database_url, tmp_path_factory, scale, figures):
    rng = random.Random(f"sigkill-{module_database_url.partition(':')[0]}")
    server = ServeProcess(module_database_url, tmp_path_factory.mktemp("sigkill"), env=GENEROUS_LIMITS)
    tables = Tables(module_database_url)
    run = CrashRun(tables, server)
    lock = threading.Lock()
    server.start()
    try:
        clients = [
            threading.Thread(
                target=play, args=(server, tables, run, random.Random(rng.random()), scale.moves_per_match, lock)
            )
            for _ in range(scale.matches)
        ]
        for client in clients:
            client.start()
        folder = tmp_path_factory.mktemp("backup")
        kill_at_random(server, scale.kills, rng, backup=lambda: back_up(run, folder, lock))
        for client in clients:
            client.join(600)

        def settled() -> bool:
            return not tables.pending() and all(row.status != "pending" for row in tables.outbox())

        if not wait_for(settled, SETTLE_SECONDS, interval=0.5):
            pending = len(tables.pending())
            waiting = [row for row in tables.outbox() if row.status == "pending"]
            run.unsettled = (
                f"{SETTLE_SECONDS:.0f} s after the last restart, {pending} received mail(s) still pending and "
                f"{len(waiting)} reply(ies) still undelivered (attempts: {sorted(r.attempts for r in waiting)})"
            )
        record(run, figures, server.kills)
        yield run
    finally:
        server.stop()
        tables.close()


def record(run: CrashRun, figures, kills: int) -> None:
    rows = run.tables.inbound_by_message_id()
    figures.kills += kills
    backend = run.server.env["PBM_DATABASE_URL"].partition(":")[0]
    figures.notes.append(
        f"SIGKILL loop on {backend}: {kills} kills, {len(run.accepted)} mails accepted after "
        f"{run.retried} retries (4xx, refused or cut connections)"
    )
    figures.mails_sent += len(run.accepted)
    for letter in run.accepted:
        stored = [row for row in rows.get(letter.message_id, []) if row.status != "duplicate"]
        if not stored or stored[0].status in ("pending", "failed"):
            figures.mails_lost += 1
        elif len(stored) > 1:
            figures.mails_doubled += 1
    figures.mails_doubled += sum(n - 1 for n in delivered_counts(run).values() if n > 1)
    figures.moves_applied_twice += sum(
        n - 1 for n in Counter((m.game_type, m.board, m.inbound_id) for m in run.tables.moves()).values() if n > 1
    )


def delivered_counts(run: CrashRun) -> Counter[str]:
    return message_id_counts(maildir_files(run.server.outbox))


def test_the_clients_got_every_mail_accepted(crash_run):
    assert crash_run.client_errors == []
    assert crash_run.accepted


def test_every_accepted_mail_is_stored_exactly_once(crash_run):
    rows = crash_run.tables.inbound_by_message_id()
    stored = {
        letter.message_id: len([row for row in rows.get(letter.message_id, []) if row.status != "duplicate"])
        for letter in crash_run.accepted
    }
    assert {mid: n for mid, n in stored.items() if n != 1} == {}


def test_every_accepted_mail_is_processed(crash_run):
    rows = crash_run.tables.inbound_by_message_id()
    statuses = Counter(
        next((row.status for row in rows.get(letter.message_id, []) if row.status != "duplicate"), "missing")
        for letter in crash_run.accepted
    )
    assert statuses == Counter(processed=len(crash_run.accepted))


def test_every_move_is_applied_once_in_the_order_sent(crash_run):
    rows = crash_run.tables.inbound_by_message_id()
    applied: dict[tuple[str, int], list[tuple[int, str, int | None]]] = {}
    for move in crash_run.tables.moves():
        applied.setdefault((move.game_type, move.board), []).append((move.number, move.notation, move.inbound_id))
    expected = {
        game: [(number, notation, rows[mid][0].id) for number, notation, mid in moves]
        for game, moves in crash_run.expected_moves.items()
    }
    assert applied == expected


def test_every_reply_is_queued_once(crash_run):
    rows = crash_run.tables.inbound_by_message_id()
    queued = Counter(row.inbound_id for row in crash_run.tables.outbox())
    owed = {letter.message_id: letter.replies for letter in crash_run.accepted}
    got = {mid: queued[rows[mid][0].id] if mid in rows else 0 for mid in owed}
    assert got == owed


def test_the_queues_empty_soon_after_the_last_restart(crash_run):
    """A killed server's claims on mail end with it: nothing waits out a long lease."""
    assert crash_run.unsettled == ""


def test_no_reply_is_delivered_twice(crash_run):
    delivered = delivered_counts(crash_run)
    assert {mid: n for mid, n in delivered.items() if n > 1} == {}
    assert set(delivered) <= {row.message_id.strip() for row in crash_run.tables.outbox()}


def test_a_backup_taken_during_the_kills_restores_every_mail_acknowledged_before_it_exactly_once(
    crash_run, tmp_path, postgres_databases, figures
):
    assert crash_run.backup is not None, crash_run.backup_error
    url = crash_run.server.env["PBM_DATABASE_URL"]
    restored = f"sqlite:///{tmp_path / 'restored.db'}" if url.startswith("sqlite") else postgres_databases.create()
    server = ServeProcess(restored, tmp_path / "restored", env=GENEROUS_LIMITS)
    server.env["PBM_SECRET_KEY"] = crash_run.server.secret_key
    restoring = subprocess.run(
        [sys.executable, "-m", "pbm", "restore", str(crash_run.backup)],
        env=server.env,
        cwd=server.workdir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert restoring.returncode == 0, restoring.stderr
    tables = Tables(restored)
    server.start()  # finishes what the copy held unfinished: mail pending, replies unsent
    try:

        def settled() -> bool:
            return not tables.pending() and all(row.status != "pending" for row in tables.outbox())

        assert wait_for(settled, SETTLE_SECONDS, interval=0.5)
        rows = tables.inbound_by_message_id()
        acknowledged = crash_run.before_backup
        stored = {
            letter.message_id: [row.status for row in rows.get(letter.message_id, []) if row.status != "duplicate"]
            for letter in acknowledged
        }
        assert {mid: statuses for mid, statuses in stored.items() if statuses != ["processed"]} == {}
        queued = Counter(row.inbound_id for row in tables.outbox())
        assert {
            letter.message_id: queued[rows[letter.message_id][0].id]
            for letter in acknowledged
            if queued[rows[letter.message_id][0].id] != letter.replies
        } == {}
        applied: dict[tuple[str, int], list[tuple[int, str, int | None]]] = {}
        for move in tables.moves():
            applied.setdefault((move.game_type, move.board), []).append((move.number, move.notation, move.inbound_id))
        before = {letter.message_id for letter in acknowledged}
        for game, moves in crash_run.expected_moves.items():
            sent = [(number, notation, rows[mid][0].id if mid in rows else None) for number, notation, mid in moves]
            owed = sum(1 for _, _, mid in moves if mid in before)
            got = applied.get(game, [])
            # Each move once, in the order sent: all those acknowledged before the copy, and perhaps
            # a few acknowledged while it was taken.
            assert got == sent[: len(got)] and len(got) >= owed, game
        figures.notes.append(
            f"backup during the SIGKILL loop on {url.partition(':')[0]}: {len(acknowledged)} of "
            f"{len(crash_run.accepted)} mails acknowledged before the copy; restored, each is in it once and "
            f"processed once, {sum(len(m) for m in applied.values())} moves applied once each"
        )
    finally:
        server.stop()
        tables.close()
        if not restored.startswith("sqlite"):
            postgres_databases.drop(restored)
