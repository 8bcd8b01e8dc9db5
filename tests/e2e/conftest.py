"""A real server on loopback: SMTP in, SMTP out to a real sink, HTTP beside them."""

from __future__ import annotations

import asyncio
import smtplib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select

from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.serving.server import Server, ServerThread
from pbm.store.models import InboundMessage, InboundStatus, OutboxMessage, OutboxStatus
from tests.support import confirmation_reply, read, shared_reader


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SinkHandler:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.arrived = threading.Condition()
        self.confirming_at: int | None = None
        """The SMTP port of the server whose mails asking an address to confirm itself are answered."""
        self.confirmations: set[str] = set()
        """The Message-IDs of the replies that confirmed an address."""
        self.confirmed: list[EmailMessage] = []
        """The server's answers to those replies (not among `messages`)."""

    async def handle_DATA(self, server, session, envelope) -> str:
        raw = envelope.original_content
        message = read(raw)
        if str(message["In-Reply-To"] or "").strip() in self.confirmations:
            self.confirmed.append(message)
            return "250 OK"
        reply = confirmation_reply(message) if self.confirming_at is not None else None
        if reply is not None:
            # The owner replies before the mail counts as arrived: whatever the test sends next
            # is received after the confirmation, and so applied after it.
            self.confirmations.add(str(read(reply)["Message-ID"]).strip())
            await asyncio.to_thread(_send_reply, self.confirming_at, message["To"].addresses[0].addr_spec, reply)
        with self.arrived:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), raw))
            self.arrived.notify_all()
        return "250 OK"


def _send_reply(port: int, sender: str, reply: bytes) -> None:
    recipient = read(reply)["To"].addresses[0].addr_spec
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(sender, [recipient], reply.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


class Sink:
    """An SMTP server that keeps what the server under test mails out.

    Once told the server's port (`confirm_for`), the owners of the addresses it mails confirm them,
    as anyone who signed up would: each mail asking an address to confirm itself is answered by a
    reply from that address before the mail counts as arrived. The server's answers to those
    replies are kept apart (`confirmed`), not among the mails `wait` and `quiet` return.
    """

    def __init__(self) -> None:
        self.handler = SinkHandler()
        self.port = free_port()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self._taken = 0

    def confirm_for(self, smtp_port: int | None) -> None:
        """Answer the mails asking to confirm an address, to the server at `smtp_port` (None: stop)."""
        self.handler.confirming_at = smtp_port

    @property
    def confirmed(self) -> list[EmailMessage]:
        return self.handler.confirmed

    def wait(self, count: int, timeout: float = 15.0) -> list[EmailMessage]:
        """The next `count` mails to arrive (waiting for them), in arrival order."""
        deadline = time.monotonic() + timeout
        with self.handler.arrived:
            while len(self.handler.messages) < self._taken + count:
                left = deadline - time.monotonic()
                if left <= 0:
                    got = len(self.handler.messages) - self._taken
                    raise AssertionError(f"expected {count} more mails, {got} arrived")
                self.handler.arrived.wait(left)
            batch = self.handler.messages[self._taken : self._taken + count]
            self._taken += count
        return [read(raw) for _, _, raw in batch]

    def once_settled(self, server: Running) -> list[EmailMessage]:
        """Whatever has arrived by the time `server` has settled (`Running.settled`), for checking
        that nothing (more) was mailed."""
        server.settled()
        return self.quiet(0)

    def quiet(self, seconds: float = 1.0) -> list[EmailMessage]:
        """Whatever arrives within `seconds` (for checking that nothing does)."""
        time.sleep(seconds)
        with self.handler.arrived:
            batch = self.handler.messages[self._taken :]
            self._taken = len(self.handler.messages)
        return [read(raw) for _, _, raw in batch]


@pytest.fixture
def sink() -> Iterator[Sink]:
    sink = Sink()
    sink.controller.start()
    yield sink
    sink.controller.stop()


@dataclass
class Running:
    """A server running in a background thread, and how a test talks to it."""

    thread: ServerThread

    @property
    def server(self) -> Server:
        return self.thread.server

    @property
    def smtp_port(self) -> int:
        assert self.server.smtp_port is not None
        return self.server.smtp_port

    @property
    def http_port(self) -> int:
        assert self.server.http_port is not None
        return self.server.http_port

    def settled(self, timeout: float = 15.0) -> None:
        """Until the server has processed every mail it was given and handed every reply it queued
        to the sink (which keeps a mail before it says 250): from then on, what it answers to what
        it was sent has arrived. A test that nothing (more) was mailed checks `Sink.quiet(0)` after
        this, not after a second or two of waiting, which proves less and costs the wait. Bots still
        thinking are not waited for: their moves come as new mail after."""
        deadline = time.monotonic() + timeout
        while True:
            with self.server.database.reading() as session:
                waiting = session.scalar(
                    select(func.count())
                    .select_from(InboundMessage)
                    .where(InboundMessage.status == InboundStatus.PENDING)
                )
                # Pending, whether due or leased to the delivery sending it now.
                unsent = session.scalar(
                    select(func.count()).select_from(OutboxMessage).where(OutboxMessage.status == OutboxStatus.PENDING)
                )
            if not waiting and not unsent:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"not settled after {timeout} s: {waiting} mails to process, {unsent} to send")
            time.sleep(0.02)

    def send(self, raw: bytes, sender: str, recipients: list[str] | None = None) -> dict:
        """Send as a mail client does (CRLF lines); returns smtplib's refused recipients."""
        wire = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=10) as client:
            return client.sendmail(sender, recipients or ["pbm@localhost"], wire)


def loopback_settings(database_url: str, outbound: str, secret: str, **club: Any) -> Settings:
    """Settings for a server under test: ephemeral loopback ports, one database, one outbound;
    `club`, any other settings (``admins=...``)."""
    return Settings(
        database_url=database_url,
        smtp_listen="127.0.0.1:0",
        http_listen="127.0.0.1:0",
        outbound=outbound,
        secret_key=secret + "-" + "k" * 32,
        **club,
    )


def start_server(settings: Settings, var_dir: Path) -> Running:
    server = Server(settings, passwords=fast_passwords(), var_dir=var_dir, reader=shared_reader(settings))
    thread = ServerThread(server, timeout=30)
    thread.start()
    return Running(thread)


@pytest.fixture
def server_with(database_url: str, sink: Sink, tmp_path: Path) -> Iterator[Callable[..., Running]]:
    """Start a server with settings of its own (``server_with(admins="alice")``), stopped at the end."""
    started: list[Running] = []

    def start(**settings: Any) -> Running:
        outbound = f"smtp://127.0.0.1:{sink.port}"
        started.append(start_server(loopback_settings(database_url, outbound, "e2e", **settings), tmp_path))
        sink.confirm_for(started[-1].smtp_port)
        return started[-1]

    yield start
    for running in started:
        running.thread.stop()


@pytest.fixture
def server(database_url: str, sink: Sink, tmp_path: Path) -> Iterator[Running]:
    running = start_server(loopback_settings(database_url, f"smtp://127.0.0.1:{sink.port}", "e2e"), tmp_path)
    sink.confirm_for(running.smtp_port)
    yield running
    running.thread.stop()
