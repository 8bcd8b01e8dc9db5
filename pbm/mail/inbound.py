"""The SMTP listener: accept mail for the server's address, store it, say 250.

It accepts mail only for the server's own address and its ``+token`` forms
(anything else is refused at RCPT: we are no relay), up to the size limit.
The 250 after DATA is sent only once the raw message is committed to the
database; if that fails, or the database does not answer within its timeout,
we answer 451 and the sender's MTA tries again later. Mails that arrive
together are committed together (`GroupCommit`). Processing happens
afterwards, in the worker, which this handler wakes.

The log gets one line per received mail, with the sender's address masked:
envelope addresses are personal, and a ``+token`` recipient is a credential
(it moves for a player without a password). aiosmtpd's own logger writes
every envelope address at INFO, so it is kept to warnings.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm.listeners import Refusals
from pbm.mail.headers import masked_address
from pbm.mail.tokens import Addressing
from pbm.metrics import Metrics
from pbm.store.database import Database
from pbm.store.inbox import Received, Stored, save_received
from pbm.store.models import InboundStatus
from pbm.text import one_line

log = logging.getLogger(__name__)

AIOSMTPD_LOGGER = "mail.log"


MAX_GROUP = 64
"""Most mails stored in one transaction."""


class GroupCommit:
    """Stores received mail in groups: the mails that arrive while one group is being committed
    wait together for the next. A burst of mail costs one commit (one wait for the disk) per
    group, not one per mail, and a mail that arrives alone is stored at once.

    Each mail's sender waits for its own group's commit, and is told 451 if that fails; a
    mail whose own row cannot be written fails alone (`pbm.store.inbox.save_received`).
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self._waiting: list[tuple[Received, asyncio.Future[Stored]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def store(self, mail: Received) -> Stored:
        """Store `mail` durably; returns its row once it is committed."""
        stored: asyncio.Future[Stored] = asyncio.get_running_loop().create_future()
        self._waiting.append((mail, stored))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_all(), name="storing received mail")
        return await stored

    async def _write_all(self) -> None:
        try:
            while self._waiting:
                group, self._waiting = self._waiting[:MAX_GROUP], self._waiting[MAX_GROUP:]
                mails = [mail for mail, _ in group]
                try:
                    outcomes = await self.database.call(functools.partial(save_received, self.database, mails))
                except Exception as error:
                    outcomes = [error] * len(group)
                for (_, stored), outcome in zip(group, outcomes):
                    if stored.done():
                        continue  # the client went away meanwhile
                    if isinstance(outcome, Exception):
                        stored.set_exception(outcome)
                    else:
                        stored.set_result(outcome)
        finally:
            self._writer = None


class InboundHandler:
    def __init__(
        self,
        database: Database,
        addressing: Addressing,
        on_stored: Callable[[], None],
        metrics: Metrics | None = None,
    ) -> None:
        self.database = database
        self.metrics = metrics or Metrics()
        self.addressing = addressing
        self.on_stored = on_stored
        self.storing = GroupCommit(database)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if not self.addressing.accepts(address):
            self.metrics.mails_refused.labels("not_ours").inc()
            return f"550 5.1.1 <{address}>: this server takes mail only for {self.addressing.address}"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        peer = session.peer[0] if isinstance(session.peer, tuple) else str(session.peer or "")
        sender = envelope.mail_from or ""
        try:
            row = await self.storing.store(Received(raw, sender, list(envelope.rcpt_tos), peer))
        except Exception as error:
            log.warning(
                "answered 451 to a mail from %s: it could not be stored: %s: %s",
                masked_address(sender),
                type(error).__name__,
                one_line(str(error), limit=200),
            )
            self.metrics.mails_refused.labels("not_stored").inc()
            return "451 4.3.0 The message could not be stored just now; please try again later"
        self.metrics.mails_received.inc()
        if row.status == InboundStatus.DUPLICATE:
            self.metrics.mails_done.labels(str(InboundStatus.DUPLICATE)).inc()
        log.info("stored inbound message %s (%s) from %s", row.id, row.status, masked_address(sender))
        self.on_stored()
        return "250 2.0.0 Message accepted"


def smtp_factory(handler: InboundHandler, *, hostname: str, max_size: int, idle_seconds: float) -> Callable[[], Any]:
    """The protocol factory for `loop.create_server`: our handler, SMTPUTF8, a size limit, and
    sessions closed after `idle_seconds` without a command."""
    logging.getLogger(AIOSMTPD_LOGGER).setLevel(logging.WARNING)

    def make() -> SMTP:
        return SMTP(
            handler,
            hostname=hostname,
            ident="pbm",
            data_size_limit=max_size,
            enable_SMTPUTF8=True,
            decode_data=False,
            timeout=idle_seconds,
        )

    return make


def smtp_refusals(hostname: str) -> Refusals:
    """What the SMTP listener says to a connection past its caps (`pbm.listeners`): 421, which
    a sending MTA takes as "try again later"."""
    return Refusals(
        client_full=f"421 4.7.0 {hostname} Too many connections from your address; try again later\r\n".encode(),
        listener_full=f"421 4.3.2 {hostname} Too many connections just now; try again later\r\n".encode(),
    )
