"""The domain's MX hosts, through which players' mail reaches pbm, and their reverse DNS (the MTA that receives
the game's mail also sends pbm's)."""

from __future__ import annotations

import ipaddress

import dns.exception
import dns.name
import dns.resolver
import dns.reversename

from pbm.doctor.findings import Finding, Status, worst
from pbm.doctor.zone import Zone


def check_mx(domain: str, zone: Zone) -> tuple[Finding, dict[str, list[str]]]:
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


def check_reverse_dns(hosts: dict[str, list[str]], zone: Zone) -> Finding:
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
    return Finding("reverse DNS", worst(statuses), tuple(found), tuple(notes), tuple(fix), replacing)
