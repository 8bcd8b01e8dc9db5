"""Several workers on one database keep mail in order and never deadlock.

Mail from one sender is applied in the order received, and so is mail about
one player or one board: a challenge waits for the signup of the player it
names even when another worker is still applying that signup. Workers here
are real processors on one PostgreSQL database, racing in threads, slowed
down inside their transactions so that every race the order rules close
would otherwise happen.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbm.commands import verbs
from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.serving.server import Server
from pbm.store.inbox import save_inbound
from pbm.store.models import Board, InboundMessage, MoveRecord

pytestmark = pytest.mark.postgresql


@pytest.fixture
def postgres_url(database_url: str) -> str:
    if not database_url.startswith("postgresql"):
        pytest.skip("several workers share a database only on PostgreSQL")
    return database_url


class Workers:
    """`count` servers' processors on one database; `run` lets them race until all mail is done."""

    def __init__(self, database_url: str, var_dir: Path, count: int) -> None:
        # The players here play at once: no mail goes to confirming their addresses (and back).
        settings = Settings(
            database_url=database_url,
            secret_key="k" * 40,
            outbound=f"maildir:{var_dir}/outbox",
            confirm_addresses=False,
        )
        self.servers = [Server(settings, passwords=fast_passwords(), var_dir=var_dir) for _ in range(count)]
        self.database = self.servers[0].database

    def store(self, sender: str, body: str) -> None:
        raw = f"From: {sender}\r\nTo: pbm@localhost\r\nSubject: pbm\r\n\r\n{body}\r\n".encode()
        save_inbound(self.database, raw, envelope_from=sender, envelope_to=["pbm@localhost"])

    def run(self, timeout: float = 60.0) -> None:
        errors: list[BaseException] = []

        def work(server: Server) -> None:
            deadline = time.monotonic() + timeout
            try:
                while self.pending() and time.monotonic() < deadline:
                    if not server.processor.process_pending():
                        time.sleep(0.01)  # the other worker holds what is ready
            except BaseException as error:  # noqa: BLE001 - reported to the test below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(server,)) for server in self.servers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        assert self.pending() == 0

    def pending(self) -> int:
        with self.database.reading() as session:
            return session.scalar(select(func.count()).where(InboundMessage.status == "pending"))

    def notes(self) -> list[str]:
        with self.database.reading() as session:
            return list(session.scalars(select(InboundMessage.note).order_by(InboundMessage.id)))

    def close(self) -> None:
        for server in self.servers:
            server.close()


@pytest.fixture
def workers(postgres_url, tmp_path):
    workers = Workers(postgres_url, tmp_path, count=2)
    yield workers
    workers.close()


@pytest.fixture
def slow_commands(monkeypatch):
    """Each command takes a while inside its transaction, as argon2 or a busy database would make it."""
    real_run = verbs.run

    def slow_run(self, *args, **kwargs):
        replies = real_run(self, *args, **kwargs)
        time.sleep(0.05)
        return replies

    monkeypatch.setattr(verbs, "run", slow_run)


def test_the_readme_tour_sent_back_to_back_succeeds_with_two_workers(workers, slow_commands):
    rounds = 10
    for n in range(rounds):
        alice, bob = f"alice{n}", f"bob{n}"
        workers.store(f"{alice}@example.org", f"signup {alice} {alice}-secret")
        workers.store(f"{bob}@example.org", f"signup {bob} {bob}-secret")
        workers.store(f"{alice}@example.org", f"cephalopod challenge {alice} {bob}\n\nA game, Bob?")
    workers.run()
    assert all("0 refused" in note for note in workers.notes()), workers.notes()
    with workers.database.reading() as session:
        assert session.scalar(select(func.count()).select_from(Board)) == rounds


def test_one_senders_mails_are_applied_in_the_order_they_came(workers, slow_commands):
    workers.store("alice@example.org", "signup alice pass-0")
    for n in range(1, 12):
        workers.store("alice@example.org", f"change password alice pass-{n - 1} pass-{n}")
    workers.run()
    assert all("0 refused" in note for note in workers.notes()), workers.notes()


