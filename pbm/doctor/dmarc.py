"""The domain's DMARC policy (or its organisational domain's): one record, that asks for reports."""

from __future__ import annotations

import re

from pbm.doctor.findings import Finding, Status
from pbm.doctor.zone import Zone, tags_of


def suggested_dmarc(domain: str) -> str:
    """The DMARC record of deploy/'s recipe, strict alignment (pbm's From and envelope domains are the
    game's own), less its report address, which only the administrator can choose."""
    return f'_dmarc.{domain}. IN TXT "v=DMARC1; p=quarantine; adkim=s; aspf=s"'


def _is_dmarc(text: str) -> bool:
    return re.match(r"v\s*=\s*DMARC1\s*(;|$)", text) is not None


def check_dmarc(domain: str, zone: Zone) -> Finding:
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
    tags = tags_of(records[0])
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
