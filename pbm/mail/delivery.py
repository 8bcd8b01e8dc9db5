"""Delivering the outbox: to a maildir folder, or to an SMTP relay.

Failures are retried with exponential backoff (1 min, 2, 4, ... capped at 6
hours; the first wait is ``PBM_FIRST_RETRY_SECONDS``) for 16 attempts, about two
days; a relay that refuses a mail outright (5xx) fails it at once. A failed mail
stays in the outbox with its error, for the operator to see (``pbm outbox``,
``/healthz``) — never dropped silently.

Delivery to a maildir is exactly once: a mail handed over again after a
crash finds its file there already; and it is on disk, name and all, before
it is recorded as sent. Delivery to a relay is at least once: a
server killed between handing a mail over and recording it may hand it over
again after the restart (the Message-ID lets a mail client drop the copy).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import NamedTuple, Protocol

import aiosmtplib
from sqlalchemy.orm import Session

from pbm.addresses import masked_address
from pbm.config import ConfigError, Outbound
from pbm.health.metrics import Metrics
from pbm.mail.worker import Worker
from pbm.store import outbox
from pbm.store.database import Database
from pbm.store.models import utcnow

log = logging.getLogger(__name__)

FIRST_RETRY = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=6)
GIVE_UP_AFTER = 16  # attempts: about two days of retrying
SOONEST_LOOK_SECONDS = 0.2
"""The least rest between looks at the outbox, when a due row was held by another worker's claim."""
CLAIM_LIMIT = 20
"""Rows claimed at once."""
RELAY_CHECK_SECONDS = 5.0
RECORD_SENT_EVERY = 0.05
"""Seconds of handing mail over that are recorded together, in one transaction. A worker killed
before recording them hands those mails over again after the restart: into a maildir that
changes nothing; a relay may deliver a second copy, as it may of the last mail in any case."""


class PermanentFailure(Exception):
    """The mail can never be delivered as it is (e.g. the relay refused the recipient)."""


class TransportUnavailable(Exception):
    """No mail can go just now, through no fault of the mail in hand (a provider unreachable, its
    login refused): the outbox waits, and no attempt is counted against any mail."""


FIRST_UNAVAILABLE_WAIT = 5.0
LONGEST_UNAVAILABLE_WAIT = 300.0
"""While the transport is unavailable the outbox waits, doubling from the first wait up to this."""
DAY = timedelta(days=1)


class Transport(Protocol):
    async def send(self, sender: str, recipient: str, raw: bytes) -> None: ...

    async def check(self) -> None:
        """At start: raise `ConfigError` if no mail can ever go this way; log a
        warning if it cannot just now (replies wait in the outbox meanwhile)."""
        ...

    async def rest(self) -> None:
        """Nothing more is due for now: let go of what sending held open (a relay's connection)."""
        ...


@dataclass(frozen=True)
class MaildirTransport:
    """Writes each mail into ``<path>/new`` (Maildir format, safe against partial files).

    The folders are made when a mail finds them missing, parents too: the
    default ``var/outbox`` has no ``var/`` yet when nothing else put a file
    there, and an operator may move the maildir away while the server runs.
    Making them before every mail cost three system calls a mail, each
    holding the interpreter while processing waited for it.
    """

    path: Path

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        await asyncio.to_thread(self._add, raw)

    async def rest(self) -> None:
        pass  # every mail is a file of its own: nothing is held between them

    async def check(self) -> None:
        try:
            await asyncio.to_thread(self._try_writing)
        except OSError as error:
            raise ConfigError(
                f"PBM_OUTBOUND: replies cannot be written into the maildir {self.path}: {error.strerror or error}"
            ) from None

    def _make_folders(self) -> None:
        for folder in ("tmp", "new", "cur"):
            (self.path / folder).mkdir(mode=0o700, parents=True, exist_ok=True)

    def _add(self, raw: bytes) -> None:
        """Write `raw` into ``new/`` once, however often it is handed over.

        The file is named after the mail's digest, and linked into ``new/`` only
        if no file of that name is there: a server killed between writing a mail
        and recording it as sent writes it again after the restart, and that
        second copy must not reach the mailbox.
        """
        name = f"pbm.{hashlib.sha256(raw).hexdigest()[:40]}"
        try:
            self._place(raw, name)
        except FileNotFoundError:
            self._make_folders()
            self._place(raw, name)

    def _place(self, raw: bytes, name: str) -> None:
        written = self.path / "tmp" / name
        with open(written, "wb") as file:
            file.write(raw)
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(written, self.path / "new" / name)
        except FileExistsError:
            pass  # handed over before, by a worker that died before recording it (and maybe syncing it)
        finally:
            written.unlink(missing_ok=True)
        _sync_folder(self.path / "new")

    def _try_writing(self) -> None:
        self._make_folders()
        with tempfile.NamedTemporaryFile(dir=self.path / "tmp", prefix="pbm-check-"):
            pass


