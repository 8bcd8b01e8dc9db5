"""The DNS as the checks read it: a resolver's answers, kept for the run, and the tag lists of DKIM
and DMARC records."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import dns.exception
import dns.name
import dns.resolver
import dns.reversename


class Resolver(Protocol):
    """What `diagnose` asks of a resolver: dnspython's ``Resolver.resolve``, answering the
    records at `qname` (raising NXDOMAIN or NoAnswer when there are none)."""

    def resolve(self, qname: str, rdtype: str) -> Iterable[Any]: ...


def system_resolver() -> Resolver:
    """The machine's resolver (/etc/resolv.conf), giving each name five seconds."""
    try:
        resolver = dns.resolver.Resolver()
    except dns.exception.DNSException as error:
        raise LookupFailed(f"no resolver: {error}") from None
    resolver.lifetime = 5.0
    return resolver


class LookupFailed(Exception):
    """The DNS answered neither yes nor no (a timeout, SERVFAIL, no resolver at all)."""


class Zone:
    """Lookups through the resolver: no records is an empty list; no answer raises `LookupFailed`."""

    def __init__(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._answers: dict[tuple[str, str], list[Any]] = {}

    def records(self, name: str, rdtype: str) -> list[Any]:
        qname = name if name.endswith(".") else name + "."
        if (qname, rdtype) not in self._answers:
            try:
                answer = list(self._resolver.resolve(qname, rdtype))
            except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
                answer = []
            except dns.exception.DNSException as error:
                raise LookupFailed(f"no answer for {qname} {rdtype}: {str(error) or type(error).__name__}") from None
            self._answers[qname, rdtype] = answer
        return self._answers[qname, rdtype]

    def texts(self, name: str) -> list[str]:
        """The TXT records at `name`, each one string (a record's strings are one text, RFC 7208 3.3)."""
        return [b"".join(record.strings).decode("utf-8", "replace") for record in self.records(name, "TXT")]

    def addresses(self, host: str) -> list[str]:
        return [str(record.address) for rdtype in ("A", "AAAA") for record in self.records(host, rdtype)]


def tags_of(text: str) -> dict[str, str]:
    """The ``tag=value`` list of a DKIM key or DMARC record (RFC 6376 3.2), tags in lower case.

    >>> tags_of("v=DKIM1; k=rsa; p=MIIB")
    {'v': 'DKIM1', 'k': 'rsa', 'p': 'MIIB'}
    """
    tags: dict[str, str] = {}
    for item in text.split(";"):
        name, equals, value = item.partition("=")
        if equals:
            tags.setdefault(name.strip().lower(), "".join(value.split()))
    return tags
