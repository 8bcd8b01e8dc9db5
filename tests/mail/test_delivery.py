"""Delivering the outbox: retried with backoff, failed for good only when it must be, never dropped;
leased to one worker while it lives."""

from __future__ import annotations

import asyncio
import logging
import mailbox
import os
import socket
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from pbm.config import ConfigError
from pbm.mail.delivery import Delivery, MaildirTransport, PermanentFailure, SmtpTransport, retry_delay
from pbm.mail.worker import Worker
from pbm.store import outbox
from pbm.store.models import OutboxMessage, utcnow
from tests.e2e.conftest import free_port
from tests.support import claim_on_this_host

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)


class FlakyTransport:
    """Fails with `error` the first `failures` times, then delivers."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures, self.error, self.delivered = failures, error, []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        if self.failures:
            self.failures -= 1
            raise self.error
        self.delivered.append((sender, recipient, raw))

    async def rest(self) -> None:
        pass


def queue_one(database, raw: bytes, raw_without_secret: bytes | None = None):
    """`database` with one mail to alice due now."""
    with database.transaction() as session:
        session.add(
            OutboxMessage(
                recipient="alice@example.org",
                message_id="<1@pbm>",
                raw=raw,
                raw_without_secret=raw_without_secret,
                next_attempt_at=NOW,
                created_at=NOW,
            )
        )
    return database


@pytest.fixture
def queued(database):
    return queue_one(database, b"Subject: hi\n\nhello\n")


def row(database) -> OutboxMessage:
    with database.reading() as session:
        return session.scalar(select(OutboxMessage))


def deliver(database, transport, at: datetime) -> int:
    return asyncio.run(Delivery(database, transport, "pbm@localhost", now=lambda: at).deliver_due())


def test_a_mail_is_handed_over_once_and_marked_sent(queued):
    transport = FlakyTransport(0, OSError())
    assert deliver(queued, transport, NOW) == 1
    assert transport.delivered == [("pbm@localhost", "alice@example.org", b"Subject: hi\n\nhello\n")]
    assert row(queued).status == "sent"
    assert deliver(queued, transport, NOW + timedelta(hours=1)) == 0


def test_a_temporary_failure_is_retried_later_with_growing_waits(queued):
    transport = FlakyTransport(2, ConnectionRefusedError("relay down"))
    assert deliver(queued, transport, NOW) == 0
    first = row(queued)
    assert (first.status, first.attempts, first.next_attempt_at) == ("pending", 1, NOW + timedelta(minutes=1))
    assert "relay down" in first.last_error
    assert deliver(queued, transport, NOW + timedelta(seconds=30)) == 0  # not due yet
    assert row(queued).attempts == 1
    assert deliver(queued, transport, NOW + timedelta(minutes=1)) == 0
    assert row(queued).next_attempt_at == NOW + timedelta(minutes=3)
    assert deliver(queued, transport, NOW + timedelta(minutes=3)) == 1
    assert row(queued).status == "sent"


def test_the_first_wait_can_be_set_and_the_later_ones_double_from_it(queued):
    at = NOW
    transport = FlakyTransport(2, OSError("down"))
    retrying = Delivery(queued, transport, "pbm@localhost", now=lambda: at, first_retry=timedelta(seconds=5))
    asyncio.run(retrying.deliver_due())
    assert row(queued).next_attempt_at == NOW + timedelta(seconds=5)
    at = NOW + timedelta(seconds=5)
    asyncio.run(retrying.deliver_due())
    assert row(queued).next_attempt_at == NOW + timedelta(seconds=15)
    assert [retry_delay(n, timedelta(seconds=5)) for n in (1, 2, 3, 16)] == [
        timedelta(seconds=5),
        timedelta(seconds=10),
        timedelta(seconds=20),
        None,
    ]


def test_delivery_rests_until_the_soonest_retry_falls_due(queued):
    at = NOW
    delivery = Delivery(queued, FlakyTransport(1, OSError("down")), "pbm@localhost", now=lambda: at)
    asyncio.run(delivery.deliver_due())  # failed: due again a minute later
    at = NOW + timedelta(seconds=20)
    assert delivery.seconds_until_due(longest=300) == 40
    assert delivery.seconds_until_due(longest=30) == 30  # another worker's new replies are looked for by then


def test_delivery_rests_the_longest_when_nothing_waits(queued):
    delivery = Delivery(queued, FlakyTransport(0, OSError()), "pbm@localhost", now=lambda: NOW)
    asyncio.run(delivery.deliver_due())
    assert row(queued).status == "sent"
    assert delivery.seconds_until_due(longest=30) == 30


def test_delivery_looks_again_within_a_second_at_a_row_due_already(queued):
    # A row due but not taken when delivery looked: another worker's claim had it locked then.
    delivery = Delivery(queued, FlakyTransport(0, OSError()), "pbm@localhost", now=lambda: NOW + timedelta(hours=1))
    assert 0 < delivery.seconds_until_due(longest=30) < 1


def test_a_refusal_fails_the_mail_for_good_and_keeps_the_reason(queued):
    deliver(queued, FlakyTransport(1, PermanentFailure("550 5.1.1 no such user")), NOW)
    failed = row(queued)
    assert (failed.status, failed.last_error) == ("failed", "550 5.1.1 no such user")


@pytest.fixture
def secret(database):
    """A queued mail that carries a secret, and its copy without it."""
    return queue_one(database, b"Reply-To: <pbm+reset-1234@pbm>\n\nreply\n", b"Reply-To: <pbm+removed@pbm>\n\nreply\n")


def test_a_mail_that_carries_a_secret_is_sent_whole_and_kept_without_it(secret):
    transport = FlakyTransport(0, OSError())
    deliver(secret, transport, NOW)
    assert transport.delivered == [("pbm@localhost", "alice@example.org", b"Reply-To: <pbm+reset-1234@pbm>\n\nreply\n")]
    assert (row(secret).raw, row(secret).raw_without_secret) == (b"Reply-To: <pbm+removed@pbm>\n\nreply\n", None)


def test_a_mail_that_carries_a_secret_keeps_it_for_its_retries_and_not_once_it_fails_for_good(secret):
    deliver(secret, FlakyTransport(1, ConnectionRefusedError("relay down")), NOW)
    assert b"reset-1234" in row(secret).raw
    deliver(secret, FlakyTransport(1, PermanentFailure("550 5.1.1 no such user")), NOW + timedelta(hours=1))
    assert (row(secret).status, row(secret).raw) == ("failed", b"Reply-To: <pbm+removed@pbm>\n\nreply\n")


def test_a_failure_is_logged_without_the_full_address(queued, caplog):
    deliver(queued, FlakyTransport(1, ConnectionRefusedError("alice@example.org: relay down")), NOW)
    refusal = PermanentFailure("550 5.1.1 <alice@example.org>: no such user")
    deliver(queued, FlakyTransport(1, refusal), NOW + timedelta(minutes=1))
    logged = [record.getMessage() for record in caplog.records]
    assert len(logged) == 2
    assert all("a***@example.org" in line and "alice@example.org" not in line for line in logged)


def test_retrying_gives_up_after_about_two_days():
    waits = [retry_delay(attempt) for attempt in range(1, 20)]
    assert waits[:4] == [timedelta(minutes=m) for m in (1, 2, 4, 8)]
    assert max(w for w in waits if w) == timedelta(hours=6)
    total = sum((w for w in waits if w), timedelta())
    assert timedelta(days=1) < total < timedelta(days=3)
    assert waits.index(None) == 15


def test_the_maildir_transport_writes_a_complete_file(queued, tmp_path):
    deliver(queued, MaildirTransport(tmp_path / "outbox"), NOW)
    (message,) = mailbox.Maildir(tmp_path / "outbox").values()
    assert message["Subject"] == "hi"


def test_a_mail_handed_to_the_maildir_again_after_a_crash_is_there_once(tmp_path):
    """A worker killed between handing a mail over and recording it hands it over again."""
    transport = MaildirTransport(tmp_path / "outbox")
    raw = b"From: pbm@localhost\nTo: alice@example.org\nSubject: hi\nMessage-ID: <once@pbm>\n\nboard\n"
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", raw))
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", raw))
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", raw.replace(b"once", b"twice")))
    delivered = sorted(m["Message-ID"] for m in mailbox.Maildir(tmp_path / "outbox").values())
    assert delivered == ["<once@pbm>", "<twice@pbm>"]
    assert list((tmp_path / "outbox" / "tmp").iterdir()) == []


def test_a_mail_in_the_maildir_is_on_disk_name_and_all_before_it_counts_as_handed_over(tmp_path, monkeypatch):
    """The file's bytes are synced, then the folder it is linked into: a power cut after the
    mail is recorded as sent cannot take it back."""
    synced_folders = []
    fsync = os.fsync

    def recording_fsync(descriptor: int) -> None:
        synced_folders.append(stat.S_ISDIR(os.fstat(descriptor).st_mode))
        fsync(descriptor)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    raw = b"From: pbm@localhost\nTo: alice@example.org\nSubject: hi\nMessage-ID: <synced@pbm>\n\nboard\n"
    asyncio.run(MaildirTransport(tmp_path / "outbox").send("pbm@localhost", "alice@example.org", raw))
    assert synced_folders == [False, True], "the mail's file, then the folder that names it"


def test_the_maildir_transport_makes_its_folders_parents_too(queued, tmp_path):
    """The default maildir:var/outbox, where nothing has made var/ yet (PostgreSQL, PBM_SECRET_KEY set)."""
    assert deliver(queued, MaildirTransport(tmp_path / "var" / "outbox"), NOW) == 1
    assert len(mailbox.Maildir(tmp_path / "var" / "outbox")) == 1


def test_a_maildir_moved_away_while_serving_is_made_again(tmp_path):
    transport = MaildirTransport(tmp_path / "outbox")
    first = b"From: pbm@localhost\nTo: alice@example.org\nSubject: hi\nMessage-ID: <first@pbm>\n\nboard\n"
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", first))
    (tmp_path / "outbox").rename(tmp_path / "read")
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", first.replace(b"first", b"second")))
    assert [m["Message-ID"] for m in mailbox.Maildir(tmp_path / "read").values()] == ["<first@pbm>"]
    assert [m["Message-ID"] for m in mailbox.Maildir(tmp_path / "outbox").values()] == ["<second@pbm>"]


def test_a_maildir_whose_new_folder_went_missing_is_made_whole_again(tmp_path):
    transport = MaildirTransport(tmp_path / "outbox")
    raw = b"From: pbm@localhost\nTo: alice@example.org\nSubject: hi\nMessage-ID: <again@pbm>\n\nboard\n"
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", raw))
    for mail in (tmp_path / "outbox" / "new").iterdir():
        mail.unlink()
    (tmp_path / "outbox" / "new").rmdir()
    asyncio.run(transport.send("pbm@localhost", "alice@example.org", raw.replace(b"again", b"later")))
    assert [m["Message-ID"] for m in mailbox.Maildir(tmp_path / "outbox").values()] == ["<later@pbm>"]
    assert list((tmp_path / "outbox" / "tmp").iterdir()) == []


def test_a_maildir_that_cannot_be_written_is_a_configuration_error_naming_pbm_outbound(tmp_path):
    (tmp_path / "var").write_text("a file where the folder should be")
    with pytest.raises(ConfigError, match="PBM_OUTBOUND"):
        asyncio.run(MaildirTransport(tmp_path / "var" / "outbox").check())


def test_a_relay_that_does_not_answer_at_start_is_only_a_warning(caplog):
    asyncio.run(SmtpTransport("127.0.0.1", free_port()).check())
    (warning,) = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "PBM_OUTBOUND" in warning.getMessage()


# -- leases: a worker holds the rows it sends, and only while it lives ----------

HANGING_WORKER = """
import asyncio, sys
from pbm.mail.delivery import Delivery
from pbm.store.database import Database

