"""The listeners' sockets, and how many connections each lets in.

An idle connection costs a client nothing but costs the server an open file,
and SMTP and HTTP share one process and its open-file limit. Unbounded, about
a thousand idle connections used up the files: new senders got no greeting,
``/healthz`` no answer, and asyncio logged every failed accept with a
traceback (180 MB in 25 s). So each listener holds at most so many
connections from one client (an IP address; for IPv6 a /64) and in all
(`ConnectionLimits`); a connection past either cap is told so in the
listener's own words (SMTP 421, HTTP 503) and closed at once. The caps
together stay inside the open-file limit (`allow_open_files`), and idle
connections are closed after a while: aiosmtpd and uvicorn time out the idle
sessions they know of, and the caps close an HTTP connection that never sends
a request, which uvicorn leaves open. (Places held without being idle are
bounded where the talk is understood: an SMTP session's lifetime and commands
in `pbm.mail.inbound`, a client's event streams in `pbm.web.api`.) Past the
caps, a small reserve still answers ``/healthz``, so that a monitor tells a
full listener from a dead server.

Refusals come in floods, so they reach the log at a bounded rate
(`RefusalLog`). Binding is done here too (`bind`), so that an address in use
stops the server with one line naming the setting to change.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
import socket
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pbm.config import ConfigError, ListenAddress

log = logging.getLogger(__name__)

BACKLOG = 100
"""Connections the kernel queues for a listener until it accepts them; asyncio also accepts up to
this many at once, and a refused one keeps its file for a turn or two of the loop after."""
FILES_BESIDE_CONNECTIONS = 400
"""Open files a server needs besides the connections it holds: refused connections not yet closed
(a flood on both listeners at once kept some 300), database connections and files, the mail
reader's pipes, outgoing SMTP, the listening sockets, the log."""
RESERVE = 8
"""Connections past the caps a listener still lets in for the requests it keeps a place for
(`ConnectionLimits.reserved_for`), at most two from one client."""
RESERVE_PER_CLIENT = 2
RESERVE_SECONDS = 10.0
"""How long a connection let in on the reserve stays: one answer's time."""
RESERVE_FIRST_LINE_SECONDS = 1.0
"""How long a connection on the reserve has to send its first line; after it, the refusal. (An
HTTP client sends its request at once.)"""
FIRST_LINE = 512
"""The most bytes read of a reserve connection before it must have said what it asks."""
REFUSALS_LOGGED_EVERY = 60.0
"""Seconds between two log lines about refused connections while refusals go on."""


def bind(address: ListenAddress, setting: str) -> list[socket.socket]:
    """Listening sockets for every address `address` names (``localhost`` may name two).

    Raises `ConfigError`, one line naming `setting`, when one cannot listen
    (the port is in use, the host is not this machine's, a port below 1024).
    """
    try:
        found = socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ConfigError(f"{setting}: cannot listen on {address}: {error.strerror}") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, number, _, where in dict.fromkeys(found):
            listener = socket.socket(family, kind, number)
            sockets.append(listener)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)  # its IPv4 twin binds apart
            listener.bind(where)
            listener.listen(BACKLOG)
            listener.setblocking(False)
    except OSError as error:
        for listener in sockets:
            listener.close()
        raise ConfigError(
            f"{setting}: cannot listen on {address}: {error.strerror or error}; "
            f"stop what listens there, or set {setting} to another host:port"
        ) from None
    return sockets


