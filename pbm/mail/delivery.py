"""Delivering the outbox: to a maildir folder, or to an SMTP relay.

Failures are retried with exponential backoff (1 min, 2, 4, ... capped at 6
hours) for about two days; a relay that refuses a mail outright (5xx) fails it
at once. A failed mail stays in the outbox with its error, for the operator to
see (``pbm outbox``, ``/healthz``) — never dropped silently.

Delivery is at least once: a server killed between handing a mail over and
recording it may hand it over again after the restart (the Message-ID lets a
mail client drop the copy).
"""

from __future__ import annotations

import asyncio
import logging
import mailbox
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

import aiosmtplib

from pbm.config import Outbound
from pbm.store import outbox
from pbm.store.database import Database
from pbm.store.models import utcnow

log = logging.getLogger(__name__)

FIRST_RETRY = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=6)
GIVE_UP_AFTER = 16  # attempts: about two days of retrying


class PermanentFailure(Exception):
    """The mail can never be delivered as it is (e.g. the relay refused the recipient)."""


class Transport(Protocol):
    async def send(self, sender: str, recipient: str, raw: bytes) -> None: ...


@dataclass(frozen=True)
class MaildirTransport:
    """Writes each mail into ``<path>/new`` (Maildir format, safe against partial files)."""

    path: Path

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        await asyncio.to_thread(self._add, raw)

    def _add(self, raw: bytes) -> None:
        mailbox.Maildir(self.path, create=True).add(raw)


@dataclass(frozen=True)
class SmtpTransport:
    host: str
    port: int
    timeout: float = 60.0

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        try:
            await aiosmtplib.send(
                raw,
                sender=sender,
                recipients=[recipient],
                hostname=self.host,
                port=self.port,
                timeout=self.timeout,
                start_tls=False,
            )
        except aiosmtplib.SMTPResponseException as error:
            if 500 <= error.code < 600:
                raise PermanentFailure(f"{error.code} {error.message}") from error
            raise
        except aiosmtplib.SMTPRecipientsRefused as error:
            if all(refusal.code >= 500 for refusal in error.recipients):
                raise PermanentFailure(str(error)) from error
            raise


def transport_for(outbound: Outbound) -> Transport:
    if outbound.kind == "maildir":
        assert outbound.path is not None
        return MaildirTransport(outbound.path)
    assert outbound.host is not None and outbound.port is not None
    return SmtpTransport(outbound.host, outbound.port)


def retry_delay(attempts: int) -> timedelta | None:
    """How long to wait after `attempts` failed attempts; ``None`` means give up."""
    if attempts >= GIVE_UP_AFTER:
        return None
    return min(FIRST_RETRY * 2 ** (attempts - 1), LONGEST_WAIT)


class Delivery:
    def __init__(
        self,
        database: Database,
        transport: Transport,
        sender: str,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.database = database
        self.transport = transport
        self.sender = sender
        self.now = now

    async def deliver_due(self) -> int:
        """Hand every due mail to the transport; returns how many went out."""
        sent = 0
        while True:
            batch = await asyncio.to_thread(self._claim)
            if not batch:
                return sent
            for message_id, recipient, raw, attempts in batch:
                try:
                    await self.transport.send(self.sender, recipient, raw)
                except PermanentFailure as error:
                    log.warning("outbox %s to %s failed for good: %s", message_id, recipient, error)
                    await asyncio.to_thread(self._failed, message_id, str(error), None)
                except Exception as error:  # network, disk: try again later
                    delay = retry_delay(attempts + 1)
                    retry_at = self.now() + delay if delay is not None else None
                    log.warning(
                        "outbox %s to %s: attempt %d failed: %s", message_id, recipient, attempts + 1, error
                    )
                    await asyncio.to_thread(
                        self._failed, message_id, f"{type(error).__name__}: {error}", retry_at
                    )
                else:
                    await asyncio.to_thread(self._sent, message_id)
                    sent += 1

    def _claim(self) -> list[tuple[int, str, bytes, int]]:
        with self.database.transaction() as session:
            rows = outbox.claim_due(session, self.now())
            return [(row.id, row.recipient, row.raw, row.attempts) for row in rows]

    def _sent(self, message_id: int) -> None:
        with self.database.transaction() as session:
            outbox.mark_sent(session, message_id, self.now())

    def _failed(self, message_id: int, error: str, retry_at: datetime | None) -> None:
        with self.database.transaction() as session:
            outbox.mark_failed_attempt(session, message_id, error, retry_at)
