"""Reading the club's mailbox at a provider over IMAP (`PBM_INBOUND`), exactly once.

Each mail in the configured folder (only that one: never Junk) is taken in two steps:

1. it is stored durably in the inbox table, as a mail the SMTP listener accepted is
   (`pbm.store.mailbox.store_fetched`: the same duplicate rules), with its UID;
2. then it is moved to the folder of processed mail (`PROCESSED`, made when missing) by MOVE
   (RFC 6851), or COPY, ``\\Deleted`` and UID EXPUNGE where the server has no MOVE.

A crash between the steps leaves the mail in the folder with its UID recorded: the next reader
moves it without storing it again. A changed UIDVALIDITY forgets the UIDs, and a mail found again
is stored again as a copy the inbox never processes twice. Two readers never read at once: the
mailbox is leased to one worker (`pbm.store.mailbox.take_lease`), renewed every `RENEW_SECONDS`;
another takes over when the lease ends.

New mail is taken within seconds by IMAP IDLE (RFC 2177), which is ended and started again every
`RENEW_SECONDS` (well under the 29 minutes after which servers may drop it), when the lease is
renewed; a server without IDLE is polled as often. A mail larger than ``PBM_MAX_MESSAGE_SIZE`` is
fetched no further than its size and header: its header is stored, and the sender is answered
that it was too large (`pbm.store.inbox.TOO_LARGE_PEER`), as a 552 of the SMTP listener has the
sender's own server answer. Processed mail
older than ``PBM_INBOUND_KEEP_DAYS`` is expunged, so the mailbox never fills.

Connection trouble (the provider down, a dropped connection, a refused password) is retried
after a wait that doubles up to `LONGEST_WAIT`; the log says each change of state once, and
``/healthz`` and the metrics say the state and since when (`DoorHealth`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path

import aioimaplib

from pbm.addresses import masked_address
from pbm.config import Inbound
from pbm.health.metrics import Metrics
from pbm.i18n.text import one_line
from pbm.mail.account import OAUTH2_FAILED, Account, AccountError, oauth2_mechanism, oauth2_response
from pbm.mail.doors import DoorHealth
from pbm.mail.tokens import Addressing
from pbm.mail.worker import Worker
from pbm.store import mailbox as state
from pbm.store.database import Database
from pbm.store.errors import Failure, classify
from pbm.store.inbox import TOO_LARGE_PEER, Received, Stored
from pbm.store.models import InboundStatus, utcnow

log = logging.getLogger(__name__)

PROCESSED = "pbm-processed"
"""The folder processed mail is moved to, and expunged from after PBM_INBOUND_KEEP_DAYS."""
RENEW_SECONDS = 30.0
"""How often the lease is renewed, and IDLE ended and started again (or the folder polled)."""
LEASE = timedelta(seconds=3 * RENEW_SECONDS)
STANDBY_SECONDS = 10.0
"""How often a worker that does not hold the mailbox looks whether it may take it over."""
FIRST_WAIT = 1.0
LONGEST_WAIT = 300.0
"""Waits between attempts to reach the mailbox double from FIRST_WAIT up to this."""
COMMAND_SECONDS = 60.0
"""How long one IMAP command may take (a large fetch included)."""
BATCH = 20
"""Mails fetched, stored and moved together."""
BATCH_SECONDS = 10 * COMMAND_SECONDS
"""The longest a look at the folder may take, every batch in it included."""
EXPUNGE_EVERY = timedelta(hours=1)
HEADER_BYTES = 64 * 1024
KILL_AT = "PBM_TEST_KILL_MAILBOX"
"""For the fault tests only: ``STEP:FILE`` kills this process (SIGKILL) at ``fetched`` (a batch
fetched, not stored) or ``stored`` (stored, not moved), once: when FILE does not exist yet."""


class LoginRefused(Exception):
    """The provider refused the account's secret."""


class MailboxError(Exception):
    """The server answered a command with NO or BAD."""