def allow_open_files(connections: int, settings: str) -> None:
    """Make sure this process may hold `connections` connections and its other files.

    Raises the soft open-file limit up to the hard one if need be (systemd
    starts services with 1024); raises `ConfigError` naming `settings` (the
    caps) when even the hard limit is too low.
    """
    needed = connections + FILES_BESIDE_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise ConfigError(
            f"{settings} allow {connections} connections, which with the server's other files need "
            f"{needed} open files; this process may open {hard} (LimitNOFILE in the systemd unit, "
            "ulimit -n in a shell): raise that, or lower them"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@dataclass(frozen=True)
class Refusals:
    """What a listener sends a connection it refuses, just before closing it."""

    client_full: bytes
    """The client holds as many connections as one client may."""
    listener_full: bytes
    """The listener holds as many connections as it may in all."""


class ConnectionLimits:
    """The connections one listener holds: at most `per_client` from one client, `total` in all.

    A client is an IPv4 address, or an IPv6 /64: one subscriber's share, and
    what a single attacker holds at the least.

    `guard` wraps the listener's protocol factory; a connection past a cap
    gets `refusals` and is closed, and its protocol is never made. With
    `first_bytes_within`, a connection that has sent nothing that many seconds
    after it opened is closed. The caps are named in the log after their
    settings, ``PBM_<LISTENER>_MAX_CONNECTIONS[_PER_CLIENT]``.

    With `reserved_for` (first bytes of requests, ``b"GET /healthz "``), a
    connection past a cap is still let in, on a small reserve of its own, if
    its first line is one of those; anything else gets the refusal. A monitor
    then hears from the server whatever the load, as a flood of event streams
    once kept ``/healthz`` at 503.
    """

    def __init__(
        self,
        listener: str,
        *,
        total: int,
        per_client: int,
        refusals: Refusals,
        first_bytes_within: float | None = None,
        reserved_for: tuple[bytes, ...] = (),
    ) -> None:
        self.listener = listener
        self.total = total
        self.per_client = per_client
        self.refusals = refusals
        self.first_bytes_within = first_bytes_within
        self.reserved_for = reserved_for
        self._held: Counter[str] = Counter()
        """Open connections by client."""
        self._reserve: Counter[str] = Counter()
        """Connections let in on the reserve, by client."""
        self.refusal_log = RefusalLog(listener, every=REFUSALS_LOGGED_EVERY)

    def guard(self, factory: Callable[..., asyncio.Protocol]) -> Callable[..., asyncio.Protocol]:
        """A protocol factory that makes `factory`'s protocol (with the same arguments) only for a
        connection the caps let in."""

        def make(*args: Any, **kwargs: Any) -> asyncio.Protocol:
            return _Guarded(self, lambda: factory(*args, **kwargs))

        return make

    def admit(self, client: str) -> bytes | None:
        """Take a place for a connection from `client`; returns what to send it instead when there is none."""
        setting = f"PBM_{self.listener}_MAX_CONNECTIONS"
        if self._held[client] >= self.per_client:
            self.refusal_log.refused(client, f"{setting}_PER_CLIENT ({self.per_client})")
            return self.refusals.client_full
        if self._held.total() >= self.total:
            self.refusal_log.refused(client, f"{setting} ({self.total})")
            return self.refusals.listener_full
        self._held[client] += 1
        return None

    def release(self, client: str) -> None:
        self._held[client] -= 1
        if self._held[client] <= 0:
            del self._held[client]

    def reserve(self, client: str) -> bool:
        """Take a place on the reserve for a connection from `client` the caps refused; whether there was one."""
        if not self.reserved_for or self._reserve.total() >= RESERVE or self._reserve[client] >= RESERVE_PER_CLIENT:
            return False
        self._reserve[client] += 1
        return True

    def release_reserve(self, client: str) -> None:
        self._reserve[client] -= 1
        if self._reserve[client] <= 0:
            del self._reserve[client]

    def reserved(self, first_line: bytes) -> bool:
        """Whether a request beginning `first_line` may use the reserve."""
        return first_line.startswith(self.reserved_for)

    def close(self) -> None:
        self.refusal_log.close()


def client_of(peer: object) -> str:
    """Who a connection's peer address counts as: its IPv4 address, or its IPv6 /64."""
    host = str(peer[0]) if isinstance(peer, tuple) else str(peer or "")
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


class _Guarded(asyncio.Protocol):
    """A listener's protocol, made once `ConnectionLimits` admits the connection; until then, and
    for a refused one, nothing of it exists. A connection on the reserve passes its bytes on only
    once its first line is one the reserve is for."""

    def __init__(self, limits: ConnectionLimits, make: Callable[[], asyncio.Protocol]) -> None:
        self._limits = limits
        self._make = make
        self._inner: asyncio.Protocol | None = None
        self._client = ""
        self._silence: asyncio.TimerHandle | None = None
        self._refusal: bytes | None = None
        """For a connection on the reserve: what it gets unless its first line is one the reserve is for."""
        self._head: bytearray | None = None
        """A reserve connection's first bytes, until its first line is whole."""
        self._transport: asyncio.WriteTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self._transport = transport
        self._client = client_of(transport.get_extra_info("peername"))
        refusal = self._limits.admit(self._client)
        if refusal is not None:
            if not self._limits.reserve(self._client):
                transport.write(refusal)
                transport.close()
                return
            self._refusal, self._head = refusal, bytearray()
        loop = asyncio.get_running_loop()
        if self._refusal is not None:
            self._silence = loop.call_later(RESERVE_FIRST_LINE_SECONDS, self._refuse)
        elif self._limits.first_bytes_within is not None:
            self._silence = loop.call_later(self._limits.first_bytes_within, transport.close)
        self._inner = self._make()
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._head is not None:
            self._head += data
            if b"\n" not in self._head and len(self._head) < FIRST_LINE:
                return
            data, self._head = bytes(self._head), None
            if not self._limits.reserved(data):
                self._refuse()
                return
            self._silence_for(RESERVE_SECONDS)  # one answer's time, then the place is free again
        elif self._silence is not None and self._refusal is None:
            self._silence.cancel()
            self._silence = None
        if self._inner is not None:
            self._inner.data_received(data)

    def _silence_for(self, seconds: float) -> None:
        assert self._transport is not None
        if self._silence is not None:
            self._silence.cancel()
        self._silence = asyncio.get_running_loop().call_later(seconds, self._transport.close)

    def _refuse(self) -> None:
        """A connection on the reserve that asks for something else, or nothing: the refusal."""
        assert self._transport is not None and self._refusal is not None
        if not self._transport.is_closing():
            self._transport.write(self._refusal)
            self._transport.close()

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._silence is not None:
            self._silence.cancel()
        if self._inner is not None:
            if self._refusal is not None:
                self._limits.release_reserve(self._client)
            else:
                self._limits.release(self._client)
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()


ACCEPT_FAILED = "socket.accept() out of system resource"
"""What asyncio reports, through the loop's exception handler, for each connection it could not
accept for want of open files."""


class AcceptFailures:
    """The loop's exception handler: failed accepts logged once per `every` seconds, with a count.

    Should the open files run out all the same (files opened for something
    else), asyncio reports every failed accept with a traceback, many a
    millisecond. Anything else goes to asyncio's own handler.
    """

    def __init__(self, *, every: float = REFUSALS_LOGGED_EVERY) -> None:
        self.every = every
        self._last_line = -every
        self._since = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_FAILED:
            loop.default_exception_handler(context)
            return
        self._since += 1
        if loop.time() - self._last_line < self.every:
            return
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        log.error(
            "could not accept %d connections: %s (the process may open %d files); "
            "a line every %g s at most while this goes on",
            self._since,
            context.get("exception"),
            soft,
            self.every,
        )
        self._last_line = loop.time()
        self._since = 0


class RefusalLog:
    """Refused connections in the log, a line per `every` seconds at most.

    The first refusal after a quiet spell is logged at once; those that follow
    are counted, and while they go on, one line every `every` seconds says how
    many there were, at which cap, and which client was refused most.
    """

    def __init__(self, listener: str, *, every: float) -> None:
        self.listener = listener
        self.every = every
        self._counted: Counter[tuple[str, str]] = Counter()
        """Refusals since the last line, by (cap, client)."""
        self._next_line: asyncio.TimerHandle | None = None

    def refused(self, client: str, cap: str) -> None:
        if self._next_line is not None:
            self._counted[cap, client] += 1
            return
        log.warning(
            "%s refused a connection from %s at %s; further refusals are counted, one line every %g s",
            self.listener,
            client,
            cap,
            self.every,
        )
        self._next_line = asyncio.get_running_loop().call_later(self.every, self._tick)

    def _tick(self) -> None:
        if self._log_count():
            self._next_line = asyncio.get_running_loop().call_later(self.every, self._tick)
        else:
            self._next_line = None  # quiet again: the next refusal is logged at once

    def _log_count(self) -> bool:
        """Log the refusals counted since the last line, if any; returns whether there were."""
        if not self._counted:
            return False
        caps: Counter[str] = Counter()
        clients: Counter[str] = Counter()
        for (cap, client), count in self._counted.items():
            caps[cap] += count
            clients[client] += count
        busiest, most = clients.most_common(1)[0]
        log.warning(
            "%s refused %d more connections (%s) from %d clients, most from %s (%d)",
            self.listener,
            caps.total(),
            ", ".join(f"{count} at {cap}" for cap, count in caps.most_common()),
            len(clients),
            busiest,
            most,
        )
        self._counted.clear()
        return True

    def close(self) -> None:
        """Log what is counted and not yet logged, and stop the clock."""
        if self._next_line is not None:
            self._next_line.cancel()
            self._next_line = None
        self._log_count()
