"""Text from outside, made safe to keep on one line: in a header, a log line or a stored record;
and words said to a reader, made a sentence.

Pure, with no other part of pbm, so every layer may use it (the store keeps envelope
addresses cleaned by it; the mail layer writes headers with it).

>>> one_line('Re: board\\r\\nBcc: x\\x00', limit=40)
'Re: board Bcc: x'
"""

from __future__ import annotations

import re

_NOT_IN_A_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+")


def one_line(text: str, *, limit: int) -> str:
    """`text` as one line of at most `limit` characters: no control characters, no
    line breaks, no lone surrogates (which no mail can encode), runs of white space as one."""
    cleaned = _NOT_IN_A_LINE.sub(" ", text.replace("\t", " ").replace("\xa0", " "))
    return " ".join(cleaned.split())[:limit].rstrip()


def capital(text: str) -> str:
    """`text` starting with a capital letter."""
    return text[:1].upper() + text[1:]


def sentence(message: str) -> str:
    """A reason as a mail prints it, ending in a full stop (or ? ! :)."""
    return message if message.endswith((".", "?", "!", ":")) else message + "."
