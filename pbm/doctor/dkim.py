"""The DKIM key at the selector the MTA signs with: one, an RSA key long enough to be trusted."""

from __future__ import annotations

import base64
import binascii
import re

from pbm.doctor.findings import Finding, Status
from pbm.doctor.zone import Zone, tags_of

SHORTEST_RSA_KEY = 1024


"""Receivers ignore signatures by shorter RSA keys (RFC 8301)."""


GOOD_RSA_KEY = 2048


def _shortened(record: str) -> str:
    """A key record with its long ``p=`` cut, for a line of the report."""
    return re.sub(r"(p=\s*[A-Za-z0-9+/]{12})[A-Za-z0-9+/=\s]{8,}", r"\1...", record)


def check_dkim(domain: str, selector: str | None, zone: Zone) -> Finding:
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
    tags = tags_of(records[0])
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