class Hanging:
    async def send(self, sender, recipient, raw):
        print("sending", flush=True)
        await asyncio.Event().wait()

    async def rest(self):
        pass

asyncio.run(Delivery(Database(sys.argv[1]), Hanging(), "pbm@localhost").deliver_due())
"""


def queue(database, count: int) -> None:
    with database.transaction() as session:
        for number in range(count):
            session.add(OutboxMessage(recipient=f"p{number}@example.org", message_id=f"<{number}@pbm>", raw=b"x"))


def test_the_rows_of_a_killed_worker_on_this_host_are_sent_at_once(database_url, database):
    """Its lease would hold them another 15 s; a worker that sees the process is gone need not wait."""
    queue(database, 3)
    worker = subprocess.Popen([sys.executable, "-c", HANGING_WORKER, database_url], stdout=subprocess.PIPE)
    try:
        assert worker.stdout.readline() == b"sending\n"
    finally:
        worker.kill()
        worker.wait(10)
    transport = FlakyTransport(0, OSError())
    assert asyncio.run(Delivery(database, transport, "pbm@localhost").deliver_due()) == 3
    assert {recipient for _, recipient, _ in transport.delivered} == {f"p{n}@example.org" for n in range(3)}


def lease_to(database, holder: str, until: datetime) -> None:
    with database.transaction() as session:
        outbox.claim_due(session, utcnow(), until, holder)


def test_a_lease_held_on_another_host_is_waited_out(database):
    """This worker cannot see whether a process elsewhere lives: the lease ends by itself."""
    queue(database, 1)
    lapses = utcnow() + timedelta(seconds=15)
    lease_to(database, "elsewhere.example:4242:0123abcd", lapses)
    transport = FlakyTransport(0, OSError())
    assert asyncio.run(Delivery(database, transport, "pbm@localhost").deliver_due()) == 0
    at_lapse = Delivery(database, transport, "pbm@localhost", now=lambda: lapses)
    assert asyncio.run(at_lapse.deliver_due()) == 1


@pytest.mark.parametrize("pid", ["this process's", "no process's here"])
def test_a_lease_held_in_another_pid_namespace_of_this_host_is_waited_out(database, pid):
    """A container sharing the host's name cannot see this process, nor this one its processes."""
    queue(database, 1)
    namespace = os.stat("/proc/self/ns/pid").st_ino
    here = claim_on_this_host(os.getpid())
    assert here.startswith(f"{socket.gethostname()}~{namespace}:"), "a worker's name says which processes it can see"
    holder_pid = os.getpid() if pid == "this process's" else 999999999
    in_another_namespace = f"{socket.gethostname()}~{namespace + 1}:{holder_pid}:00000000"
    lease_to(database, in_another_namespace, utcnow() + timedelta(seconds=15))
    transport = FlakyTransport(0, OSError())
    assert asyncio.run(Delivery(database, transport, "pbm@localhost").deliver_due()) == 0


