"""``pbm doctor DOMAIN``: what the DNS says of the game's domain, against what its mail needs.

Gmail and Outlook refuse mail that is not authenticated (deploy/mail-authentication.md). Five
checks read the domain's public DNS: its MX hosts, its SPF policy, the DKIM key at the selector
the MTA signs with, its DMARC policy, and the reverse DNS of the MX hosts' addresses (the MTA
that receives the game's mail also sends pbm's). Each says what it found, and where something is
missing or wrong, the record that mends it, as deploy/mail-authentication.md writes it.

The resolver is given: dnspython's for the real DNS (`system_resolver`), a stub in the tests;
anything with dnspython's ``resolve(qname, rdtype)`` will do.

>>> print(suggested_spf("games.example.org"))
games.example.org. IN TXT "v=spf1 mx -all"
"""

from __future__ import annotations

import base64
import binascii
import enum
import ipaddress
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import dns.exception
import dns.name
import dns.resolver
import dns.reversename

from pbm.mail.provider_check import Tried

DOMAIN = re.compile(r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}")
SHORTEST_RSA_KEY = 1024
"""Receivers ignore signatures by shorter RSA keys (RFC 8301)."""
GOOD_RSA_KEY = 2048


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


class Status(enum.Enum):
    OK = "ok"
    WARNING = "warning"
    """It works, but less well than it should: mail goes, some receivers may frown."""
    MISSING = "missing"
    WRONG = "wrong"
    UNKNOWN = "unknown"
    """The DNS did not answer (or the check lacks what it needs): nothing could be said."""

    @property
    def fails(self) -> bool:
        """The domain is not ready for mail while a check has this status."""
        return self in (Status.MISSING, Status.WRONG, Status.UNKNOWN)


_SEVERITY = [Status.OK, Status.WARNING, Status.UNKNOWN, Status.WRONG, Status.MISSING]


def _worst(statuses: Iterable[Status]) -> Status:
    return max(statuses, key=_SEVERITY.index, default=Status.OK)


@dataclass(frozen=True)
class Finding:
    """One check's verdict: the records it `found`, what is wrong or weak (`notes`), and the
    records that would mend it (`fix`, zone-file lines), added beside what is there or, when
    `replacing`, in the place of what was found."""

    check: str
    status: Status
    found: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    fix: tuple[str, ...] = ()
    replacing: bool = False


class LookupFailed(Exception):
    """The DNS answered neither yes nor no (a timeout, SERVFAIL, no resolver at all)."""


class _Dns:
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


def diagnose(domain: str, selector: str | None, resolver: Resolver) -> list[Finding]:
    """Every check of `domain`, in the order a reader mends them: MX, SPF, DKIM, DMARC, reverse DNS."""
    zone = _Dns(resolver)
    hosts: dict[str, list[str]] = {}

    def mx() -> Finding:
        finding, found_hosts = check_mx(domain, zone)
        hosts.update(found_hosts)
        return finding

    checks = [
        ("MX", mx),
        ("SPF", lambda: check_spf(domain, zone, hosts)),
        (f"DKIM (selector {selector})" if selector else "DKIM", lambda: check_dkim(domain, selector, zone)),
        ("DMARC", lambda: check_dmarc(domain, zone)),
        ("reverse DNS", lambda: check_reverse_dns(hosts, zone)),
    ]
    findings = []
    for name, check in checks:
        try:
            finding = replace(check(), check=name)
        except LookupFailed as failed:
            finding = Finding(name, Status.UNKNOWN, notes=(f"{failed}: try again, or ask another resolver",))
        findings.append(finding)
    return findings


# -- MX --------------------------------------------------------------------------------


