"""What our own MTA found of a received mail's authenticity: its DMARC result, from the one
``Authentication-Results`` header (RFC 8601) that MTA wrote.

Anyone can write an ``Authentication-Results`` header into a mail. Only the one our MTA added,
naming itself by its authserv-id (``PBM_TRUSTED_AUTHSERV_ID``), says anything: an MTA adds its
header at the top, so the topmost header with that id is its own, and any below it came with
the mail (RFC 8601, section 5: an MTA should remove such forgeries; the topmost is read
whether it did or not). Without a trusted id nothing is read.

Pure and bounded: the header section read is cut at `MOST_READ` bytes, its lines at
`LONGEST_FIELD`, and every pattern runs in time linear in what it reads.

>>> raw = (b"Authentication-Results: mx.example.org; dmarc=fail (p=reject) header.from=example.net\\r\\n"
...        b"Authentication-Results: mx.example.org; dmarc=pass header.from=example.net\\r\\n\\r\\nbody")
>>> dmarc_result(raw, "mx.example.org"), dmarc_result(raw, "other.example"), dmarc_result(raw, None)
('fail', None, None)
"""

from __future__ import annotations

import re

MOST_READ = 64 * 1024
"""Bytes of a mail's header section read: the MTA's own header is at its top."""
LONGEST_FIELD = 4096
"""Characters of one unfolded header field read."""
_COMMENT = re.compile(r"\([^()]*\)")
_DMARC = re.compile(r"(?:^|;)\s*dmarc\s*=\s*([a-z]{1,16})\b", re.I)
RESULTS = frozenset({"pass", "fail", "none", "temperror", "permerror", "bestguesspass"})


def dmarc_result(raw: bytes, authserv_id: str | None) -> str | None:
    """The DMARC result (``pass``, ``fail``, ``none``, ...) in the topmost Authentication-Results
    header `authserv_id` wrote; None when no id is trusted, no such header is there, or it gives
    no DMARC result."""
    if not authserv_id:
        return None
    for name, value in _fields(raw[:MOST_READ]):
        if name != "authentication-results":
            continue
        written_by, _, results = value.partition(";")
        if written_by.split()[:1] != [authserv_id.lower()]:
            continue  # another server's, or a forgery naming no one we trust: not ours to read
        found = _DMARC.search(";" + _without_comments(results))
        result = found[1].lower() if found else None
        return result if result in RESULTS else None
    return None


def _fields(raw: bytes) -> list[tuple[str, str]]:
    """The header fields of `raw`, in order, unfolded: (lower-case name, value)."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    fields: list[tuple[str, str]] = []
    for line in head.decode("latin-1").splitlines():
        if line[:1] in (" ", "\t") and fields:
            name, value = fields[-1]
            fields[-1] = (name, (value + " " + line.strip().lower())[:LONGEST_FIELD])
        elif ":" in line:
            name, _, value = line.partition(":")
            fields.append((name.strip().lower(), value.strip()[:LONGEST_FIELD].lower()))
    return fields


def _without_comments(text: str) -> str:
    """`text` without its (parenthesised) comments, nested ones included, in bounded passes."""
    for _ in range(8):
        stripped = _COMMENT.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    return text