def _sync_folder(folder: Path) -> None:
    """Make `folder`'s entries durable. A file's own fsync keeps its bytes, not its name: until
    the folder is synced, a power cut can take a mail back that was recorded as handed over."""
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


async def send_on(
    client: aiosmtplib.SMTP, sender: str, recipient: str, raw: bytes, *, rest: Callable[[], Awaitable[None]]
) -> None:
    """`raw` handed over on `client`, for a relay and a provider's submission alike: after any
    refusal the connection is let go (`rest`); a 5xx, or every recipient refused for good, is a
    `PermanentFailure` of this mail alone, anything else rises to be retried."""
    try:
        await client.sendmail(sender, [recipient], raw)
    except aiosmtplib.SMTPRecipientsRefused as error:
        await rest()
        if all(refusal.code >= 500 for refusal in error.recipients):
            raise PermanentFailure(str(error)) from error
        raise
    except aiosmtplib.SMTPResponseException as error:
        await rest()
        if 500 <= error.code < 600:
            raise PermanentFailure(f"{error.code} {error.message}") from error
        raise
    except BaseException:
        await rest()
        raise


async def let_go(client: aiosmtplib.SMTP | None) -> None:
    """Close `client` politely if it still answers, and at once if not."""
    if client is None:
        return
    with contextlib.suppress(Exception):
        await client.quit()
    client.close()


@dataclass
class SmtpTransport:
    """Hands mail to a relay, on one connection for as long as mail keeps coming: a burst of
    replies costs one TCP and SMTP greeting, not one each. `rest` closes it when nothing more
    is due, so no connection idles into the relay's timeout; one that did anyway (or that the
    relay dropped) is replaced once, at once. After a refusal the connection is not reused."""

    host: str
    port: int
    timeout: float = 60.0
    _connection: aiosmtplib.SMTP | None = field(default=None, init=False, repr=False, compare=False)

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        if self._connection is not None:
            try:
                await self._send(self._connection, sender, recipient, raw)
                return
            except aiosmtplib.SMTPServerDisconnected:
                pass  # closed while it waited: try a new one
        client = aiosmtplib.SMTP(hostname=self.host, port=self.port, timeout=self.timeout, start_tls=False)
        await client.connect()
        self._connection = client
        await self._send(client, sender, recipient, raw)

    async def _send(self, client: aiosmtplib.SMTP, sender: str, recipient: str, raw: bytes) -> None:
        await send_on(client, sender, recipient, raw, rest=self.rest)

    async def rest(self) -> None:
        client, self._connection = self._connection, None
        await let_go(client)

    async def check(self) -> None:
        # A relay may come up after us (a local MTA starting beside us): that is no reason not to start.
        client = aiosmtplib.SMTP(hostname=self.host, port=self.port, timeout=RELAY_CHECK_SECONDS, start_tls=False)
        try:
            await client.connect()
            await client.quit()
        except (aiosmtplib.SMTPException, OSError) as error:
            log.warning(
                "PBM_OUTBOUND=smtp://%s:%s does not answer just now (%s); replies wait in the outbox until it does",
                self.host,
                self.port,
                error,
            )


def transport_for(outbound: Outbound) -> Transport:
    if outbound.kind == "maildir":
        assert outbound.path is not None
        return MaildirTransport(outbound.path)
    assert outbound.host is not None and outbound.port is not None
    return SmtpTransport(outbound.host, outbound.port)


def retry_delay(attempts: int, first: timedelta = FIRST_RETRY) -> timedelta | None:
    """How long to wait after `attempts` failed attempts, the first wait being `first`;
    ``None`` means give up."""
    if attempts >= GIVE_UP_AFTER:
        return None
    delay: timedelta = first * 2 ** (attempts - 1)
    return min(delay, LONGEST_WAIT)


def _masked(error: Exception, recipient: str) -> str:
    """An error as a log line may show it: a relay's refusal names the recipient in full."""
    return str(error).replace(recipient, masked_address(recipient))


class _Outgoing(NamedTuple):
    id: int
    recipient: str
    raw: bytes
    attempts: int
    queued_at: datetime
    player_id: int | None = None


@dataclass
class _Claim:
    """A batch of outbox rows this worker holds, and until when."""

    messages: list[_Outgoing]
    until: datetime
    held: set[int] = field(default_factory=set)


DAILY_LIMIT = "daily limit"
"""What the reason of every mail the daily cap keeps waiting says (counted for ``/healthz``)."""