def check_mx(domain: str, zone: _Dns) -> tuple[Finding, dict[str, list[str]]]:
    """The domain's MX hosts and their addresses: players' mail reaches pbm through them."""
    records = sorted(zone.records(domain, "MX"), key=lambda record: record.preference)
    if not records:
        return Finding(
            "MX",
            Status.MISSING,
            notes=(f"no MX record: players' mail to {domain} has no host to go to",),
            fix=(f"{domain}. IN MX 10 <the name of the host Postfix runs on>.",),
        ), {}
    if any(record.exchange == dns.name.root for record in records):
        return Finding(
            "MX",
            Status.WRONG,
            found=tuple(f"{domain}. MX {record.preference} {record.exchange}" for record in records),
            notes=("a null MX (RFC 7505): the domain says it takes no mail, so no player's mail reaches pbm",),
        ), {}
    exchanges = [(record.preference, str(record.exchange).rstrip(".")) for record in records]
    hosts = {host: zone.addresses(host) for _, host in exchanges}
    found = tuple(
        f"{domain}. MX {preference} {host}. ({', '.join(hosts[host]) or 'no address'})"
        for preference, host in exchanges
    )
    homeless = [host for host, addresses in hosts.items() if not addresses]
    if homeless:
        return Finding(
            "MX",
            Status.WRONG,
            found=found,
            notes=tuple(f"{host} has no address (A or AAAA): mail cannot reach it" for host in homeless),
            fix=tuple(f"{host}. IN A <its IPv4 address>" for host in homeless),
        ), {host: addresses for host, addresses in hosts.items() if addresses}
    return Finding("MX", Status.OK, found=found), hosts


# -- SPF -------------------------------------------------------------------------------


def suggested_spf(domain: str) -> str:
    """The SPF record of deploy/'s recipe: the MX hosts send the domain's mail, nobody else."""
    return f'{domain}. IN TXT "v=spf1 mx -all"'


def _is_spf(text: str) -> bool:
    return re.match(r"v=spf1(\s|$)", text, re.IGNORECASE) is not None


def check_spf(domain: str, zone: _Dns, hosts: dict[str, list[str]]) -> Finding:
    """One SPF policy, ending in ``-all`` or ``~all``, that lets the MX hosts send."""
    policies = [text for text in zone.texts(domain) if _is_spf(text)]
    if not policies:
        return Finding(
            "SPF",
            Status.MISSING,
            notes=(f"no SPF record: receivers cannot tell which hosts may send mail from {domain}",),
            fix=(suggested_spf(domain),),
        )
    found = tuple(f'{domain}. TXT "{policy}"' for policy in policies)
    if len(policies) > 1:
        return Finding(
            "SPF",
            Status.WRONG,
            found=found,
            notes=("several SPF records: receivers take that as an error (RFC 7208, permerror); keep one",),
            fix=(suggested_spf(domain),),
        )
    words = policies[0].split()[1:]
    terms = [_qualified(word) for word in words]
    everyone = next((qualifier for qualifier, mechanism in terms if mechanism.lower() == "all"), None)
    delegated = any(mechanism.lower().startswith(("include:", "redirect=", "exists:")) for _, mechanism in terms)
    sending = {ipaddress.ip_address(address) for addresses in hosts.values() for address in addresses}
    unnamed = bool(sending) and not delegated and not _lets_send(terms, sending, domain, zone)
    mended = _mended_spf(domain, words, name_mx=unnamed)
    if everyone == "+":
        return Finding(
            "SPF",
            Status.WRONG,
            found=found,
            notes=("+all lets every host on the internet send mail as the domain: end the policy with -all",),
            fix=(mended,),
            replacing=True,
        )
    notes = []
    if everyone is None and not delegated:
        notes.append("the policy does not end with -all: mail from any other host passes as neutral")
    elif everyone == "?":
        notes.append("?all: mail from any other host passes as neutral; end the policy with -all")
    if unnamed:
        notes.append("it names neither mx nor the MX hosts' addresses: mail pbm sends through them fails SPF")
    if notes:
        return Finding("SPF", Status.WARNING, found=found, notes=tuple(notes), fix=(mended,), replacing=True)
    return Finding("SPF", Status.OK, found=found)


def _mended_spf(domain: str, words: list[str], *, name_mx: bool) -> str:
    """The domain's own policy (its terms after ``v=spf1``), mended: ``mx`` named first when the
    MX hosts were not, and ``+all``, ``all`` or ``?all`` made ``-all`` (added when there is none
    and no redirect=); every other term kept as it is.

    >>> print(_mended_spf("games.example.org", ["include:_spf.example.net", "?all"], name_mx=False))
    games.example.org. IN TXT "v=spf1 include:_spf.example.net -all"
    """
    kept = ["-all" if word.lower() in ("all", "+all", "?all") else word for word in words]
    if not any(_qualified(word)[1].lower() == "all" or word.lower().startswith("redirect=") for word in kept):
        kept.append("-all")
    return f'{domain}. IN TXT "{" ".join(["v=spf1", *(["mx"] if name_mx else []), *kept])}"'