@dataclass(frozen=True)
class Fetched:
    uid: int
    raw: bytes | None
    """None: over the size limit (only its header was fetched)."""
    size: int
    header: bytes = b""


class MailboxReader:
    """Reads `inbound`'s folder for as long as the server runs (`run`)."""

    def __init__(
        self,
        database: Database,
        inbound: Inbound,
        account: Account,
        addressing: Addressing,
        *,
        on_stored: Callable[[], None],
        max_size: int,
        keep: timedelta,
        worker: Worker | None = None,
        metrics: Metrics | None = None,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.database = database
        self.inbound = inbound
        self.account = account
        self.addressing = addressing
        self.on_stored = on_stored
        self.max_size = max_size
        self.keep = keep
        self.worker = worker or Worker.here()
        self.metrics = metrics or Metrics()
        self.now = now
        self.name = str(inbound)
        self.health = DoorHealth("mailbox " + self.name, now=now)
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._expunged_at: datetime | None = None
        self._uidvalidity = 0

    async def run(self) -> None:
        """Read the mailbox until `stop`; never raises for the provider's sake."""
        failures = 0
        while not self._stopping.is_set():
            if not await self._hold():
                self.health.set("standby", "another worker reads the mailbox")
                await self._rest(STANDBY_SECONDS)
                continue
            try:
                await self._read_while_held()
                failures = 0
            except LoginRefused as error:
                self.health.set("login_refused", str(error))
                failures += 1
            except AccountError as error:
                self.health.set("no_secret", str(error))
                failures += 1
            except (OSError, TimeoutError, aioimaplib.Abort, aioimaplib.Error, MailboxError) as error:
                self.health.set("unreachable", f"{type(error).__name__}: {one_line(str(error), limit=200)}")
                failures += 1
            except Exception as error:  # the database gone mid-batch, or a bug: the mail stays in the mailbox
                if classify(error) is Failure.MAIL:
                    log.exception("%s: reading stopped; it starts again", self.name)
                self.health.set("waiting_for_database", type(error).__name__)
                failures += 1
            if failures:
                await self._rest(min(FIRST_WAIT * 2 ** (failures - 1), LONGEST_WAIT))
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self._let_go)
        self.health.set("stopped")

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    async def _rest(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()
        self._wake.clear()

    async def _hold(self) -> bool:
        try:
            return await asyncio.to_thread(self._take_lease)
        except Exception as error:  # the database: the reader waits for it as the workers do
            self.health.set("waiting_for_database", type(error).__name__)
            return False

    def _take_lease(self) -> bool:
        with self.database.transaction() as session:
            return state.take_lease(
                session, self.name, worker=self.worker.name, now=self.now(), lease=LEASE, gone=self.worker.outlived
            )

    def _let_go(self) -> None:
        with self.database.transaction() as session:
            state.let_go(session, self.name, worker=self.worker.name)

    async def _read_while_held(self) -> None:
        client = await self._connect()
        try:
            await self._prepare(client)
            self.health.set("reading", "IDLE" if client.has_capability("IDLE") else "polling")
            while not self._stopping.is_set():
                # A connection that died without a word (no RST) would hold a command for ever: bounded.
                async with asyncio.timeout(BATCH_SECONDS):
                    await self._take_new(client)
                    await self._expunge_old_if_due(client)
                if not await self._hold():
                    return
                await self._wait_for_news(client)
        finally:
            await _close(client)

    async def _connect(self) -> aioimaplib.IMAP4:
        return await log_in(self.inbound, self.account)

    async def _prepare(self, client: aioimaplib.IMAP4) -> None:
        """Make the folder of processed mail if missing, select ours, and note its UIDVALIDITY."""
        await client.create(PROCESSED)  # NO [ALREADYEXISTS] when it is there: fine
        response = _ok(await client.select(_quoted(self.inbound.folder)), "SELECT")
        uidvalidity = _uidvalidity(response)
        before = await asyncio.to_thread(self._note_uidvalidity, uidvalidity)
        if before is not None:
            log.warning(
                "%s: UIDVALIDITY changed from %s to %s: mail found again is stored again as a copy",
                self.name,
                before,
                uidvalidity,
            )
        self._uidvalidity = uidvalidity

    def _note_uidvalidity(self, uidvalidity: int) -> int | None:
        with self.database.transaction() as session:
            return state.note_uidvalidity(session, self.name, uidvalidity)

    async def _take_new(self, client: aioimaplib.IMAP4) -> None:
        """Store and move every mail in the folder, a batch at a time."""
        while not self._stopping.is_set():
            uids = _numbers(_ok(await client.uid_search("ALL", charset=None), "UID SEARCH"))
            if not uids:
                return
            batch = uids[:BATCH]
            known = await asyncio.to_thread(self._stored_uids, batch)
            new = [uid for uid in batch if uid not in known]
            fetched = await self._fetch(client, new) if new else []
            _kill_here("fetched")
            stored = await asyncio.to_thread(self._store, fetched)
            if stored:
                self.on_stored()
            _kill_here("stored")
            done = sorted(known | {item.uid for item in fetched})
            await self._move(client, done)
            await asyncio.to_thread(self._forget, done)
            if len(uids) <= BATCH and not stored and not known:
                return

    def _stored_uids(self, uids: list[int]) -> set[int]:
        with self.database.reading() as session:
            return state.stored_uids(session, self.name, self._uidvalidity, uids)

    async def _fetch(self, client: aioimaplib.IMAP4, uids: list[int]) -> list[Fetched]:
        sizes = _sizes(_ok(await client.uid("fetch", _set(uids), "(UID RFC822.SIZE)"), "UID FETCH"))
        small = [uid for uid in uids if sizes.get(uid, 0) <= self.max_size]
        large = [uid for uid in uids if sizes.get(uid, 0) > self.max_size]
        fetched = []
        if small:
            bodies = _literals(_ok(await client.uid("fetch", _set(small), "(UID BODY.PEEK[])"), "UID FETCH"))
            fetched += [Fetched(uid, bodies[uid], sizes.get(uid, 0)) for uid in small if uid in bodies]
        if large:
            headers = _literals(_ok(await client.uid("fetch", _set(large), "(UID BODY.PEEK[HEADER])"), "UID FETCH"))
            fetched += [Fetched(uid, None, sizes[uid], headers.get(uid, b"")[:HEADER_BYTES]) for uid in large]
        return fetched

    def _store(self, fetched: list[Fetched]) -> list[Stored]:
        """Store the fetched mails in one transaction; a mail too large is only counted."""
        now = self.now()
        mails = [(item.uid, self._received(item)) for item in fetched]
        for item in fetched:
            if item.raw is None:
                self._too_large(item)
        if not mails:
            return []

        def store(session: object, item: tuple[int, Received]) -> Stored:
            uid, mail = item
            return state.store_fetched(session, self.name, self._uidvalidity, uid, mail, now)  # type: ignore[arg-type]

        outcomes = self.database.write_each(mails, store, urgent=True)
        stored = []
        for outcome in outcomes:
            if isinstance(outcome, Exception):
                raise outcome  # not moved: taken again at the next look
            self.metrics.mails_received.inc()
            if outcome.status == InboundStatus.DUPLICATE:
                self.metrics.mails_done.labels(str(InboundStatus.DUPLICATE)).inc()
            stored.append(outcome)
        log.info("stored %d mail(s) from %s", len(stored), self.name)
        return stored

    def _too_large(self, item: Fetched) -> None:
        sender = _envelope_from(item.header)
        self.metrics.mails_refused.labels("too_large").inc()
        log.warning(
            "%s: a mail of %d bytes from %s is over PBM_MAX_MESSAGE_SIZE (%d): its header stored, to be answered",
            self.name,
            item.size,
            masked_address(sender),
            self.max_size,
        )

    def _received(self, item: Fetched) -> Received:
        """The mail as the SMTP listener would have been handed it: its envelope from its header.
        Of a mail over the size limit, its header alone, marked to be answered as too large."""
        raw = item.raw if item.raw is not None else item.header
        peer = "imap" if item.raw is not None else f"{TOO_LARGE_PEER}{item.size}/{self.max_size}"
        head = raw[:HEADER_BYTES]
        return Received(raw, _envelope_from(head), _envelope_to(head, self.addressing), peer=peer)

    async def _move(self, client: aioimaplib.IMAP4, uids: list[int]) -> None:
        if not uids:
            return
        target = _quoted(PROCESSED)
        if client.has_capability("MOVE"):
            _ok(await client.uid("move", _set(uids), target), "UID MOVE")
            return
        _ok(await client.uid("copy", _set(uids), target), "UID COPY")
        _ok(await client.uid("store", _set(uids), "+FLAGS.SILENT", r"(\Deleted)"), "UID STORE")
        if client.has_capability("UIDPLUS"):
            _ok(await client.uid("expunge", _set(uids)), "UID EXPUNGE")
        else:
            _ok(await client.expunge(), "EXPUNGE")

    def _forget(self, uids: list[int]) -> None:
        with self.database.transaction() as session:
            state.forget_moved(session, self.name, self._uidvalidity, uids)

    async def _expunge_old_if_due(self, client: aioimaplib.IMAP4) -> None:
        now = self.now()
        if self._expunged_at is not None and now - self._expunged_at < EXPUNGE_EVERY:
            return
        self._expunged_at = now
        count = await self.expunge_processed(client, now - self.keep)
        if count:
            log.info("%s: expunged %d processed mail(s) older than PBM_INBOUND_KEEP_DAYS", self.name, count)
        _ok(await client.select(_quoted(self.inbound.folder)), "SELECT")

    async def expunge_processed(self, client: aioimaplib.IMAP4, before: datetime) -> int:
        """Expunge the processed mail saved (moved there) before `before`; returns how many.
        Leaves the folder of processed mail selected."""
        _ok(await client.select(_quoted(PROCESSED)), "SELECT")
        day = _imap_date(before)
        criterion = ("SAVEDBEFORE", day) if client.has_capability("SAVEDATE") else ("BEFORE", day)
        uids = _numbers(_ok(await client.uid_search(*criterion, charset=None), "UID SEARCH"))
        for start in range(0, len(uids), 500):
            chunk = _set(uids[start : start + 500])
            _ok(await client.uid("store", chunk, "+FLAGS.SILENT", r"(\Deleted)"), "UID STORE")
            if client.has_capability("UIDPLUS"):
                _ok(await client.uid("expunge", chunk), "UID EXPUNGE")
            else:
                _ok(await client.expunge(), "EXPUNGE")
        return len(uids)

    async def _wait_for_news(self, client: aioimaplib.IMAP4) -> None:
        """Until the server says something changed, or RENEW_SECONDS pass (or we stop)."""
        if not client.has_capability("IDLE"):
            await self._rest(RENEW_SECONDS)
            _ok(await client.noop(), "NOOP")
            return
        idle = await client.idle_start(timeout=RENEW_SECONDS)
        push = asyncio.ensure_future(client.wait_server_push(timeout=RENEW_SECONDS + 5))
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({push, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            push.cancel()
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await push
            client.idle_done()
            async with asyncio.timeout(COMMAND_SECONDS):
                await idle


async def _start_tls(client: aioimaplib.IMAP4, context: ssl.SSLContext, host: str) -> None:
    """STARTTLS on a plain connection (``imap://``); aioimaplib has no command of its own for it."""
    protocol = client.protocol
    response = await protocol.execute(aioimaplib.Command("STARTTLS", protocol.new_tag(), loop=protocol.loop))
    if response.result != "OK":
        raise MailboxError(f"STARTTLS refused: {_said(response)}")
    loop = asyncio.get_running_loop()
    protocol.transport = await loop.start_tls(protocol.transport, protocol, context, server_hostname=host)
    await protocol.capability()  # capabilities may change once encrypted (RFC 3501, 6.2.1)


async def log_in(inbound: Inbound, account: Account) -> aioimaplib.IMAP4:
    """A connection to `inbound`'s server, encrypted and logged in as `account` (`LoginRefused`
    when the server refuses the secret; `AccountError` when there is none to give)."""
    secret = await asyncio.to_thread(account.secret)
    context = account.tls_context()
    if inbound.scheme == "imaps":
        client: aioimaplib.IMAP4 = aioimaplib.IMAP4_SSL(
            inbound.host, inbound.port, timeout=COMMAND_SECONDS, ssl_context=context
        )
        await client.wait_hello_from_server()
    else:
        client = aioimaplib.IMAP4(inbound.host, inbound.port, timeout=COMMAND_SECONDS)
        await client.wait_hello_from_server()
        await _start_tls(client, context, inbound.host)
    try:
        if secret.oauth2:
            response = await _authenticate_oauth2(client, inbound, secret.value)
        else:
            response = await client.login(inbound.user, secret.value)
    except BaseException:
        await _close(client)
        raise
    if response.result != "OK":
        await _close(client)
        raise LoginRefused(_said(response))
    return client


class _Authenticate(aioimaplib.Command):  # type: ignore[misc]  # aioimaplib ships no types
    """AUTHENTICATE with its initial response on the command line (SASL-IR, RFC 4959). A server
    that refuses the token sends an error challenge first and waits: this answers it, once, with
    `OAUTH2_FAILED`, so that the server says NO instead of holding the command until it times out."""

    def __init__(self, protocol: aioimaplib.IMAP4ClientProtocol, mechanism: str, response: str) -> None:
        super().__init__("AUTHENTICATE", protocol.new_tag(), mechanism, response, loop=protocol.loop)
        self._protocol = protocol
        self._challenged = self._answered = False

    def append_to_resp(self, line: bytes, result: str = "Pending") -> None:
        self._challenged = self._challenged or line.startswith(b"+")
        super().append_to_resp(line, result)

    def flush(self) -> None:  # aioimaplib calls it after each batch of lines read for this command
        transport = self._protocol.transport
        if self._challenged and not self._answered and transport is not None:
            self._answered = True
            transport.write(OAUTH2_FAILED.encode() + b"\r\n")


async def _authenticate_oauth2(client: aioimaplib.IMAP4, inbound: Inbound, token: str) -> aioimaplib.Response:
    """Log in with an OAuth2 access token: OAUTHBEARER when the server offers it, else XOAUTH2.
    aioimaplib has XOAUTH2 only, and waits for ever on a refusal's challenge: its command is used."""
    protocol = client.protocol
    offered = [name.removeprefix("AUTH=") for name in protocol.capabilities if name.startswith("AUTH=")]
    mechanism = oauth2_mechanism(offered)
    response = oauth2_response(mechanism, inbound.user, token, inbound.host, inbound.port)
    async with protocol.state_condition:
        answer = await protocol.execute(_Authenticate(protocol, mechanism, response), scrub=response)
        if answer.result == "OK":
            protocol.state = aioimaplib.AUTH
        protocol.state_condition.notify_all()
    return answer


async def _close(client: aioimaplib.IMAP4) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5):
            await client.logout()
    with contextlib.suppress(Exception):
        transport = client.protocol.transport
        if transport is not None:
            transport.close()


def _kill_here(step: str) -> None:
    planned = os.environ.get(KILL_AT)
    if not planned:
        return
    at, _, marker = planned.partition(":")
    if at == step and marker and not Path(marker).exists():
        Path(marker).write_text(step)
        os.kill(os.getpid(), signal.SIGKILL)


def _ok(response: aioimaplib.Response, command: str) -> aioimaplib.Response:
    if response.result != "OK":
        raise MailboxError(f"{command}: {_said(response)}")
    return response


def _said(response: aioimaplib.Response) -> str:
    text = b" ".join(line for line in response.lines if isinstance(line, bytes))
    return one_line(f"{response.result} {text.decode('utf-8', 'replace')}", limit=200)


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _set(uids: list[int]) -> str:
    return ",".join(str(uid) for uid in uids)


_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_FETCH = re.compile(rb"^\d+ FETCH \(")
_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")


def _uidvalidity(response: aioimaplib.Response) -> int:
    for line in response.lines:
        found = _UIDVALIDITY.search(bytes(line))
        if found:
            return int(found[1])
    raise MailboxError("SELECT gave no UIDVALIDITY")


def _numbers(response: aioimaplib.Response) -> list[int]:
    """The UIDs a UID SEARCH answered, ascending."""
    first = bytes(response.lines[0]) if response.lines else b""
    return sorted(int(word) for word in first.split() if word.isdigit())


def _sizes(response: aioimaplib.Response) -> dict[int, int]:
    sizes = {}
    for line in response.lines:
        if isinstance(line, bytes) and _FETCH.match(line):
            uid, size = _UID.search(line), _SIZE.search(line)
            if uid and size:
                sizes[int(uid[1])] = int(size[1])
    return sizes


def _literals(response: aioimaplib.Response) -> dict[int, bytes]:
    """By UID, the literal each FETCH line of `response` carries (the UID may come before or after it)."""
    found: dict[int, bytes] = {}
    for header, literal, tail in _fetch_items(response.lines):
        uid = _UID.search(header) or _UID.search(tail)
        if uid:
            found[int(uid[1])] = literal
    return found


def _fetch_items(lines: list[bytes | bytearray]) -> Iterator[tuple[bytes, bytes, bytes]]:
    for index, line in enumerate(lines):
        if isinstance(line, bytearray) and index > 0:
            tail = lines[index + 1] if index + 1 < len(lines) else b""
            yield bytes(lines[index - 1]), bytes(line), bytes(tail)


def _imap_date(when: datetime) -> str:
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    return f"{when.day}-{months[when.month - 1]}-{when.year}"


def _headers(head: bytes) -> object:
    try:
        return BytesHeaderParser(policy=compat32).parsebytes(head)
    except Exception:
        return None


def _envelope_from(head: bytes) -> str:
    """The envelope sender the provider recorded (the topmost Return-Path; ``<>`` for a bounce's
    null sender). A mail without one was not delivered by a mail server but put there by a
    client (APPEND, a copy): its From address stands for it."""
    headers = _headers(head)
    if headers is None:
        return ""
    value = headers.get("Return-Path")  # type: ignore[attr-defined]
    if value is None:
        value = headers.get("From")  # type: ignore[attr-defined]
        found = getaddresses([one_line(str(value), limit=2000)])[:1] if value is not None else []
        value = found[0][1] if found else ""
    address = one_line(str(value), limit=400).strip().strip("<>").strip()
    return address if "@" in address else ""


ENVELOPE_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")
"""Where the address a mail came to is found: the provider's own record first, then the author's."""


def _envelope_to(head: bytes, addressing: Addressing) -> list[str]:
    """The addresses of ours a mail came to (a ``+token`` one says which player, or which reply):
    the first header of `ENVELOPE_HEADERS` naming one; the server's own address when none does."""
    headers = _headers(head)
    if headers is not None:
        for name in ENVELOPE_HEADERS:
            values = [one_line(str(v), limit=2000) for v in (headers.get_all(name) or [])]  # type: ignore[attr-defined]
            ours = [address for _, address in getaddresses(values) if address and addressing.accepts(address)]
            if ours:
                return list(dict.fromkeys(ours))[:10]
    return [addressing.address]
