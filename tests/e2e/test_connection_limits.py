"""Each listener holds so many connections, from one client and in all, and closes idle ones.

The clients here speak from two loopback addresses: 127.0.0.2 is the one
that floods, 127.0.0.1 the honest sender or the monitor.
"""

from __future__ import annotations

import smtplib
import socket
import time

import httpx
import pytest

from tests.support import mail

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the listeners' own behaviour

ALICE = "alice@example.org"
FLOODER, HONEST = "127.0.0.2", "127.0.0.1"


def connect(port: int, source: str = FLOODER, timeout: float = 10.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))


def greeting(client: socket.socket) -> bytes:
    return client.recv(1024)


def closed_within(client: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed `client` (reading and dropping what it sends), or None."""
    started = time.monotonic()
    client.settimeout(seconds)
    try:
        while client.recv(1024):
            pass
    except TimeoutError:
        return None
    return time.monotonic() - started


def test_an_smtp_client_past_its_cap_is_told_421_while_another_is_greeted(server_with):
    running = server_with(smtp_max_connections_per_client=2)
    held = [connect(running.smtp_port) for _ in range(2)]
    assert all(greeting(client).startswith(b"220") for client in held)

    refused = connect(running.smtp_port)
    assert greeting(refused).startswith(b"421 4.7.0")
    assert closed_within(refused, 5) is not None

    with smtplib.SMTP("127.0.0.1", running.smtp_port, timeout=10, source_address=(HONEST, 0)) as honest:
        assert honest.sendmail(ALICE, ["pbm@localhost"], mail(ALICE, "help").replace(b"\n", b"\r\n")) == {}
    for client in held:
        client.close()


def test_an_smtp_connection_past_the_listeners_cap_is_told_421(server_with):
    running = server_with(smtp_max_connections=2)
    held = [connect(running.smtp_port, source) for source in (FLOODER, "127.0.0.3")]
    assert all(greeting(client).startswith(b"220") for client in held)
    assert greeting(connect(running.smtp_port, HONEST)).startswith(b"421 4.3.2")
    held[0].close()
    time.sleep(0.2)
    assert greeting(connect(running.smtp_port, HONEST)).startswith(b"220")  # a place is free again at once


def test_an_idle_smtp_session_is_closed_after_the_idle_time(server_with):
    running = server_with(smtp_idle_seconds=1)
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    waited = closed_within(client, 8)
    assert waited is not None and waited < 4


def test_an_http_connection_past_its_cap_is_answered_503(server_with):
    running = server_with(http_max_connections_per_client=2)
    held = [connect(running.http_port) for _ in range(2)]
    refused = connect(running.http_port)
    assert refused.recv(1024).startswith(b"HTTP/1.1 503")
    answer = httpx.get(f"http://127.0.0.1:{running.http_port}/healthz", timeout=10)
    assert answer.status_code == 200  # from the monitor's own address
    for client in held:
        client.close()


def test_an_http_connection_that_sends_no_request_is_closed_after_the_idle_time(server_with):
    running = server_with(http_idle_seconds=1)
    waited = closed_within(connect(running.http_port), 8)
    assert waited is not None and waited < 4


def test_an_event_stream_with_nothing_to_send_ends_after_the_idle_time(server_with):
    running = server_with(http_idle_seconds=1)
    started = time.monotonic()
    with httpx.stream("GET", f"http://127.0.0.1:{running.http_port}/api/events", timeout=8) as stream:
        body = b"".join(stream.iter_bytes())
    assert time.monotonic() - started < 4
    assert body.startswith(b"retry: ")