def _qualified(term: str) -> tuple[str, str]:
    """(qualifier, mechanism) of an SPF term: ``-all`` is ("-", "all"), ``mx`` is ("+", "mx")."""
    return (term[0], term[1:]) if term[:1] in ("+", "-", "~", "?") else ("+", term)


def _lets_send(
    terms: list[tuple[str, str]],
    sending: set[ipaddress.IPv4Address | ipaddress.IPv6Address],
    domain: str,
    zone: _Dns,
) -> bool:
    """Whether a passing term of the policy covers one of the sending addresses, as far as the
    policy itself says (``mx``, ``a``, ``ip4:``, ``ip6:`` of this domain; includes are not followed)."""
    for qualifier, mechanism in terms:
        if qualifier != "+":
            continue
        name, _, value = mechanism.lower().partition(":")
        name = name.partition("/")[0]  # mx/24 and a/24 widen to a network; the host is still named
        ours = value.partition("/")[0] in ("", domain)
        if name == "mx" and ours:
            return True
        if name == "a" and ours and sending & {ipaddress.ip_address(address) for address in zone.addresses(domain)}:
            return True
        if name in ("ip4", "ip6"):
            try:
                network = ipaddress.ip_network(value, strict=False)
            except ValueError:
                continue
            if any(address in network for address in sending if address.version == network.version):
                return True
    return False


# -- DKIM ------------------------------------------------------------------------------


def _tags(text: str) -> dict[str, str]:
    """The ``tag=value`` list of a DKIM key or DMARC record (RFC 6376 3.2), tags in lower case.

    >>> _tags("v=DKIM1; k=rsa; p=MIIB")
    {'v': 'DKIM1', 'k': 'rsa', 'p': 'MIIB'}
    """
    tags: dict[str, str] = {}
    for item in text.split(";"):
        name, equals, value = item.partition("=")
        if equals:
            tags.setdefault(name.strip().lower(), "".join(value.split()))
    return tags


def _shortened(record: str) -> str:
    """A key record with its long ``p=`` cut, for a line of the report."""
    return re.sub(r"(p=\s*[A-Za-z0-9+/]{12})[A-Za-z0-9+/=\s]{8,}", r"\1...", record)


def check_dkim(domain: str, selector: str | None, zone: _Dns) -> Finding:
    """The public key at ``SELECTOR._domainkey.DOMAIN``: one, an RSA key of 2048 bits or more."""
    if selector is None:
        return Finding(
            "DKIM",
            Status.UNKNOWN,
            notes=("no selector to check: give the one the MTA signs with (--selector, or PBM_DKIM_SELECTOR)",),
        )
    name = f"{selector}._domainkey.{domain}"
    suggested = f'{name}. IN TXT "v=DKIM1; k=rsa; p=<the public key: what dknewkey wrote into the .dns file>"'
    records = zone.texts(name)
    if not records:
        return Finding(
            "DKIM",
            Status.MISSING,
            notes=(f"no key at {name}: receivers cannot check the MTA's signatures",),
            fix=(suggested,),
        )
    found = tuple(f'{name}. TXT "{_shortened(record)}"' for record in records)
    if len(records) > 1:
        return Finding(
            "DKIM", Status.WRONG, found=found, notes=("several TXT records: a receiver may read any; keep one",)
        )
    tags = _tags(records[0])
    problem = _key_problem(tags)
    if problem is not None:
        return Finding("DKIM", Status.WRONG, found=found, notes=(problem,), fix=(suggested,), replacing=True)
    kind = tags.get("k", "rsa").lower()
    notes = []
    if kind == "rsa":
        bits = _rsa_bits(tags["p"])
        assert bits is not None  # _key_problem has read it
        found = (f"{found[0]} (RSA, {bits} bits)",)
        if bits < GOOD_RSA_KEY:
            notes.append(f"a {bits}-bit key: receivers still take it, but make a {GOOD_RSA_KEY}-bit one")
    else:
        notes.append("an ed25519 key alone: many receivers cannot check it yet; sign with an RSA key as well")
    if "y" in tags.get("t", "").lower().split(":"):
        notes.append("t=y: the domain says it is testing DKIM, and receivers may ignore failed signatures")
    return Finding("DKIM", Status.WARNING if notes else Status.OK, found=found, notes=tuple(notes))


