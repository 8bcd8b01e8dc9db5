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
>>> mail_address('Bob@Example.ORG')
'Bob@example.org'
>>> mail_address('bob@example.org\\r\\nBcc: eve@evil.test') is None
True
>>> mail_address('=?utf-8?q?bob=0D=0A?=@example.org') is None
True
"""

from __future__ import annotations

import re

from pbm.i18n.text import one_line

MAX_MESSAGE_ID = 250
"""Longest Message-ID kept: a References header of several still folds within 998 octets a line."""
MAX_ADDRESS = 254
"""Longest mail address (RFC 5321: a path is at most 256 octets, brackets included)."""
MAX_LOCAL_PART = 64

# RFC 5322 atext, and "." for dot-atoms; "@", "[" and "]" for the right-hand side.
_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-"
_MESSAGE_ID = re.compile(rf"<([{_ATEXT}.@\[\]]{{1,{MAX_MESSAGE_ID - 2}}})>")
_LOCAL_PART = re.compile(rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"(?:{_LABEL}\.)*{_LABEL}")


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


def mail_address(value: str | None) -> str | None:
    """`value` if it is a plain ASCII ``local@domain`` address we can write to, else ``None``.

    The domain is lower-cased; the local part is kept as given (it may be
    case-sensitive). Quoted local parts, comments and address literals are
    refused: nobody needs them to play, and each is a way to smuggle text.
    """
    if value is None:
        return None
    text = value.strip()
    if not text.isascii() or len(text) > MAX_ADDRESS or "=?" in text:
        return None  # "=?": an encoded word, which some library down the line would decode
    local, at, domain = text.rpartition("@")
    if not at or len(local) > MAX_LOCAL_PART:
        return None
    domain = domain.rstrip(".")
    if not _LOCAL_PART.fullmatch(local) or not _DOMAIN.fullmatch(domain):
        return None
    return f"{local}@{domain.lower()}"


def masked_address(address: str | None) -> str:
    """An address as a log line may show it: ``a***@example.org``; never the whole of it."""
    if not address:
        return "-"
    local, at, domain = address.rpartition("@")
    if not at:
        return "***"
    return f"{local[:1]}***@{one_line(domain, limit=64)}"
