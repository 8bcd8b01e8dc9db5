"""The bounds of reading one received mail (`MailLimits`): what `pbm.mail.parse` and the MIME and
HTML readers below it may spend on it, in one place so that each can be given them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MailLimits:
    """What reading one mail may cost.  Past a limit the rest is cut, with a note.

    No mail a client writes comes near these; with them, the costliest crafted mail we
    know takes under a second of CPU and about 100 MB (``benchmarks/mail_reading.py``).
    """

    max_headers: int = 500
    """Header fields read.  Real mail has 10 to 100 (each relay adds a few)."""
    max_header_length: int = 998
    """Characters of one header value (unfolded) that are read: RFC 5322's line length.
    The email library parses a structured header in time quadratic in its length, for
    every part; 998 characters hold any address, Content-Type or filename a client
    writes.  Of References the end is kept: the newest Message-IDs, which threading
    needs."""
    max_parts: int = 100
    """MIME parts, attached messages included.  A reply with twenty photos has 25."""
    max_depth: int = 16
    """MIME nesting.  A client nests three deep (mixed, alternative, related) and each
    forwarded message adds about four; every line of the mail is checked against
    every open boundary, so the cost grows with the depth."""
    max_body_chars: int = 100_000
    """Characters of text kept from the chosen body part.  Commands are a few lines and
    a comment at the top, or below one quoted board; what is cut is old quotes."""
    max_html_chars: int = 1_000_000
    """Characters of HTML converted to text: as large as the largest mail the SMTP
    listener takes (1 MB); converting it costs about half a second."""
    max_html_nesting: int = 32
    """Lists and quotes nested in HTML.  The converter indents each line by the depth,
    so a deeply nested mail makes text quadratic in its size; a mail client nests
    quotes once per reply in a thread.  Deeper markup is read as text without its
    layout (and without its quote marks)."""
    max_subject_chars: int = 500
    """Characters of the Subject kept.  A command there is one line of a few dozen."""