def _key_problem(tags: dict[str, str]) -> str | None:
    """What makes a key record unusable, or None when a receiver can check signatures with it."""
    if tags.get("v", "DKIM1") != "DKIM1":
        return f"v={tags['v']}: a key record says v=DKIM1, or nothing"
    if "p" not in tags:
        return "no p= tag: the record holds no key"
    if tags["p"] == "":
        return "p= is empty: the key is revoked, and every signature by it fails"
    kind = tags.get("k", "rsa").lower()
    if kind == "rsa":
        bits = _rsa_bits(tags["p"])
        if bits is None:
            return "p= is not an RSA public key (base64 of its DER form)"
        if bits < SHORTEST_RSA_KEY:
            return f"a {bits}-bit key: receivers ignore signatures by keys under {SHORTEST_RSA_KEY} bits (RFC 8301)"
        return None
    if kind == "ed25519":
        try:
            raw = base64.b64decode(tags["p"], validate=True)
        except binascii.Error:
            raw = b""
        return None if len(raw) == 32 else "p= is not an ed25519 public key (base64 of its 32 bytes)"
    return f"k={kind}: receivers know rsa and ed25519 keys only"


def _rsa_bits(key: str) -> int | None:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
    from cryptography.hazmat.primitives.serialization import load_der_public_key

    try:
        public = load_der_public_key(base64.b64decode(key, validate=True))
    except (ValueError, binascii.Error):
        return None
    return public.key_size if isinstance(public, RSAPublicKey) else None


# -- DMARC -----------------------------------------------------------------------------


def suggested_dmarc(domain: str) -> str:
    """The DMARC record of deploy/'s recipe, strict alignment (pbm's From and envelope domains are the
    game's own), less its report address, which only the administrator can choose."""
    return f'_dmarc.{domain}. IN TXT "v=DMARC1; p=quarantine; adkim=s; aspf=s"'


def _is_dmarc(text: str) -> bool:
    return re.match(r"v\s*=\s*DMARC1\s*(;|$)", text) is not None


def check_dmarc(domain: str, zone: _Dns) -> Finding:
    """A DMARC policy for the domain, its own or its parent's, that asks receivers to act."""
    labels = domain.split(".")
    for owner in (".".join(labels[start:]) for start in range(len(labels) - 1)):
        records = [text for text in zone.texts(f"_dmarc.{owner}") if _is_dmarc(text)]
        if records:
            break
    else:
        return Finding(
            "DMARC",
            Status.MISSING,
            notes=(
                "no DMARC record: Gmail and Outlook refuse bulk mail from a domain without one",
                "with rua=mailto:ADDRESS added, receivers mail daily reports there (an address outside the "
                "game's domain: Postfix takes mail for pbm alone there)",
            ),
            fix=(suggested_dmarc(domain),),
        )
    name = f"_dmarc.{owner}"
    found = tuple(f'{name}. TXT "{record}"' for record in records)
    if len(records) > 1:
        return Finding(
            "DMARC",
            Status.WRONG,
            found=found,
            notes=("several DMARC records: receivers then apply none (RFC 7489, 6.6.3); keep one",),
            fix=(suggested_dmarc(domain),),
        )
    tags = _tags(records[0])
    inherited = owner != domain
    # A parent's record speaks for its subdomains with sp=, else with p=.
    policy = ((tags.get("sp") if inherited else None) or tags.get("p") or "").lower()
    notes = []
    if inherited:
        notes.append(f"{domain} has none of its own: the policy of {owner} applies (sp=, else p=)")
    # The domain's own record is mended in place; a parent's is left alone, and the domain gets its own.
    fix = suggested_dmarc(domain) if inherited else _mended_dmarc(name, records[0])
    if policy not in ("none", "quarantine", "reject"):
        return Finding(
            "DMARC",
            Status.WRONG,
            found=found,
            notes=(*notes, f"p={policy or '(missing)'}: the policy is none, quarantine or reject"),
            fix=(fix,),
            replacing=not inherited,
        )
    if policy == "none":
        notes.append(
            "p=none: receivers are asked to do nothing with mail that fails; once the reports show "
            "pbm's mail passing, ask them to quarantine it"
        )
    percent = tags.get("pct", "100")
    if percent != "100":
        notes.append(f"pct={percent}: the policy covers only part of the mail that fails")
    if policy == "none" or percent != "100":
        return Finding("DMARC", Status.WARNING, found=found, notes=tuple(notes), fix=(fix,), replacing=not inherited)
    return Finding("DMARC", Status.OK, found=found, notes=tuple(notes))


