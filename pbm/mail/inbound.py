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

from pbm.addresses import masked_address
from pbm.health.metrics import Metrics
from pbm.i18n.text import one_line
from pbm.listeners import Refusals
from pbm.mail.tokens import Addressing
from pbm.store.database import Database
from pbm.store.inbox import Received, Stored, save_received
from pbm.store.models import InboundStatus

log = logging.getLogger(__name__)

AIOSMTPD_LOGGER = "mail.log"


MAX_RECIPIENTS = 100
"""Recipients one mail may have (RFC 5321 asks servers to take at least 100): the server's own
address in its forms, which a relaying MTA may put in one mail."""
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
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:  # each one taken is a step of the mail (`BoundedSMTP`)
            return f"452 4.5.3 At most {MAX_RECIPIENTS} recipients a mail; send the rest in another"
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


TRANSACTION = frozenset({"MAIL", "RCPT", "DATA"})
"""The commands that carry a mail; every other one (EHLO, NOOP, RSET, VRFY...) is talk around it."""


class BoundedSMTP(SMTP):
    """aiosmtpd's session, which no client holds for long without sending mail.

    aiosmtpd restarts its idle clock at every command it knows: 100 sessions
    from five addresses, each sending NOOP every 20 s, held every place of the
    listener for as long as they liked, and a sixth sender got 421. Here:

    - the idle clock (`timeout`) restarts only at a step of a mail (a MAIL or
      RCPT taken, DATA begun and ended), never at NOOP, RSET, EHLO...;
    - commands that carry no mail have a budget (`commands_without_mail`),
      filled again when a mail's DATA ends; past it, 421 and the end;
    - a session ends after `lifetime` seconds whatever it does (after the
      command under way, so no mail is cut in two), with 421: the sending
      MTA opens another when it has more to send.
    """

    def __init__(self, *args: Any, lifetime: float, commands_without_mail: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lifetime = lifetime
        self.commands_without_mail = commands_without_mail
        self._commands_left = commands_without_mail
        self._in_command = False
        self._lifetime_over = False
        self._end: asyncio.TimerHandle | None = None
        self._smtp_methods = {name: self._bounded(name, method) for name, method in self._smtp_methods.items()}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._end = self.loop.call_later(self.lifetime, self._at_lifetime)

    def connection_lost(self, error: Exception | None) -> None:
        if self._end is not None:
            self._end.cancel()
        super().connection_lost(error)

    def _reset_timeout(self, duration: float | None = None) -> None:
        # aiosmtpd calls this when the connection opens and before every command it knows, NOOP
        # included: only the first call starts the clock; a step of a mail restarts it (`_progress`)
        if self._timeout_handle is None:
            super()._reset_timeout(duration)

    def _progress(self) -> None:
        SMTP._reset_timeout(self)

    def _bounded(self, name: str, method: Callable[[str], Any]) -> Callable[[str], Any]:
        async def run(arg: str) -> None:
            if name not in TRANSACTION:
                if self._commands_left <= 0:
                    self._goodbye("Too many commands without a mail")
                    return
                self._commands_left -= 1
            before = self._steps()
            if name == "DATA" and before[2]:
                self._progress()  # the mail's lines have the idle time to come
            self._in_command = True
            try:
                await method(arg)
            finally:
                self._in_command = False
            after = self._steps()
            if name == "DATA" and after[0] is not before[0]:  # the mail ended: the next has its own budget
                self._commands_left = self.commands_without_mail
                self._progress()
            elif name in TRANSACTION and after[1:] > before[1:]:  # a sender or a recipient taken
                self._progress()
            if self._lifetime_over:
                self._goodbye("Session too long")

        return run

    def _steps(self) -> tuple[Envelope | None, bool, int]:
        """How far the mail under way has come: its envelope, whether it has a sender, its recipients."""
        envelope = self.envelope
        if envelope is None:
            return None, False, 0
        return envelope, envelope.mail_from is not None, len(envelope.rcpt_tos)

    def _at_lifetime(self) -> None:
        self._lifetime_over = True
        if not self._in_command:
            self._goodbye("Session too long")

    def _goodbye(self, reason: str) -> None:
        """421 and close: the sending MTA tries again in a new session."""
        transport = self.transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(f"421 4.7.0 {self.hostname} {reason}; closing\r\n".encode())
            transport.close()


def smtp_factory(
    handler: InboundHandler,
    *,
    hostname: str,
    max_size: int,
    idle_seconds: float,
    lifetime: float = 600.0,
    commands_without_mail: int = 20,
) -> Callable[[], Any]:
    """The protocol factory for `loop.create_server`: our handler, SMTPUTF8, a size limit, and
    sessions bounded in time and in talk (`BoundedSMTP`)."""
    logging.getLogger(AIOSMTPD_LOGGER).setLevel(logging.WARNING)

    def make() -> SMTP:
        return BoundedSMTP(
            handler,
            hostname=hostname,
            ident="pbm",
            data_size_limit=max_size,
            enable_SMTPUTF8=True,
            decode_data=False,
            timeout=idle_seconds,
            lifetime=lifetime,
            commands_without_mail=commands_without_mail,
        )

    return make


def smtp_refusals(hostname: str) -> Refusals:
    """What the SMTP listener says to a connection past its caps (`pbm.listeners`): 421, which
    a sending MTA takes as "try again later"."""
    return Refusals(
        client_full=f"421 4.7.0 {hostname} Too many connections from your address; try again later\r\n".encode(),
        listener_full=f"421 4.3.2 {hostname} Too many connections just now; try again later\r\n".encode(),
    )