def test_crossed_mails_about_the_same_boards_never_deadlock(workers, slow_commands, caplog):
    for userid in ("alice", "bob"):
        workers.store(f"{userid}@example.org", f"signup {userid} {userid}-pw")
    workers.store("alice@example.org", "cephalopod challenge alice bob")
    workers.store("bob@example.org", "cephalopod challenge bob alice")
    workers.run()
    # At the same time: alice moves on 101 then 102, bob on 102 then 101; each
    # move locks its board first, so without an order they wait for each other.
    workers.store("alice@example.org", "cephalopod move 101 alice alice-pw a1\ncephalopod move 102 alice alice-pw a1")
    workers.store("bob@example.org", "cephalopod move 102 bob bob-pw e5\ncephalopod move 101 bob bob-pw e5")
    workers.run()
    assert "deadlock" not in caplog.text.lower()
    with workers.database.reading() as session:
        assert session.scalar(select(func.count()).where(InboundMessage.status == "failed")) == 0
        moves = session.execute(
            select(MoveRecord.game_id, MoveRecord.number, MoveRecord.notation).order_by(MoveRecord.id)
        ).all()
    # alice's mail first, whole: her move on 101 stands, on 102 it is bob's turn;
    # then bob's: his move on 102, and on 101, where alice has just moved.
    assert [(game, notation) for game, _, notation in moves] == [(1, "a1"), (2, "e5"), (1, "e5")]


# -- commands that change a player are ordered by that player, whoever sends them -------------
#
# Each race below: a mail that changes a player, then a mail from another sender whose answer
# depends on that change. They share no sender, only the player; both workers are free, so the
# second is applied in the first's place unless the player orders them. Several players race at
# once, so that a lost race would show.

RACERS = 6


def _signed_up(workers: Workers, *userids: str) -> None:
    for userid in userids:
        workers.store(f"{userid}@example.org", f"signup {userid} {userid}-pw")
    workers.run()


def _refused(workers: Workers) -> list[str]:
    return [note for note in workers.notes() if "0 refused" not in note]


def test_an_address_added_counts_for_the_next_mail_from_it(workers, slow_commands):
    _signed_up(workers, "zoe", *(f"add{n}" for n in range(RACERS)))
    for n in range(RACERS):
        workers.store(f"add{n}@example.org", f"add add{n} add{n}-pw add{n}@work.example.org")
        workers.store(f"add{n}@work.example.org", f"cephalopod challenge add{n} zoe")
    workers.run()
    assert _refused(workers) == []


def test_a_limit_counts_for_the_challenges_after_it(workers, slow_commands):
    _signed_up(workers, *(f"lim{n}" for n in range(RACERS)), *(f"chal{n}" for n in range(RACERS)))
    for n in range(RACERS):
        workers.store(f"lim{n}@example.org", f"cephalopod limit lim{n} lim{n}-pw 0")
        workers.store(f"chal{n}@example.org", f"cephalopod challenge chal{n} lim{n}")
    workers.run()
    with workers.database.reading() as session:
        assert session.scalar(select(func.count()).select_from(Board)) == 0  # every challenge met the limit


def test_taking_challenges_again_counts_for_the_challenges_after_it(workers, slow_commands):
    _signed_up(workers, *(f"acc{n}" for n in range(RACERS)), *(f"chal{n}" for n in range(RACERS)))
    for n in range(RACERS):
        workers.store(f"acc{n}@example.org", f"cephalopod reject acc{n} acc{n}-pw")
    workers.run()
    for n in range(RACERS):
        workers.store(f"acc{n}@example.org", f"cephalopod accept acc{n} acc{n}-pw")
        workers.store(f"chal{n}@example.org", f"cephalopod challenge chal{n} acc{n}")
    workers.run()
    assert _refused(workers) == []
    with workers.database.reading() as session:
        assert session.scalar(select(func.count()).select_from(Board)) == RACERS
