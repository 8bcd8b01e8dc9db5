"""The listeners' sockets.

`pbm serve` binds them itself, before it serves on them, so that an address
it cannot listen on (a port in use, a host that is not this machine's) stops
it with one line naming the setting to change, for SMTP and HTTP alike.
"""

from __future__ import annotations

import socket

from pbm.config import ConfigError, ListenAddress

BACKLOG = 100
"""Connections the kernel queues for a listener until it accepts them."""


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