def an_earlier_process_with_this_pid() -> Worker:
    """A worker this process knows is gone (a container restarts its server with the same pid)."""
    return Worker(claim_on_this_host(os.getpid()))


def test_a_lease_of_an_earlier_process_with_this_pid_is_ended_at_once(database):
    queue(database, 1)
    lease_to(database, an_earlier_process_with_this_pid().name, utcnow() + timedelta(seconds=15))
    transport = FlakyTransport(0, OSError())
    assert asyncio.run(Delivery(database, transport, "pbm@localhost").deliver_due()) == 1


def test_a_retry_is_not_made_early_because_the_worker_that_failed_is_gone(queued):
    """The failed attempt ends the lease: the backoff holds, whoever is still alive."""
    dead = an_earlier_process_with_this_pid()
    transport = FlakyTransport(1, ConnectionRefusedError("relay down"))
    assert asyncio.run(Delivery(queued, transport, "pbm@localhost", now=lambda: NOW, worker=dead).deliver_due()) == 0
    assert row(queued).held_by is None
    assert deliver(queued, transport, NOW + timedelta(seconds=30)) == 0
    assert deliver(queued, transport, NOW + timedelta(minutes=1)) == 1


class SlowTransport:
    def __init__(self, seconds: float) -> None:
        self.seconds, self.delivered, self.sending = seconds, [], asyncio.Event()

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.sending.set()
        await asyncio.sleep(self.seconds)
        self.delivered.append(recipient)

    async def rest(self) -> None:
        pass


