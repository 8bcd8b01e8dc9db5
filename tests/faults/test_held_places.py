"""Places held, not flooded: connections that stay within every cap and keep it full.

The audit opened 100 SMTP connections from five addresses, each sending NOOP
every 20 s: the idle time restarted at each NOOP, so they held every place for
as long as they liked, and a sixth sender got 421 all the while. On the web,
ten addresses with 40 event streams each filled the listener, and ``/healthz``
answered 503, which a monitor reads as down. Here the same, from 127.0.0.2-11,
while the sixth sender and the monitor speak from 127.0.0.1; the bounded run
holds fewer places under lower caps and a shorter idle time.
"""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass

import pytest

from tests.faults.harness import ServeProcess, attempt
from tests.faults.test_connection_flood import EVENTS_REQUEST, health
from tests.support import mail


@dataclass(frozen=True)
class Holding:
    sources: int
    per_source: int
    noop_every: float
    idle_seconds: int
    patience: float
    """How long the sixth sender keeps trying before the test calls it shut out."""
    stream_sources: int
    streams_per_source: int
    streams_per_client: int


BOUNDED = Holding(
    sources=5, per_source=4, noop_every=1.0, idle_seconds=3, patience=20.0,
    stream_sources=4, streams_per_source=10, streams_per_client=3,
)  # fmt: skip
FULL = Holding(
    sources=5, per_source=20, noop_every=20.0, idle_seconds=60, patience=150.0,
    stream_sources=10, streams_per_source=40, streams_per_client=10,
)  # fmt: skip


def source(number: int) -> str:
    return f"127.0.0.{2 + number}"


def greeted(port: int, address: str) -> socket.socket | None:
    client = socket.socket()
    client.bind((address, 0))
    client.settimeout(5)
    try:
        client.connect(("127.0.0.1", port))
        if client.recv(1024).startswith(b"220"):
            return client
    except OSError:
        pass
    client.close()
    return None


def hold_with_noop(clients: list[socket.socket], every: float, stop: threading.Event) -> None:
    """NOOP on each held session every `every` seconds, as the audit's client did; a closed one
    is let go (the audit's client did not come back)."""
    while not stop.wait(every):
        for client in list(clients):
            try:
                client.sendall(b"NOOP\r\n")
                if not client.recv(1024).startswith(b"250"):
                    raise OSError("closed")
            except OSError:
                clients.remove(client)
                client.close()


def sixth_sender_wait(port: int, patience: float) -> float | None:
    """Seconds until a new sender's mail is taken, trying every half second; None past `patience`."""
    sender = "sixth@example.org"
    started = time.monotonic()
    while time.monotonic() - started < patience:
        if attempt(port, sender, mail(sender, "help"), timeout=5).accepted:
            return time.monotonic() - started
        time.sleep(0.5)
    return None


@pytest.fixture(scope="module")
def holding(scale) -> Holding:
    return FULL if scale.name == "full" else BOUNDED


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template, holding):
    workdir = tmp_path_factory.mktemp("held-places")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    caps = {
        "PBM_SMTP_MAX_CONNECTIONS": str(holding.sources * holding.per_source),
        "PBM_SMTP_MAX_CONNECTIONS_PER_CLIENT": str(holding.per_source),
        "PBM_SMTP_IDLE_SECONDS": str(holding.idle_seconds),
        "PBM_HTTP_MAX_CONNECTIONS": str(holding.stream_sources * holding.streams_per_source),
        "PBM_HTTP_MAX_CONNECTIONS_PER_CLIENT": str(holding.streams_per_source),
        "PBM_HTTP_MAX_EVENT_STREAMS_PER_CLIENT": str(holding.streams_per_client),
    }
    server = ServeProcess(f"sqlite:///{workdir / 'pbm.db'}", workdir, env=caps)
    server.start()
    yield server
    server.stop()


def test_sessions_kept_alive_with_noop_do_not_keep_a_new_sender_out(server, holding, figures):
    held = [
        client
        for number in range(holding.sources)
        for client in (greeted(server.smtp_port, source(number)) for _ in range(holding.per_source))
        if client is not None
    ]
    stop = threading.Event()
    keeper = threading.Thread(target=hold_with_noop, args=(held, holding.noop_every, stop), daemon=True)
    keeper.start()
    try:
        opened = len(held)
        waited = sixth_sender_wait(server.smtp_port, holding.patience)
    finally:
        stop.set()
        keeper.join(holding.noop_every + 10)
        for client in held:
            client.close()
    figures.notes.append(
        f"held places: {opened} SMTP sessions from {holding.sources} addresses, NOOP every "
        f"{holding.noop_every:g} s (idle time {holding.idle_seconds} s): a sixth sender waited "
        + (f"{waited:.1f} s" if waited is not None else f"more than {holding.patience:.0f} s (shut out)")
    )
    assert opened == holding.sources * holding.per_source, "the attack could not hold every place"
    assert waited is not None and waited <= holding.idle_seconds + 5


def open_streams(port: int, address: str, count: int) -> tuple[list[socket.socket], int]:
    """`count` event streams from `address`; those held open, and how many of them the server kept."""
    clients, kept = [], 0
    for _ in range(count):
        client = socket.socket()
        client.bind((address, 0))
        client.settimeout(5)
        try:
            client.connect(("127.0.0.1", port))
            client.sendall(EVENTS_REQUEST)
            first = first_event(client)
        except OSError:
            client.close()
            continue
        clients.append(client)
        kept += b"retry: 3000" in first
    return clients, kept


def first_event(client: socket.socket) -> bytes:
    """What the server sends until its first event (``retry: ``), or closes, or stops for 2 s."""
    received = b""
    client.settimeout(2)
    while not re.search(rb"retry: \d+\n", received):
        try:
            chunk = client.recv(4096)
        except TimeoutError:
            break
        if not chunk:
            break
        received += chunk
    return received


def test_event_streams_from_many_clients_leave_health_checks_answered(server, holding, figures):
    flood: list[socket.socket] = []
    kept_by_one = 0
    try:
        for number in range(holding.stream_sources):
            clients, kept = open_streams(server.http_port, source(number), holding.streams_per_source)
            flood.extend(clients)
            kept_by_one = max(kept_by_one, kept)
        time.sleep(0.5)
        status = health(server)
    finally:
        for client in flood:
            client.close()
    figures.notes.append(
        f"held places: {holding.stream_sources} addresses opened {holding.streams_per_source} event streams "
        f"each: one address held {kept_by_one} open; /healthz answered {status or 'nothing'}"
    )
    assert kept_by_one <= holding.streams_per_client
    assert status == 200
