"""The domain's SPF policy: one record, naming the hosts that send pbm's mail."""

from __future__ import annotations

import ipaddress
import re

from pbm.doctor.findings import Finding, Status
from pbm.doctor.zone import Zone


def suggested_spf(domain: str) -> str:
    """The SPF record of deploy/'s recipe: the MX hosts send the domain's mail, nobody else."""
    return f'{domain}. IN TXT "v=spf1 mx -all"'


def _is_spf(text: str) -> bool:
    return re.match(r"v=spf1(\s|$)", text, re.IGNORECASE) is not None


def check_spf(domain: str, zone: Zone, hosts: dict[str, list[str]]) -> Finding:
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
    zone: Zone,
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
