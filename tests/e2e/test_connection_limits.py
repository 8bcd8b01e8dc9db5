"""Each listener holds so many connections, from one client and in all, and closes idle ones.

The clients here speak from two loopback addresses: 127.0.0.2 is the one
that floods, 127.0.0.1 the honest sender or the monitor.
"""

from __future__ import annotations

import re
import select
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


def say(client: socket.socket, command: bytes) -> bytes:
    """Send an SMTP command line; the server's reply (b"" once it has closed)."""
    reply = b""
    try:
        client.sendall(command + b"\r\n")
        while not re.search(rb"(^|\n)\d{3} [^\n]*\r\n$", reply):  # until its last line (a space after the code)
            chunk = client.recv(1024)
            if not chunk:
                break
            reply += chunk
    except OSError:
        pass
    return reply


def test_noop_and_rset_do_not_keep_an_idle_smtp_session_open(server_with):
    """The audit held every place with sessions sending NOOP every 20 s: only a step of a mail
    restarts the idle clock now."""
    running = server_with(smtp_idle_seconds=1)
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    started, replies = time.monotonic(), []
    while time.monotonic() - started < 6:
        reply = say(client, b"NOOP" if len(replies) % 2 else b"RSET")
        replies.append(reply)
        if not reply:
            break
        time.sleep(0.3)
    assert not replies[-1], "the session was still open after 6 s of NOOP and RSET"
    assert time.monotonic() - started < 3


def test_steps_of_a_mail_keep_an_smtp_session_open_past_the_idle_time(server_with):
    running = server_with(smtp_idle_seconds=1)
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    assert say(client, b"EHLO relay.example.org").startswith(b"250")
    assert say(client, b"MAIL FROM:<alice@example.org>").startswith(b"250")
    for _ in range(5):
        time.sleep(0.5)
        assert say(client, b"RCPT TO:<pbm@localhost>").startswith(b"250")


def test_an_smtp_session_has_a_budget_of_commands_without_a_mail(server_with):
    running = server_with(smtp_max_commands_without_mail=5)
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    assert [say(client, command)[:3] for command in (b"EHLO relay.example.org", b"NOOP", b"RSET", b"NOOP")] == [
        b"250"
    ] * 4
    assert say(client, b"MAIL FROM:<alice@example.org>").startswith(b"250")
    assert say(client, b"RCPT TO:<pbm@localhost>").startswith(b"250")
    assert say(client, b"DATA").startswith(b"354")
    assert say(client, mail(ALICE, "help").replace(b"\n", b"\r\n") + b"\r\n.").startswith(b"250")
    for _ in range(5):  # a mail fills the budget again
        assert say(client, b"NOOP").startswith(b"250")
    over = say(client, b"NOOP")
    assert over.startswith(b"421 4.7.0") and b"Too many commands without a mail" in over
    assert closed_within(client, 5) is not None


def test_an_smtp_session_ends_after_its_lifetime_whatever_it_does(server_with):
    running = server_with(smtp_max_session_seconds=2)
    opened = time.monotonic()
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    assert say(client, b"EHLO relay.example.org").startswith(b"250")
    assert say(client, b"MAIL FROM:<alice@example.org>").startswith(b"250")
    last = b""
    while time.monotonic() - opened < 6:
        if select.select([client], [], [], 0.3)[0]:  # the server spoke first: its goodbye
            last = client.recv(1024)
            break
        last = say(client, b"RCPT TO:<pbm@localhost>")
        if not last.startswith(b"250"):
            break
    assert b"421 4.7.0" in last and b"Session too long" in last
    assert 1.5 < time.monotonic() - opened < 4


def test_healthz_is_answered_when_the_http_listener_is_full(server_with):
    """A flood of event streams from many clients filled the listener and a monitor read /healthz
    as 503 (down): a small reserve answers /healthz past the caps, and only it."""
    running = server_with(http_max_connections=2)
    held = [connect(running.http_port, source) for source in (FLOODER, "127.0.0.3")]
    for client in held:
        client.sendall(b"GET /api/events HTTP/1.1\r\nHost: pbm.test\r\n\r\n")
        assert client.recv(1024).startswith(b"HTTP/1.1 200")
    base = f"http://127.0.0.1:{running.http_port}"
    assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
    assert httpx.get(f"{base}/api/games", timeout=10).status_code == 503
    for client in held:
        client.close()


def event_stream_start(port: int, source: str) -> tuple[socket.socket, bytes]:
    """An event stream opened from `source`: the socket, and what the server sent first."""
    client = connect(port, source)
    client.sendall(b"GET /api/events HTTP/1.1\r\nHost: pbm.test\r\n\r\n")
    time.sleep(0.2)
    return client, client.recv(4096)


def test_one_client_holds_so_many_event_streams_and_the_next_is_told_to_come_back_later(server_with):
    running = server_with(http_max_event_streams_per_client=2)
    held = [event_stream_start(running.http_port, FLOODER) for _ in range(2)]
    assert all(b"retry: 3000" in first for _, first in held)
    _, refused = event_stream_start(running.http_port, FLOODER)
    assert refused.startswith(b"HTTP/1.1 200") and b"retry: 60000" in refused
    other, first = event_stream_start(running.http_port, "127.0.0.3")
    assert b"retry: 3000" in first, "another client still gets its stream"
    held[0][0].close()
    time.sleep(0.5)
    _, again = event_stream_start(running.http_port, FLOODER)
    assert b"retry: 3000" in again, "a place is free once a stream ends"
    for client in (other, held[1][0]):
        client.close()


def test_a_mail_takes_at_most_a_hundred_recipients(server_with):
    """Each recipient taken is a step of a mail that keeps the session open: their number is bounded."""
    running = server_with()
    client = connect(running.smtp_port)
    assert greeting(client).startswith(b"220")
    assert say(client, b"EHLO relay.example.org").startswith(b"250")
    assert say(client, b"MAIL FROM:<alice@example.org>").startswith(b"250")
    replies = [say(client, b"RCPT TO:<pbm@localhost>")[:3] for _ in range(101)]
    assert replies == [b"250"] * 100 + [b"452"]
