"""The real `pbm serve` process: killed with SIGKILL it loses nothing and applies
nothing twice; and `make run` answers a first mail into var/outbox."""

from __future__ import annotations

import mailbox
import os
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

import pbm.games
from pbm.store.database import Database
from pbm.store.models import InboundMessage, MoveRecord, OutboxMessage, Player
from tests.e2e.conftest import free_port
from tests.support import mail, reader_children

ALICE, BOB = "alice@example.org", "bob@example.net"
REPOSITORY = Path(__file__).resolve().parents[2]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def wait_until(condition, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class PbmProcess:
    """`python -m pbm serve` in its own process, configured by environment variables."""

    def __init__(self, database_url: str, workdir: Path) -> None:
        self.workdir = workdir
        self.smtp_port = free_port()
        self.outbox = workdir / "outbox"
        self.env = {
            **os.environ,
            "PBM_DATABASE_URL": database_url,
            "PBM_SMTP_LISTEN": f"127.0.0.1:{self.smtp_port}",
            "PBM_HTTP_LISTEN": f"127.0.0.1:{free_port()}",
            "PBM_OUTBOUND": f"maildir:{self.outbox}",
            "PBM_SECRET_KEY": "crash-test-" + "k" * 30,
        }
        self.process: subprocess.Popen | None = None

    def start(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pbm", "serve", *args],
            env=self.env,
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.smtp_port, self.process)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def send(self, raw: bytes, sender: str) -> None:
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=30) as client:
            client.sendmail(sender, ["pbm@localhost"], raw.replace(b"\n", b"\r\n"))

    def delivered(self) -> int:
        return len(mailbox.Maildir(self.outbox, create=True))


@pytest.fixture
def pbm_process(database_url, tmp_path):
    process = PbmProcess(database_url, tmp_path)
    yield process
    if process.process is not None and process.process.poll() is None:
        process.kill()


def count(database: Database, *where, model=InboundMessage) -> int:
    with database.reading() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def test_a_started_server_has_its_mail_reader_ready_before_the_first_mail(pbm_process):
    # Started at the first mail instead, the reader's process would add its start-up to
    # that mail's wait and to every mail queued behind it.
    pbm_process.start()
    assert pbm_process.process is not None
    assert len(reader_children(pbm_process.process.pid)) == 1


def test_a_mail_accepted_before_a_sigkill_is_processed_once_after_the_restart(pbm_process, database):
    pbm_process.start("--no-process")
    pbm_process.send(mail(ALICE, "signup alice alice-pw"), ALICE)  # the 250 has been given
    pbm_process.kill()
    assert count(database, InboundMessage.status == "pending") == 1
    assert count(database, model=Player) == 0

    pbm_process.start()
    wait_until(lambda: pbm_process.delivered() == 1, what="the welcome mail")
    assert count(database, model=Player) == 1
    assert count(database, InboundMessage.status == "processed") == 1

    pbm_process.kill()
    pbm_process.start()
    time.sleep(2)
    assert count(database, model=Player) == 1
    assert count(database, model=OutboxMessage) == 1


def test_moves_in_flight_at_a_sigkill_are_each_applied_exactly_once(pbm_process, database):
    engine = pbm.games.get("cephalopod")
    # What is counted below is the game's mails; a club that vouches for its addresses has no others.
    pbm_process.env["PBM_CONFIRM_ADDRESSES"] = "off"
    pbm_process.start()
    pbm_process.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    pbm_process.send(mail(BOB, "signup bob bob-pw"), BOB)
    pbm_process.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    wait_until(lambda: count(database, model=OutboxMessage) == 4, what="the new board")

    state, lines = engine.new(players=2), []
    for cell in ["c3", "a1", "e5", "a5", "e1", "b4", "d2", "d4", "b2", "c1"]:
        userid, address = (("alice", ALICE), ("bob", BOB))[state.to_move]
        lines.append((address, f"cephalopod move 101 {userid} {userid}-pw {cell}#{state.ply + 1}"))
        state = engine.play(state, cell)
    for address, line in lines:
        pbm_process.send(mail(address, line), address)
    pbm_process.kill()  # right after the last 250, with processing somewhere in the middle

    pbm_process.start()
    wait_until(lambda: count(database, InboundMessage.status == "pending") == 0, what="processing")
    with database.reading() as session:
        moves = list(session.scalars(select(MoveRecord).order_by(MoveRecord.number)))
        assert [m.number for m in moves] == list(range(1, 11))
        assert [m.notation for m in moves] == [line.split()[-1].split("#")[0] for _, line in lines]
        move_mails = [m.inbound_id for m in moves]
        boards = session.execute(
            select(OutboxMessage.inbound_id, func.count())
            .where(OutboxMessage.inbound_id.in_(move_mails))
            .group_by(OutboxMessage.inbound_id)
        ).all()
    assert sorted(boards) == sorted((mail_id, 2) for mail_id in move_mails)  # two boards each: none lost, none twice
    assert count(database, InboundMessage.status == "processed") == 13


