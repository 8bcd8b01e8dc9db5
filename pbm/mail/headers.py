"""What a value taken from a received mail may contain before it goes anywhere.

Received mail is hostile. A Message-ID or an address copied from it into an
outgoing header could carry a line break (raw, or hidden in an RFC 2047
encoded word that a mail library decodes on the way), and so write a header
line or a MIME part of the attacker's choosing into mail sent from the
server's own address. Every such value is reduced here to the one shape it
may have, or dropped; nothing else is ever copied from a received mail into
a header.

>>> message_id('=?utf-8?q?<x@y>=0D=0ABcc:_a@evil.test?=')
>>> message_id(' <abc.123@client.example> (comment)')
'<abc.123@client.example>'
>>> message_ids('<a@x> <b@y>\\r\\n <c@z>')
('<a@x>', '<b@y>', '<c@z>')
"""

from __future__ import annotations

import re

from pbm.addresses import ATEXT

MAX_MESSAGE_ID = 250
"""Longest Message-ID kept: a References header of several still folds within 998 octets a line."""

# RFC 5322 atext (`pbm.addresses.ATEXT`), "." for dot-atoms; "@", "[" and "]" for the right-hand side.
_MESSAGE_ID = re.compile(rf"<([{ATEXT}.@\[\]]{{1,{MAX_MESSAGE_ID - 2}}})>")


def message_id(value: str | None) -> str | None:
    """The first well-formed ``<...>`` Message-ID in `value`, or ``None``.

    The value is read as sent: an RFC 2047 encoded word is never decoded, and
    a value containing one (``=?``) is refused whole, so no library down the
    line can decode it into something else.
    """
    ids = _ids(value)
    return ids[0] if ids else None


def message_ids(value: str | None, *, limit: int = 20) -> tuple[str, ...]:
    """The well-formed Message-IDs in `value` (a References header), the last `limit` of them."""
    return tuple(_ids(value)[-limit:])


def _ids(value: str | None) -> list[str]:
    if not value or "=?" in value:
        return []
    return [m.group() for m in _MESSAGE_ID.finditer(value)]