class Delivery:
    """Hands due outbox rows to the transport, a leased batch at a time.

    While a batch is being sent its lease is renewed every third of `lease`,
    so a slow relay keeps the rows, and a killed worker's rows fall due again
    within `lease`.
    """

    def __init__(
        self,
        database: Database,
        transport: Transport,
        sender: str,
        *,
        envelope_sender: Callable[[int], str] | None = None,
        now: Callable[[], datetime] = utcnow,
        lease: timedelta = outbox.LEASE,
        first_retry: timedelta = FIRST_RETRY,
        worker: Worker | None = None,
        metrics: Metrics | None = None,
        unseal: Callable[[bytes, str, int | None], bytes] | None = None,
        max_per_day: int | None = None,
    ) -> None:
        self.database = database
        self.unseal = unseal or (lambda raw, recipient, player_id: raw)
        """What a mail is as it is handed over, from the outbox's copy: its sealed tokens made
        genuine (`pbm.mail.tokens.ReplyTokens.unseal`), which the database never holds."""
        self.max_per_day = max_per_day
        """The provider's cap on mails a day (PBM_OUTBOUND_MAX_PER_DAY): at it, mail waits; near
        it (its last tenth), only answers to a player's own mail go; under it, answers go first and
        board mails for players who take digests last (`outbox.claim_due`, `outbox.PRIORITY`)."""
        self._unavailable_wait = 0.0
        self.daily: dict[str, object] = {}
        """The daily limit as last counted (``/healthz``): the limit, the mails sent in the last
        day, and when the first of them is a day old."""
        self.metrics = metrics or Metrics()
        self.worker = worker or Worker.here()
        self.transport = transport
        self.sender = sender
        self.envelope_sender = envelope_sender or (lambda outbox_id: sender)
        """The envelope sender of each outbox row's mail: its bounce address (`pbm.mail.bounces`),
        where bounces say which mail did not arrive."""
        self.now = now
        self.lease = lease
        self.first_retry = first_retry

    async def deliver_due(self) -> int:
        """Hand every due mail to the transport; returns how many went out."""
        await asyncio.to_thread(self._end_dead_leases)
        sent = 0
        while True:
            claim = await asyncio.to_thread(self._claim)
            if not claim.messages:
                await self.transport.rest()
                return sent
            renewing = asyncio.create_task(self._keep(claim))
            unrecorded: list[_Outgoing] = []
            since = 0.0
            try:
                for index, message in enumerate(claim.messages):
                    if message.id not in claim.held:
                        continue  # the lease lapsed and another worker has the row now
                    try:
                        went = await self._deliver(message)
                    except TransportUnavailable as error:
                        await self._put_back(claim, claim.messages[index:], error)
                        return sent
                    if went:
                        since = since if unrecorded else time.monotonic()
                        unrecorded.append(message)
                    if unrecorded and time.monotonic() - since >= RECORD_SENT_EVERY:
                        sent += await self._record_sent(claim, unrecorded)
            finally:
                if unrecorded:
                    sent += await self._record_sent(claim, unrecorded)
                renewing.cancel()
                await asyncio.gather(renewing, return_exceptions=True)

    async def _put_back(self, claim: _Claim, messages: list[_Outgoing], error: TransportUnavailable) -> None:
        """Nothing can go just now: the rest of the claim waits, no attempt counted (the transport
        says why, once: `pbm.mail.doors`)."""
        wait = min(max(2 * self._unavailable_wait, FIRST_UNAVAILABLE_WAIT), LONGEST_UNAVAILABLE_WAIT)
        self._unavailable_wait = wait
        ids = [message.id for message in messages if message.id in claim.held]
        until = self.now() + timedelta(seconds=wait)

        def put_back() -> None:
            with self.database.transaction() as session:
                outbox.put_back(session, ids, until, f"waits: {error}")

        await asyncio.to_thread(put_back)
        claim.held.difference_update(ids)

    def seconds_until_due(self, longest: float) -> float:
        """How long delivery may rest: until the soonest pending mail falls due (a retry, or the
        lapsed lease of a stopped worker), and at most `longest`, by when mail another worker
        queued is found. Resting a fixed time instead would send a retry up to that much late."""
        with self.database.reading() as session:
            due = outbox.next_attempt_at(session)
        if due is None:
            return longest
        return min(max((due - self.now()).total_seconds(), SOONEST_LOOK_SECONDS), longest)

    async def _record_sent(self, claim: _Claim, messages: list[_Outgoing]) -> int:
        """Record `messages` sent, in one transaction; returns how many, and empties the list."""
        message_ids = [message.id for message in messages]
        await asyncio.to_thread(self._sent, message_ids)
        claim.held.difference_update(message_ids)
        now = self.now()
        for message in messages:
            self.metrics.replies.labels("sent").inc()
            self.metrics.delivery_seconds.observe(max(0.0, (now - message.queued_at).total_seconds()))
        count = len(messages)
        messages.clear()
        return count

    async def _deliver(self, message: _Outgoing) -> bool:
        """Hand `message` over; True when it went (to be recorded), False when the failure is recorded."""
        try:
            handed_over = self.unseal(message.raw, message.recipient, message.player_id)
            await self.transport.send(self.envelope_sender(message.id), message.recipient, handed_over)
        except PermanentFailure as error:
            log.warning(
                "outbox %s to %s failed for good: %s",
                message.id,
                masked_address(message.recipient),
                _masked(error, message.recipient),
            )
            await asyncio.to_thread(self._failed, message.id, str(error), None)
            self.metrics.replies.labels("bounced").inc()
            return False
        except TransportUnavailable:
            raise
        except Exception as error:  # network, disk: try again later
            delay = retry_delay(message.attempts + 1, self.first_retry)
            retry_at = self.now() + delay if delay is not None else None
            log.warning(
                "outbox %s to %s: attempt %d failed: %s",
                message.id,
                masked_address(message.recipient),
                message.attempts + 1,
                _masked(error, message.recipient),
            )
            await asyncio.to_thread(self._failed, message.id, f"{type(error).__name__}: {error}", retry_at)
            self.metrics.replies.labels("retried" if retry_at is not None else "failed").inc()
            return False
        self._unavailable_wait = 0.0
        return True

    async def _keep(self, claim: _Claim) -> None:
        """Renew the claim's lease until cancelled (when the batch is done)."""
        while True:
            await asyncio.sleep(self.lease.total_seconds() / 3)
            until = self.now() + self.lease
            try:
                held = await asyncio.to_thread(self._renew, set(claim.held), claim.until, until)
            except Exception as error:  # the rows stay ours until the lease lapses; try again
                log.warning("could not renew the lease on outbox rows being sent: %s", error)
                continue
            claim.held &= held
            claim.until = until

    def _end_dead_leases(self) -> None:
        """Make due now the replies whose worker is known to be gone, rather than wait out its lease."""
        now = self.now()
        with self.database.reading() as session:
            gone = [(i, holder) for i, holder in outbox.leases(session, now) if self.worker.outlived(holder)]
        if gone:
            with self.database.transaction() as session:
                outbox.end_leases(session, [i for i, _ in gone], {holder for _, holder in gone}, now)
            log.info("took over %d reply mail(s) a stopped worker had started sending", len(gone))

    def _claim(self) -> _Claim:
        now = self.now()
        until = now + self.lease
        with self.database.transaction() as session:
            limit, answers_only = self._room(session, now)
            rows = outbox.claim_due(
                session,
                now,
                until,
                self.worker.name,
                limit=limit,
                answers_only=answers_only,
                by_priority=self.max_per_day is not None,
            )
            messages = [
                _Outgoing(row.id, row.recipient, row.raw, row.attempts, row.queued_at or row.created_at, row.player_id)
                for row in rows
            ]
        return _Claim(messages, until, {message.id for message in messages})

    def _room(self, session: Session, now: datetime) -> tuple[int, bool]:
        """How many mails may be claimed now under the daily cap, and whether only answers may.
        Mail the cap keeps waits with its reason, until the day has room again."""
        if self.max_per_day is None:
            return CLAIM_LIMIT, False
        sent, first = outbox.sent_since(session, now - DAY)
        room = self.max_per_day - sent
        until = (first or now) + DAY
        kept_for_answers = max(1, self.max_per_day // 10)
        if room <= 0:
            reason = f"waits: the {DAILY_LIMIT} of {self.max_per_day} mails (PBM_OUTBOUND_MAX_PER_DAY) is reached"
            outbox.defer_due(session, now, until, reason)
            claim = (0, False)
        elif room > kept_for_answers:
            claim = (min(CLAIM_LIMIT, room - kept_for_answers), False)
        else:
            first_go = "answers to a player's own mail go first"
            reason = f"waits: near the {DAILY_LIMIT} ({self.max_per_day} mails), {first_go}"
            outbox.defer_due(session, now, until, reason, but_answers=True)
            claim = (min(CLAIM_LIMIT, room), True)
        self.daily = {
            "limit": self.max_per_day,
            "sent_last_day": sent,
            "room_from": until.isoformat(timespec="seconds"),
            "waiting": outbox.waiting_with(session, now, DAILY_LIMIT),
        }
        return claim

    def _renew(self, message_ids: set[int], held_until: datetime, until: datetime) -> set[int]:
        with self.database.transaction() as session:
            return outbox.renew_lease(session, message_ids, held_until, until)

    def _sent(self, message_ids: list[int]) -> None:
        with self.database.transaction() as session:
            outbox.mark_sent(session, message_ids, self.now())

    def _failed(self, message_id: int, error: str, retry_at: datetime | None) -> None:
        with self.database.transaction() as session:
            outbox.mark_failed_attempt(session, message_id, error, retry_at)