def _mended_dmarc(name: str, record: str) -> str:
    """A DMARC record asking receivers to quarantine all the mail that fails, its other tags kept.

    >>> print(_mended_dmarc("_dmarc.games.example.org", "v=DMARC1; p=none; pct=20; rua=mailto:d@example.org"))
    _dmarc.games.example.org. IN TXT "v=DMARC1; p=quarantine; rua=mailto:d@example.org"
    """
    mended = []
    for part in (part.strip() for part in record.split(";")):
        tag, _, value = part.partition("=")
        tag = tag.strip().lower()
        if tag == "p" and value.strip().lower() != "reject":
            mended.append("p=quarantine")
        elif part and tag != "pct":
            mended.append(part)
    if not any(part.lower().startswith("p=") for part in mended):
        mended.insert(1, "p=quarantine")
    return f'{name}. IN TXT "{"; ".join(mended)}"'


# -- reverse DNS -----------------------------------------------------------------------


def check_reverse_dns(hosts: dict[str, list[str]], zone: _Dns) -> Finding:
    """Each address of each MX host names a host (PTR) whose name leads back to that address.

    Large receivers refuse mail from an address without it; the sending MTA must also greet
    with that name (Postfix's smtp_helo_name, by default myhostname).
    """
    if not hosts:
        return Finding("reverse DNS", Status.UNKNOWN, notes=("no MX host with an address to check",))
    statuses, found, notes, fix = [], [], [], []
    replacing = False
    for host, addresses in hosts.items():
        for address in addresses:
            reverse = dns.reversename.from_address(address).to_text()
            names = [str(record.target) for record in zone.records(reverse, "PTR")]
            if not names:
                statuses.append(Status.MISSING)
                notes.append(f"{address} ({host}) has no PTR record: its owner (the hosting provider) sets it")
                fix.append(f"{reverse} IN PTR {host}.")
                continue
            if len(names) > 1:
                statuses.append(Status.WARNING)
                notes.append(f"{address} has several PTR records: receivers read one, any one; keep one")
            for name in names:
                forward = zone.addresses(name)
                found.append(f"{address} -> {name} -> {', '.join(forward) or 'no address'}")
                if ipaddress.ip_address(address) not in {ipaddress.ip_address(back) for back in forward}:
                    statuses.append(Status.WRONG)
                    notes.append(
                        f"{address}'s PTR names {name}, which does not lead back to {address}: "
                        f"point the PTR at {host}. (or give {name} that address)"
                    )
                    fix.append(f"{reverse} IN PTR {host}.")
                    replacing = True
                else:
                    statuses.append(Status.OK)
                    if name.rstrip(".").lower() != host.lower():
                        notes.append(f"the MTA at {address} must greet as {name.rstrip('.')} (smtp_helo_name)")
    return Finding("reverse DNS", _worst(statuses), tuple(found), tuple(notes), tuple(fix), replacing)


# -- the report ------------------------------------------------------------------------


def report(domain: str, findings: list[Finding]) -> list[str]:
    """The lines ``pbm doctor`` prints: each check, what it found, what to do; then the verdict."""
    lines = []
    for finding in findings:
        lines.append(f"{finding.check}: {finding.status.value}")
        lines += [f"  {'found':<9} {record}" for record in finding.found]
        lines += [f"  {note}" for note in finding.notes]
        verb = "change to" if finding.replacing else "add"
        lines += [f"  {verb:<9} {record}" for record in finding.fix]
    failing = [finding.check for finding in findings if finding.status.fails]
    warned = [finding.check for finding in findings if finding.status is Status.WARNING]
    if failing:
        lines.append(f"{domain} is not ready for mail: {', '.join(failing)} to mend")
    elif warned:
        lines.append(f"{domain} is ready for mail, with warnings about {', '.join(warned)}")
    else:
        lines.append(f"{domain} is ready for mail")
    return lines