@pytest.mark.skipif(not (REPOSITORY / ".venv" / "bin" / ".installed").exists(), reason="needs the make-built .venv")
def test_make_run_answers_a_first_mail_into_var_outbox(tmp_path):
    """The README tour: `make run`, then a command sent with smtplib; the reply lands in var/outbox."""
    checkout = tmp_path / "pbm"
    shutil.copytree(
        REPOSITORY, checkout, ignore=shutil.ignore_patterns(".venv", "var", ".git", "*.pyc", "test-artifacts")
    )
    (checkout / ".venv").symlink_to(REPOSITORY / ".venv")
    smtp_port = free_port()
    env = {
        **os.environ,
        "PBM_SMTP_LISTEN": f"127.0.0.1:{smtp_port}",
        "PBM_HTTP_LISTEN": f"127.0.0.1:{free_port()}",
    }
    for name in ("PBM_DATABASE_URL", "PBM_OUTBOUND", "PBM_SECRET_KEY", "PBM_ADDRESS"):
        env.pop(name, None)
    # -o: the copy shares this test run's .venv, already installed; make must not rebuild it.
    make = subprocess.Popen(
        ["make", "-o", ".venv/bin/.server", "-o", ".venv/bin/.installed", "run"],
        cwd=checkout,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(smtp_port, make)
        with smtplib.SMTP("127.0.0.1", smtp_port) as client:
            client.sendmail(
                "you@example.org",
                ["pbm@localhost"],
                b"From: you@example.org\r\nTo: pbm@localhost\r\nSubject: help\r\n\r\n",
            )
        outbox = checkout / "var" / "outbox" / "new"
        wait_until(lambda: outbox.is_dir() and any(outbox.iterdir()), what="a reply in var/outbox")
        (reply,) = outbox.iterdir()
        assert b"Subject: Help for the PBeM Server" in reply.read_bytes()
        assert (checkout / "var" / "pbm.db").exists() and (checkout / "var" / "secret.key").exists()
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)
        make.wait(30)


