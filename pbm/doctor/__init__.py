"""``pbm doctor DOMAIN``: what the DNS says of the game's domain, against what its mail needs.

Gmail and Outlook refuse mail that is not authenticated (deploy/mail-authentication.md). Five
checks read the domain's public DNS: its MX hosts, its SPF policy, the DKIM key at the selector
the MTA signs with, its DMARC policy, and the reverse DNS of the MX hosts' addresses (the MTA
that receives the game's mail also sends pbm's). Each says what it found, and where something is
missing or wrong, the record that mends it, as deploy/mail-authentication.md writes it.

The resolver is given: dnspython's for the real DNS (`system_resolver`), a stub in the tests;
anything with dnspython's ``resolve(qname, rdtype)`` will do.

A check is a module each: `mx` (the MX hosts and their reverse DNS), `spf`, `dkim`, `dmarc`, and
`provider` for a club whose mail is a mailbox at a provider; `zone` reads the DNS, `findings`
holds what a check says.

>>> print(suggested_spf("games.example.org"))
games.example.org. IN TXT "v=spf1 mx -all"
"""

from __future__ import annotations

import re
from dataclasses import replace

from pbm.doctor.dkim import check_dkim
from pbm.doctor.dmarc import check_dmarc, suggested_dmarc
from pbm.doctor.findings import Finding, Status
from pbm.doctor.mx import check_mx, check_reverse_dns
from pbm.doctor.provider import ProviderSetup, diagnose_provider
from pbm.doctor.spf import check_spf, suggested_spf
from pbm.doctor.zone import LookupFailed, Resolver, Zone, system_resolver

__all__ = [
    "DOMAIN",
    "Finding",
    "LookupFailed",
    "ProviderSetup",
    "Resolver",
    "Status",
    "check_dkim",
    "check_dmarc",
    "check_mx",
    "check_reverse_dns",
    "check_spf",
    "diagnose",
    "diagnose_provider",
    "exit_status",
    "report",
    "suggested_dmarc",
    "suggested_spf",
    "system_resolver",
]

DOMAIN = re.compile(r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}")


def diagnose(domain: str, selector: str | None, resolver: Resolver) -> list[Finding]:
    """Every check of `domain`, in the order a reader mends them: MX, SPF, DKIM, DMARC, reverse DNS."""
    zone = Zone(resolver)
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
