"""Delivering the outbox: retried with backoff, failed for good only when it must be, never dropped."""

from __future__ import annotations

import asyncio
import mailbox
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from pbm.mail.delivery import Delivery, MaildirTransport, PermanentFailure, retry_delay
from pbm.store.models import OutboxMessage

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


@pytest.fixture
def queued(database):
    with database.transaction() as session:
        session.add(
            OutboxMessage(
                recipient="alice@example.org",
                message_id="<1@pbm>",
                raw=b"Subject: hi\n\nhello\n",
                next_attempt_at=NOW,
                created_at=NOW,
            )
        )
    return database


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


def test_a_refusal_fails_the_mail_for_good_and_keeps_the_reason(queued):
    deliver(queued, FlakyTransport(1, PermanentFailure("550 5.1.1 no such user")), NOW)
    failed = row(queued)
    assert (failed.status, failed.last_error) == ("failed", "550 5.1.1 no such user")


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
