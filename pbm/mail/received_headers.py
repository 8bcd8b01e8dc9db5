"""The headers of a received mail, read safely: cut to a length, parsed once, never trusted.

The email library parses a structured header in time quadratic in its
length, raises on values such as ``From: <``, and decodes RFC 2047 encoded
words into line breaks. Here header values are cut before it sees them,
read raw where its parser would raise, and reduced to one clean line (no
control characters, no line breaks: nothing read can become a header line of
a reply).
"""

from __future__ import annotations

import re
from email import errors, policy
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import parseaddr
from typing import Any

from pbm.addresses import mail_address
from pbm.facts import Fact
from pbm.mail.charsets import decode_fallback

MAX_HEADER_LENGTH = 998
"""RFC 5322's line length: the default cut of a header value (`MailLimits.max_header_length`)."""


class ReadingPolicy(EmailPolicy):
    """``policy.default``, except that a header value is cut to ``max_header_length``
    before the library parses it (its parser is quadratic in the length), and parsed
    once: the parser and ``get_content_type`` ask for Content-Type seven times a part."""

    max_header_length = MAX_HEADER_LENGTH
    _parsed: dict[tuple[str, str], Any]

    def __init__(self, **kw: Any) -> None:
        object.__setattr__(self, "_parsed", {})  # as EmailPolicy sets its header_factory
        super().__init__(**kw)

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if not isinstance(value, str):
            return super().header_fetch_parse(name, value)
        key = (name.lower(), value[: self.max_header_length])
        if key not in self._parsed:
            try:
                self._parsed[key] = super().header_fetch_parse(name, key[1])
            except Exception:
                # An encoded word that decodes to a lone surrogate, among others.  The
                # library reads MIME headers as plain strings just as well.
                self._parsed[key] = clean_line(re.sub(r"\r?\n", "", key[1]))
        return self._parsed[key]


# Headers whose cut is worth a note: the ones a reply is built from.
_NOTED_HEADERS = {
    "from": "From",
    "subject": "Subject",
    "message-id": "Message-ID",
    "in-reply-to": "In-Reply-To",
    "references": "References",
}


class Headers:
    """Header values as sent: 8-bit bytes decoded, unfolded, cut to the limit, not yet
    RFC 2047-decoded.  The first ``max_headers`` fields only.

    Reading them raw (``raw_items``) instead of through ``msg[name]`` matters:
    ``policy.default`` builds a parsed header object on access, and its address
    parser raises IndexError on values such as ``From: <``.
    """

    def __init__(self, msg: EmailMessage, *, max_headers: int, max_header_length: int) -> None:
        self._values: dict[str, list[str]] = {}
        self.notes: list[Fact] = []
        length = max_header_length
        cut: set[str] = set()
        for count, (name, value) in enumerate(msg.raw_items()):
            if count == max_headers:
                self.notes.append(Fact("note-too-many-headers", count=count))
                break
            key = name.strip().lower()
            text = _header_source(value)
            if len(text) > length:
                text = text[-length:] if key == "references" else text[:length]
                cut.add(key)
            self._values.setdefault(key, []).append(text)
        for key in sorted(cut & _NOTED_HEADERS.keys()):
            self.notes.append(Fact("note-header-cut", header=_NOTED_HEADERS[key], length=length))

    def first(self, name: str) -> str:
        values = self._values.get(name)
        return values[0] if values else ""

    def all(self, name: str) -> list[str]:
        return self._values.get(name, [])

    def __contains__(self, name: str) -> bool:
        return name in self._values


def _header_source(value: str) -> str:
    # The bytes parser keeps 8-bit header bytes as surrogate escapes.  Raw UTF-8 in
    # headers is legal (RFC 6532) and Latin-1 is common in old clients.
    raw = value.encode("utf-8", "surrogateescape")
    text, _ = decode_fallback(raw)
    text = re.sub(r"\r?\n(?=[ \t])", "", text)  # unfold
    return clean_line(text).strip()


def decoded_header(value: str) -> str:
    """RFC 2047 encoded words decoded; control characters gone; stripped."""
    if "=?" not in value:
        return value.strip()
    try:
        decoded = str(policy.default.header_factory("subject", value))
    except Exception:  # UnicodeEncodeError from a utf-7 encoded word, among others
        return value.strip()
    return clean_line(decoded).strip()


# Characters that end a line or separate words somewhere (str.splitlines breaks at
# all of them): a space in one-line text.
_SPACE_IN_LINE = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1f\x85\xa0\u2028\u2029]")
# Control characters (C0, DEL, C1) and lone surrogates (a utf-7 decoder's output,
# which no mail can encode): never in any text we return.
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def clean_line(text: str) -> str:
    """One-line header text: no line breaks or control characters (no header injection
    when a value is echoed into a reply), tabs and NBSP as plain spaces."""
    return _UNWRITABLE.sub("", _SPACE_IN_LINE.sub(" ", text))


def sender(headers: Headers) -> tuple[str | None, Fact | None]:
    """(address, note) from the first From header: the address a reply can go to, or why none."""
    value = headers.first("from").strip()
    if not value:
        return None, Fact("note-no-from")
    try:
        header = policy.default.header_factory("from", value)
        first = header.addresses[0] if header.addresses else None
        addr = first.addr_spec if first else ""
        guessed = any(isinstance(d, errors.InvalidHeaderDefect) for d in header.defects)
    except Exception:  # IndexError on "<", '"', "a@" ...
        addr, guessed = "", True
    if guessed:
        # The parser repaired something.  Trust its address only where the simpler
        # parseaddr reads the same: "bob@ex ample.org" gives bob@ex and bob@example.org.
        plain_addr = parseaddr(value)[1]
        if not addr:
            addr = plain_addr
        elif addr != plain_addr:
            addr = ""
    address = _writable_address(addr)
    if address is None:
        return None, Fact("note-from-unreadable")
    return address, None


def _writable_address(addr: str) -> str | None:
    """`addr` as an address a reply can go to (`pbm.addresses.mail_address`), a non-ASCII
    domain in its IDNA form; None when it has no such form.

    An RFC 2047 encoded word is never part of an address, but the email library
    decodes one in a local part when a reply's To header is set, and raises on the
    line break it may hold: such an address is refused here.
    """
    if "=?" in addr:
        return None
    local, at, domain = addr.strip().rpartition("@")
    if at and not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    return mail_address(f"{local}{at}{domain}")