def exit_status(findings: list[Finding]) -> int:
    """1 when a check finds something required missing or wrong, or could not tell; else 0."""
    return 1 if any(finding.status.fails for finding in findings) else 0


# -- a club's mailbox at a provider ----------------------------------------------------


@dataclass(frozen=True)
class ProviderSetup:
    """What ``pbm doctor`` checks of a club whose mail is a mailbox at a provider (PBM_INBOUND)."""

    address: str
    inbound: str
    outbound: str
    outbound_kind: str
    max_per_day: int | None
    password_file: str | None
    password_command: bool
    mailbox: Tried | None = None
    """What logging in to the mailbox found (`pbm.mail.provider_check`); None: not tried."""
    submission: Tried | None = None
    """What logging in to the submission service found; None: not tried."""


WITHOUT = {
    "IDLE": "new mail is looked for every 30 seconds instead of at once",
    "MOVE": "a read mail is copied, marked deleted and expunged instead of moved",
}
"""What pbm does without each IMAP extension it uses."""


def _tried(check: str, door: str, tried: Tried) -> Finding:
    if not tried.ok:
        return Finding(check, Status.WRONG, found=(door,), notes=(tried.said,))
    if tried.lacking:
        notes = tuple(f"the server offers no {name}: {WITHOUT[name]}" for name in tried.lacking)
        return Finding(check, Status.WARNING, found=(f"{door}: {tried.said}",), notes=notes)
    return Finding(check, Status.OK, found=(f"{door}: {tried.said}",))


def diagnose_provider(setup: ProviderSetup) -> list[Finding]:
    """With a mailbox at a provider, the provider receives, signs and sends: no MX, DKIM or reverse
    DNS of the club's own to check. What matters is that plus addresses reach the mailbox, that
    replies go out through the provider, within its daily limit, that the secret is kept, and
    that the provider takes it (the logins `setup` tried)."""
    local, _, domain = setup.address.rpartition("@")
    plus = Finding(
        "plus addressing",
        Status.OK,
        found=(f"replies come to {local}+TOKEN@{domain}",),
        notes=(
            "the provider must deliver them to the same mailbox (Fastmail, Migadu, Gmail, Microsoft 365 and"
            " most others do): mail "
            f"{local}+test@{domain} and see it arrive in {setup.inbound}",
        ),
    )
    if setup.outbound_kind in ("submission", "smtps"):
        sending = Finding("sending", Status.OK, found=(setup.outbound,))
    else:
        sending = Finding(
            "sending",
            Status.WARNING,
            found=(setup.outbound,),
            notes=("replies do not go through the provider: set PBM_OUTBOUND=submission://USER@HOST:587",),
        )
    if setup.max_per_day is None:
        limit = Finding(
            "sending limit",
            Status.WARNING,
            notes=(
                "providers cap the mails an account sends in a day (often 300 to 2 000): set"
                " PBM_OUTBOUND_MAX_PER_DAY a little under yours, so mail waits in the outbox instead of bouncing",
            ),
        )
    else:
        limit = Finding("sending limit", Status.OK, found=(f"PBM_OUTBOUND_MAX_PER_DAY={setup.max_per_day}",))
    tried = []
    if setup.mailbox is not None:
        tried.append(_tried("mailbox", setup.inbound, setup.mailbox))
    if setup.submission is not None:
        tried.append(_tried("submission", setup.outbound, setup.submission))
    return [plus, sending, limit, _secret_finding(setup), *tried]


def _secret_finding(setup: ProviderSetup) -> Finding:
    if setup.password_command:
        return Finding("password", Status.OK, found=("PBM_MAIL_PASSWORD_COMMAND",))
    if setup.password_file is None:
        return Finding("password", Status.MISSING, notes=("set PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND",))
    try:
        mode = os.stat(setup.password_file).st_mode
    except OSError as error:
        return Finding("password", Status.WRONG, notes=(f"{setup.password_file}: {error.strerror}",))
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return Finding(
            "password",
            Status.WARNING,
            found=(setup.password_file,),
            notes=(f"others may read it: chmod 600 {setup.password_file}",),
        )
    return Finding("password", Status.OK, found=(setup.password_file,))
