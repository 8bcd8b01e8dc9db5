"""Telling systemd how the service is doing (``Type=notify`` units): the sd_notify protocol.

systemd names a datagram socket in ``$NOTIFY_SOCKET``; a service sends it lines such as
``READY=1`` (listening now: units ordered after this one may start) and ``STOPPING=1``. A
name starting with ``@`` is a socket in the abstract namespace. Without the variable (not
under systemd, or another ``Type=``) there is no one to tell, and nothing is sent. A few
lines of the protocol, instead of a dependency for them.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def notify(state: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send `state` (``"READY=1"``, ``"STOPPING=1"``, ``"STATUS=..."``) to systemd; returns
    whether it was sent. A failure to send is logged, never raised: the service runs on."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET", "")
    if not address:
        return False
    target = "\0" + address[1:] if address.startswith("@") else address
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sender:
            sender.sendto(state.encode(), target)
    except OSError as error:
        log.warning("could not tell systemd %s: %s", state, error)
        return False
    return True
