"""When two mail addresses name one mailbox, for everything pbm counts or matches by address.

The policy: an address is compared without regard to letter case, in its
domain (DNS names are case-insensitive) and in its local part too. RFC 5321
allows a mail system to tell ``Bob`` from ``bob``, but none in common use
does, and anything else would let one mailbox be written five ways to pass a
limit five times. Nothing else is folded: ``bob+games@`` and ``b.o.b@`` are
other addresses (some providers deliver them to bob's mailbox, others to
someone else's). Mail is still written to an address as it was given.

`comparable` is the policy in Python and `comparable_column` the same in SQL,
for queries and indexes; the addresses pbm writes to are ASCII, where both
agree on every backend.

`mail_address` is the one shape an address taken from a received mail may have before it is
written anywhere (received mail is hostile: see `pbm.mail.headers`), `masked_address` what a
log line may show of one.

>>> mail_address('Bob@Example.ORG')
'Bob@example.org'
>>> mail_address('bob@example.org\\r\\nBcc: eve@evil.test') is None
True
>>> mail_address('=?utf-8?q?bob=0D=0A?=@example.org') is None
True
>>> comparable("Victim@Target.Example")
'victim@target.example'
>>> distinct(["Bob@example.org", "alice@example.org", "bob@EXAMPLE.org"])
['Bob@example.org', 'alice@example.org']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlalchemy import ColumnElement, ColumnExpressionArgument, func

from pbm.i18n.text import one_line

MAX_ADDRESS = 254
"""Longest mail address (RFC 5321: a path is at most 256 octets, brackets included)."""
MAX_LOCAL_PART = 64

ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-"
"""RFC 5322 atext: the characters of a dot-atom's words."""
_LOCAL_PART = re.compile(rf"[{ATEXT}]+(?:\.[{ATEXT}]+)*")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"(?:{_LABEL}\.)*{_LABEL}")
_AUTHSERV_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


def comparable(address: str) -> str:
    """The form of `address` that equals every other spelling of the same mailbox."""
    return address.lower()


def comparable_column(column: ColumnExpressionArgument[str | None]) -> ColumnElement[str]:
    """`comparable` in SQL, for a column holding addresses."""
    return func.lower(column)


def same(first: str, second: str) -> bool:
    return comparable(first) == comparable(second)


def distinct(addresses: Iterable[str]) -> list[str]:
    """`addresses` in order, each mailbox once (as first spelt)."""
    first: dict[str, str] = {}
    for address in addresses:
        first.setdefault(comparable(address), address)
    return list(first.values())


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


def is_authserv_id(text: str) -> bool:
    """Whether `text` may be an authserv-id (RFC 8601; a host name, as MTAs use): what
    ``PBM_TRUSTED_AUTHSERV_ID`` may be (`pbm.mail.authentication`)."""
    return _AUTHSERV_ID.fullmatch(text) is not None