def test_a_worker_keeps_its_rows_past_the_lease_while_it_is_still_sending(database):
    queue(database, 4)
    lease = timedelta(seconds=1.5)
    slow, other = SlowTransport(1.0), FlakyTransport(0, OSError())
    sending = Delivery(database, slow, "pbm@localhost", lease=lease)
    polling = Delivery(database, other, "pbm@localhost", lease=lease)

    async def race() -> None:
        batch = asyncio.create_task(sending.deliver_due())
        await slow.sending.wait()
        while not batch.done():  # another worker looks again and again while the batch takes 4 leases' worth
            await polling.deliver_due()
            await asyncio.sleep(0.2)
        await batch

    asyncio.run(race())
    assert len(slow.delivered) == 4 and other.delivered == []


# -- a relay: one connection for a burst ------------------------------------------


class CountingRelay:
    """An SMTP relay on loopback that keeps what it is given and the connection each came on;
    it hangs up after the mails numbered in `hang_up_after` (counting from 1)."""

    def __init__(self, hang_up_after: tuple[int, ...] = ()) -> None:
        self.received: list[tuple[int, bytes]] = []
        self.hang_up_after = hang_up_after

    async def handle_DATA(self, server, session, envelope) -> str:
        self.received.append((id(session), envelope.content))
        if len(self.received) in self.hang_up_after:
            asyncio.get_running_loop().call_later(0.05, server.transport.close)
        return "250 OK"

    @property
    def connections(self) -> int:
        return len({connection for connection, _ in self.received})


