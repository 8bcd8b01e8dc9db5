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

>>> comparable("Victim@Target.Example")
'victim@target.example'
>>> distinct(["Bob@example.org", "alice@example.org", "bob@EXAMPLE.org"])
['Bob@example.org', 'alice@example.org']
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, ColumnExpressionArgument, func


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