def test_pbm_process_handles_one_message_offline_as_a_pipe_would(database_url, tmp_path):
    env = {
        **os.environ,
        "PBM_DATABASE_URL": database_url,
        "PBM_OUTBOUND": f"maildir:{tmp_path}/outbox",
        "PBM_SECRET_KEY": "pipe-" + "k" * 40,
    }
    raw = mail(ALICE, "signup alice alice-pw")
    done = subprocess.run(
        [sys.executable, "-m", "pbm", "process", "--sender", ALICE, "-"],
        input=raw,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"processed 1; delivered 1" in done.stdout
    (reply,) = mailbox.Maildir(tmp_path / "outbox").values()
    assert reply["Subject"] == "Welcome to the PBeM Server, alice"
    foreign = subprocess.run(
        [sys.executable, "-m", "pbm", "process", "--recipient", "x@elsewhere.example", "-"],
        input=raw,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert foreign.returncode == 67


# -- `pbm process` as a Postfix pipe: what the exit status tells the MTA ------------


def run_pbm(*args: str, env: dict[str, str], cwd: Path, raw: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pbm", *args], input=raw, env=env, cwd=cwd, capture_output=True, timeout=120, check=False
    )


def pipe_env(database_url: str, **more: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBM_")}
    return {**env, "PBM_DATABASE_URL": database_url, "PBM_SECRET_KEY": "pipe-" + "k" * 40, **more}


@pytest.mark.parametrize("setting", ["PBM_SMTP_LISTEN", "PBM_HTTP_LISTEN"])
def test_pbm_serve_on_an_address_in_use_says_in_one_line_which_setting_to_change(setting, tmp_path, sqlite_template):
    migrated = tmp_path / "pbm.db"
    shutil.copy(sqlite_template, migrated)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        listen = {"PBM_SMTP_LISTEN": f"127.0.0.1:{free_port()}", "PBM_HTTP_LISTEN": f"127.0.0.1:{free_port()}"}
        listen[setting] = f"127.0.0.1:{taken.getsockname()[1]}"
        env = pipe_env(f"sqlite:///{migrated}", PBM_OUTBOUND=f"maildir:{tmp_path / 'outbox'}", **listen)
        done = run_pbm("serve", env=env, cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith(f"pbm: {setting}: cannot listen on 127.0.0.1:") and "in use" in line


@pytest.mark.parametrize("reason", ["database unreachable", "bad configuration", "schema out of date", "no input"])
def test_pbm_process_exits_75_when_the_mail_could_not_be_stored(reason, tmp_path, sqlite_template):
    """75 is EX_TEMPFAIL: Postfix keeps the mail and tries again (on 1 it would bounce it)."""
    migrated = tmp_path / "pbm.db"
    shutil.copy(sqlite_template, migrated)
    url, message = f"sqlite:///{migrated}", "-"
    if reason == "database unreachable":
        url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/pbm"
    elif reason == "bad configuration":
        url = "mysql://localhost/pbm"
    elif reason == "schema out of date":
        url = f"sqlite:///{tmp_path}/never-migrated.db"
    else:
        message = str(tmp_path / "vanished.eml")
    done = run_pbm("process", "--sender", ALICE, message, env=pipe_env(url), cwd=tmp_path, raw=mail(ALICE, "help"))
    assert done.returncode == 75, done.stderr
    assert b"Traceback" not in done.stderr


def test_pbm_process_exits_0_once_the_mail_is_stored_though_processing_fails(database_url, database, tmp_path):
    with database.engine.begin() as connection:
        for statement in SABOTAGE[database.engine.dialect.name]:
            connection.exec_driver_sql(statement)
    env = pipe_env(database_url, PBM_OUTBOUND=f"maildir:{tmp_path}/outbox")
    done = run_pbm("process", "--sender", ALICE, "-", env=env, cwd=tmp_path, raw=mail(ALICE, "help"))
    assert done.returncode == 0, done.stderr
    assert count(database) == 1  # stored: a later `pbm serve` or `pbm process` takes it up again


SABOTAGE = {
    "sqlite": [
        "CREATE TRIGGER sabotage BEFORE UPDATE ON inbound_messages "
        "BEGIN SELECT RAISE(ABORT, 'processing is broken'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION sabotage() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RAISE EXCEPTION 'processing is broken'; END $$",
        "CREATE TRIGGER sabotage BEFORE UPDATE ON inbound_messages FOR EACH ROW EXECUTE FUNCTION sabotage()",
    ],
}
"""Storing a mail still works; processing it, which updates the row, cannot."""


def test_the_default_maildir_is_made_where_no_var_folder_exists_yet(database_url, tmp_path):
    """PostgreSQL and PBM_SECRET_KEY: nothing else makes var/, and replies must still land in var/outbox."""
    done = run_pbm("process", "--sender", ALICE, "-", env=pipe_env(database_url), cwd=tmp_path, raw=mail(ALICE, "help"))
    assert done.returncode == 0, done.stderr
    assert len(mailbox.Maildir(tmp_path / "var" / "outbox", create=False)) == 1


def test_pbm_serve_will_not_start_with_a_maildir_it_cannot_write(database_url, tmp_path):
    (tmp_path / "var").write_text("a file where the folder should be")
    env = pipe_env(
        database_url,
        PBM_OUTBOUND="maildir:var/outbox",
        PBM_SMTP_LISTEN=f"127.0.0.1:{free_port()}",
        PBM_HTTP_LISTEN=f"127.0.0.1:{free_port()}",
    )
    done = run_pbm("serve", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert b"PBM_OUTBOUND" in done.stderr and b"Traceback" not in done.stderr
