"""The host that sent a mail, where it can be known: something a limit can count that an attacker
cannot change for free, as they change a From address.

That host is the SMTP peer, unless the peer is this machine: our own MTA in
front of the server (or `pbm process`, its pipe). Then it is the client
address our MTA wrote into the topmost ``Received`` header, the one it adds
on top of whatever the mail carried. An IPv6 address counts by its /64,
which one subscriber gets whole.

>>> sending_host("198.51.100.7", b"Subject: hi\\r\\n\\r\\nhelp\\r\\n")
'198.51.100.7'
>>> trace = b"Received: from mx.example (mx.example [203.0.113.5])\\r\\n\\tby us (Postfix)\\r\\n"
>>> sending_host("127.0.0.1", trace + b"Received: from x ([192.0.2.1]) by mx.example\\r\\n\\r\\nhelp")
'203.0.113.5'
>>> sending_host("pbm process", b"Received: from a (a [IPv6:2001:db8:1:2:3:4:5:6]) by us\\n\\nhelp")
'2001:db8:1:2::/64'
>>> sending_host("::1", b"Subject: no trace\\n\\nhelp") is None
True
"""

from __future__ import annotations

import ipaddress
import re

LOCAL_PEERS = ("", "pbm process")
"""Peers that stand for this machine's MTA besides loopback addresses: none recorded, or the pipe."""
HEAD_BYTES = 64 * 1024
"""How far into a mail its topmost Received header is looked for."""
_BRACKETED = re.compile(rb"\[(?:IPv6:)?([0-9A-Fa-f:.]{2,45})\]")
_BY = re.compile(rb"\sby\s", re.IGNORECASE)


def sending_host(peer: str, raw: bytes) -> str | None:
    """The host that handed `raw` to us (an IPv4 address, or an IPv6 /64), or None where unknown."""
    if peer not in LOCAL_PEERS:
        address = _ip(peer.encode("ascii", "replace"))
        if address is not None and not address.is_loopback:
            return _counted(address)
    trace = _topmost_received(raw[:HEAD_BYTES])
    if trace is None:
        return None
    client = _BRACKETED.search(_BY.split(trace, maxsplit=1)[0])
    address = _ip(client[1]) if client else None
    return _counted(address) if address is not None else None


def _topmost_received(head: bytes) -> bytes | None:
    """The value of the first Received field of the header block in `head`, unfolded."""
    found: list[bytes] | None = None
    for line in head.replace(b"\r\n", b"\n").split(b"\n"):
        if not line:
            break
        if found is not None:
            if line[:1] in (b" ", b"\t"):
                found.append(line)
                continue
            break
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"received":
            found = [value]
    return b" ".join(found) if found is not None else None


def _ip(text: bytes) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.decode("ascii").strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _counted(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
