"""A flood of idle connections: mail and health checks go on, and the log stays small.

The audit opened about 1 100 idle connections from one client, to SMTP (sessions
that never say EHLO) and to HTTP (``/api/events`` streams never read), against
a server started as systemd starts it, with a soft limit of 1 024 open files:
new senders got no greeting, ``/healthz`` timed out, and the log grew by up to
181 MB in 25 s. Here the same flood comes from 127.0.0.2 while an honest sender
and the monitor speak from 127.0.0.1; the bounded run floods fewer connections
past a lower limit, with caps lowered to match.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from dataclasses import dataclass

import httpx
import pytest

from tests.faults.harness import Attempt, ServeProcess, attempt
from tests.support import mail

FLOODER = "127.0.0.2"
SMALL_CAPS = {
    "PBM_SMTP_MAX_CONNECTIONS": "40",
    "PBM_SMTP_MAX_CONNECTIONS_PER_CLIENT": "10",
    "PBM_HTTP_MAX_CONNECTIONS": "40",
    "PBM_HTTP_MAX_CONNECTIONS_PER_CLIENT": "10",
}
"""The bounded run's caps, well under its flood (the full run keeps the defaults)."""
SMALL_LOG = 64 * 1024
"""Bytes the log may grow by during the flood: a few lines about refusals, not one per connection."""
EVENTS_REQUEST = b"GET /api/events HTTP/1.1\r\nHost: pbm.test\r\n\r\n"


@dataclass
class Flood:
    """What the server did while the flood lasted, and just after."""

    opened: int
    seconds: float
    """How long the flood held its connections."""
    during: Attempt
    during_seconds: float
    health_status: int
    health_seconds: float
    log_growth: int
    after: Attempt
    after_seconds: float


def idle_connections(port: int, count: int, within: float, request: bytes = b"") -> list[socket.socket]:
    """Up to `count` connections from the flooder, opened within `within` seconds, each sending
    `request` and then nothing; those the server refuses are kept open on this side too, as a
    careless client would. (A server that stops accepting leaves connects waiting: they give up.)"""
    opened: list[socket.socket] = []
    deadline = time.monotonic() + within
    while len(opened) < count and time.monotonic() < deadline:
        client = socket.socket()
        client.bind((FLOODER, 0))
        client.settimeout(0.5)
        try:
            client.connect(("127.0.0.1", port))
            if request:
                client.sendall(request)
        except OSError:
            client.close()
            continue
        opened.append(client)
    return opened


def timed(work):
    started = time.monotonic()
    outcome = work()
    return outcome, time.monotonic() - started


def honest_mail(port: int, number: int) -> Attempt:
    sender = f"newcomer{number}@example.org"
    return attempt(port, sender, mail(sender, "help"), timeout=10)


def health(server: ServeProcess) -> int:
    """The status /healthz answers within 10 s; 0 for none."""
    try:
        return server.healthz(timeout=10).status_code
    except httpx.HTTPError:
        return 0


@pytest.fixture(scope="module")
def flood(tmp_path_factory, sqlite_template, scale, figures) -> Flood:
    workdir = tmp_path_factory.mktemp("connection-flood")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    caps = SMALL_CAPS if scale.name == "bounded" else {}
    server = ServeProcess(f"sqlite:///{workdir / 'pbm.db'}", workdir, env=caps, open_files=scale.flood_open_files)
    server.start()
    try:
        log_before = server.log_path.stat().st_size
        held: list[socket.socket] = []
        within = scale.flood_seconds / 2

        def flood_smtp() -> None:
            held.extend(idle_connections(server.smtp_port, scale.flood_connections, within))

        def flood_http() -> None:
            held.extend(idle_connections(server.http_port, scale.flood_connections, within, EVENTS_REQUEST))

        flooding = [threading.Thread(target=flood_smtp), threading.Thread(target=flood_http)]
        started = time.monotonic()
        for thread in flooding:
            thread.start()
        for thread in flooding:
            thread.join()
        during, during_seconds = timed(lambda: honest_mail(server.smtp_port, 1))
        health_status, health_seconds = timed(lambda: health(server))
        time.sleep(max(0.0, scale.flood_seconds - (time.monotonic() - started)))
        log_growth = server.log_path.stat().st_size - log_before
        for client in held:
            client.close()
        seconds = time.monotonic() - started
        after, after_seconds = timed(lambda: honest_mail(server.smtp_port, 2))
        found = Flood(
            len(held), seconds, during, during_seconds, health_status, health_seconds, log_growth, after, after_seconds
        )
    finally:
        server.stop()
    figures.notes.append(
        f"connection flood: {found.opened} idle connections (SMTP and event streams) held {found.seconds:.0f} s "
        f"against a soft limit of {scale.flood_open_files} files: a new sender got {found.during.code or 'nothing'} "
        f"in {found.during_seconds:.2f} s, /healthz {found.health_status or 'no answer'} in "
        f"{found.health_seconds:.2f} s; the log grew {found.log_growth} bytes; after it, "
        f"mail got {found.after.code or 'nothing'} in {found.after_seconds:.2f} s"
    )
    return found


def test_a_new_sender_gets_its_mail_taken_during_a_connection_flood(flood):
    assert flood.during.accepted, flood.during


def test_healthz_answers_during_a_connection_flood(flood):
    assert flood.health_status == 200


def test_the_log_stays_small_during_a_connection_flood(flood):
    assert flood.log_growth < SMALL_LOG


def test_mail_is_taken_at_once_when_a_connection_flood_ends(flood):
    assert flood.after.accepted, flood.after
    assert flood.after_seconds < 5