@pytest.fixture
def relay():
    from aiosmtpd.controller import Controller

    def start(**options):
        handler = CountingRelay(**options)
        controller = Controller(handler, hostname="127.0.0.1", port=free_port())
        controller.start()
        started.append(controller)
        return handler, SmtpTransport("127.0.0.1", controller.port, timeout=10)

    started = []
    yield start
    for controller in started:
        controller.stop()


def test_a_burst_of_replies_goes_to_the_relay_on_one_connection_closed_after(database, relay):
    handler, transport = relay()
    queue(database, 12)
    assert deliver(database, transport, utcnow()) == 12
    assert len(handler.received) == 12 and handler.connections == 1
    assert transport._connection is None, "nothing is due: the connection is closed, not left to time out"
    with database.reading() as session:
        assert {r.status for r in session.scalars(select(OutboxMessage))} == {"sent"}


def test_a_connection_the_relay_hung_up_on_is_replaced_and_no_mail_is_lost_or_doubled(relay):
    handler, transport = relay(hang_up_after=(2, 3))

    async def send_with_pauses() -> None:
        for number in range(5):
            await transport.send("pbm@localhost", "alice@example.org", f"Subject: {number}\n\nx\n".encode())
            await asyncio.sleep(0.3)  # long enough for the relay to hang up, as on its idle timeout
        await transport.rest()

    asyncio.run(send_with_pauses())
    assert [raw.splitlines()[0] for _, raw in handler.received] == [f"Subject: {n}".encode() for n in range(5)]
    assert handler.connections == 3
