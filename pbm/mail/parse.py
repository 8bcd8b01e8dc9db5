"""Inbound mail: the raw bytes of a message -> clean text and trustworthy facts.

``parse_mail`` reads one RFC 5322 message (stdlib ``email``) and returns a
``ParsedMail``: sender, subject, threading headers, the plain text the sender wrote,
why the mail must not be answered (``auto_reason``) and short notes worth telling the
sender.  Mail comes from strangers, so reading it is held to three promises:

- it never raises: a message we cannot read still reaches the command layer, as an
  empty or partial text with an explaining note, never as a stack trace;
- what comes out is clean: no string holds a control character (but newline and tab
  in the body) or a lone surrogate, Message-IDs and the From address are reduced to
  the shapes ``pbm.mail.headers`` allows, so nothing read can become a header line
  of a reply;
- its cost is bounded: ``MailLimits`` caps headers, MIME parts, text and HTML, and
  every step is linear in the size of the mail within those caps.  What is cut is
  said in a note.

``pbm.mail.reader`` runs ``parse_mail`` in a child process as the backstop for
whatever these limits miss.

``fresh_text`` cuts a reply body down to what the sender wrote in this mail: quoted
lines, reply headers, forwarded messages and signatures go.  Commands such as
``c3=b3+c2``, ``+-1,0`` or ``1,0,0->1,-1`` are never taken for quotes, bullets or
signatures: only a line whose first non-blank character is ``>`` is a quote.

    >>> fresh_text("c3=b3+c2\\n\\nOn Mon, 1 Jan 2024, Bob <b@x.org> wrote:\\n> board\\n")
    'c3=b3+c2'
"""

from __future__ import annotations

import codecs
import html
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from email import errors, policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import parseaddr
from typing import Any

import html2text
from mailparser_reply import EmailReplyParser

from pbm.mail.headers import mail_address, message_id, message_ids

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class ParsedMail:
    """What one inbound message says, cleaned for the command layer.

    No string in it holds a lone surrogate or a control character, but ``"\\n"`` and
    ``"\\t"`` in ``body``."""

    message_id: str | None  # one well-formed "<...>" token (headers.message_id), or None
    from_address: str | None  # plain ASCII local@domain (headers.mail_address), or None
    from_name: str  # display name or ""
    subject: str  # RFC 2047-decoded, one line, at most MailLimits.max_subject_chars
    body: str  # the text the sender wrote, "\n" newlines, at most MailLimits.max_body_chars
    in_reply_to: str | None  # one well-formed "<...>" token, or None
    references: tuple[str, ...]  # well-formed "<...>" tokens, the newest last
    auto_reason: str | None  # why this mail must NOT be answered
    notes: tuple[str, ...]  # things worth telling the sender
    unreadable: str | None = None  # why the mail could not be read at all

    @classmethod
    def unread(cls, reason: str) -> ParsedMail:
        """A mail of which nothing could be read, and why."""
        return cls(
            message_id=None,
            from_address=None,
            from_name="",
            subject="",
            body="",
            in_reply_to=None,
            references=(),
            auto_reason=None,
            notes=(),
            unreadable=reason,
        )

    def to_json(self) -> dict[str, Any]:
        """The mail as JSON values (lists for the tuples), for storing between steps."""
        data: dict[str, Any] = {field.name: getattr(self, field.name) for field in fields(self)}
        data["references"] = list(self.references)
        data["notes"] = list(self.notes)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ParsedMail:
        """The mail that `to_json` gave; ValueError when `data` is not one."""
        try:
            lists = data["references"], data["notes"]
            mail = cls(**{**data, "references": tuple(lists[0]), "notes": tuple(lists[1])})
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a stored ParsedMail: {error}") from None
        texts = [mail.from_name, mail.subject, mail.body, *mail.references, *mail.notes]
        maybe_texts = [mail.message_id, mail.from_address, mail.in_reply_to, mail.auto_reason, mail.unreadable]
        if (
            not all(isinstance(value, list) for value in lists)
            or not all(isinstance(text, str) for text in texts)
            or not all(text is None or isinstance(text, str) for text in maybe_texts)
        ):
            raise ValueError("not a stored ParsedMail: a field is not text")
        return mail


COULD_NOT_READ = "the message could not be read"
NEEDED_TOO_MUCH_MEMORY = "the message needed more memory than allowed"


def parse_mail(
    raw: bytes, *, envelope_sender: str | None, loop_marker: str, limits: MailLimits = MailLimits()
) -> ParsedMail:
    """Read one raw message within `limits`.  Never raises, whatever the bytes."""
    try:
        return _Reading(limits).mail(bytes(raw), envelope_sender, loop_marker)
    except MemoryError:
        reason = NEEDED_TOO_MUCH_MEMORY
    except Exception:
        # Last line of defence for the never-raise contract; every known failure is
        # handled below, so reaching this is a bug worth a log line, not a crash.
        log.exception("unreadable inbound message")
        reason = COULD_NOT_READ
    headers = parse_headers(raw, envelope_sender=envelope_sender, loop_marker=loop_marker, limits=limits)
    return replace(headers, unreadable=reason)


def parse_headers(
    raw: bytes, *, envelope_sender: str | None, loop_marker: str, limits: MailLimits = MailLimits()
) -> ParsedMail:
    """What the headers of a message say, with an empty body.  Never raises.

    Cheap enough to run where a whole mail must not be read: it reads nothing past
    the first empty line, and no header value past ``limits.max_header_length``.
    """
    try:
        return _Reading(limits).headers_only(bytes(raw), envelope_sender, loop_marker)
    except Exception:
        log.exception("unreadable inbound message headers")
        return ParsedMail.unread(COULD_NOT_READ)


# --------------------------------------------------------------------------- parsing


class _Reading:
    """One reading of one message within the limits."""

    def __init__(self, limits: MailLimits) -> None:
        self.limits = limits

    def mail(self, raw: bytes, envelope_sender: str | None, loop_marker: str) -> ParsedMail:
        parts = _PartFactory(self.limits)
        policy = _ReadingPolicy(message_factory=parts, max_header_length=self.limits.max_header_length)
        notes: list[str] = []
        try:
            msg = BytesParser(policy=policy).parsebytes(raw)
        except _TooComplex as limit:
            # The parser stops at the part that broke the limit; the parts before
            # it are whole, and the text the sender wrote is usually the first.
            msg = parts.root
            notes.append(str(limit))
        except Exception:
            # Nothing known reaches here; the headers still say who wrote and
            # whether to answer.
            log.warning("MIME structure unreadable", exc_info=True)
            unread = ["the MIME structure of the message could not be read"]
            return self._facts(self._headers_of(raw), envelope_sender, loop_marker, body="", notes=unread)
        body, body_notes = _body(msg, self.limits)
        return self._facts(msg, envelope_sender, loop_marker, body=body, notes=notes + body_notes)

    def headers_only(self, raw: bytes, envelope_sender: str | None, loop_marker: str) -> ParsedMail:
        return self._facts(self._headers_of(raw), envelope_sender, loop_marker, body="", notes=[])

    def _headers_of(self, raw: bytes) -> EmailMessage:
        end = _HEADER_END.search(raw)
        head = raw[: end.end()] if end else raw
        policy = _ReadingPolicy(max_header_length=self.limits.max_header_length)
        return BytesParser(policy=policy).parsebytes(head, headersonly=True)  # type: ignore[return-value]

    def _facts(
        self, msg: EmailMessage, envelope_sender: str | None, loop_marker: str, *, body: str, notes: list[str]
    ) -> ParsedMail:
        headers = _Headers(msg, self.limits)
        from_address, from_name, from_note = _sender(headers)
        subject, subject_note = self._subject(headers)
        header_notes = [note for note in (from_note, subject_note) if note]
        return ParsedMail(
            message_id=message_id(headers.first("message-id")),
            from_address=from_address,
            from_name=from_name,
            subject=subject,
            body=body,
            in_reply_to=message_id(headers.first("in-reply-to")),
            references=message_ids(" ".join(headers.all("references"))),
            auto_reason=_auto_reason(headers, _content_type(msg), from_address, envelope_sender, loop_marker),
            notes=tuple(headers.notes + header_notes + notes),
        )

    def _subject(self, headers: _Headers) -> tuple[str, str | None]:
        subject = _decoded_header(headers.first("subject"))
        limit = self.limits.max_subject_chars
        if len(subject) <= limit:
            return subject, None
        return subject[:limit].rstrip(), f"the Subject is longer than {limit} characters; only its start was read"


_HEADER_END = re.compile(rb"\r?\n\r?\n")


class _TooComplex(Exception):
    """The MIME structure passed a limit; the message says which."""


class _Part(EmailMessage):
    """A message part that knows how deep it sits, so that nesting can be stopped."""

    depth = 0
    max_depth = 0

    def attach(self, payload: Any) -> None:
        # The feed parser attaches each new part to its parent before reading it.
        payload.depth = self.depth + 1
        if payload.depth > self.max_depth:
            raise _TooComplex(f"the message nests MIME parts more than {self.max_depth} deep; the rest was not read")
        super().attach(payload)


class _PartFactory:
    """Makes the parts of one message for the parser, and stops it past the limit."""

    def __init__(self, limits: MailLimits) -> None:
        self.limits = limits
        self.made = 0
        self.root = _Part()  # replaced by the first part made: the message itself

    def __call__(self, policy: EmailPolicy) -> _Part:
        if self.made == max(self.limits.max_parts, 1):
            raise _TooComplex(f"the message has more than {self.made} MIME parts; the rest were not read")
        part = _Part(policy=policy)
        part.max_depth = self.limits.max_depth
        if not self.made:
            self.root = part
        self.made += 1
        return part


class _ReadingPolicy(EmailPolicy):
    """``policy.default``, except that a header value is cut to ``max_header_length``
    before the library parses it (its parser is quadratic in the length), and parsed
    once: the parser and ``get_content_type`` ask for Content-Type seven times a part."""

    max_header_length = MailLimits.max_header_length

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
                self._parsed[key] = _clean_line(re.sub(r"\r?\n", "", key[1]))
        return self._parsed[key]


# Headers whose cut is worth a note: the ones a reply is built from.
_NOTED_HEADERS = {
    "from": "From",
    "subject": "Subject",
    "message-id": "Message-ID",
    "in-reply-to": "In-Reply-To",
    "references": "References",
}


class _Headers:
    """Header values as sent: 8-bit bytes decoded, unfolded, cut to the limit, not yet
    RFC 2047-decoded.  The first ``max_headers`` fields only.

    Reading them raw (``raw_items``) instead of through ``msg[name]`` matters:
    ``policy.default`` builds a parsed header object on access, and its address
    parser raises IndexError on values such as ``From: <``.
    """

    def __init__(self, msg: EmailMessage, limits: MailLimits) -> None:
        self._values: dict[str, list[str]] = {}
        self.notes: list[str] = []
        length = limits.max_header_length
        cut: set[str] = set()
        for count, (name, value) in enumerate(msg.raw_items()):
            if count == limits.max_headers:
                self.notes.append(f"the message has more than {count} header fields; the rest were not read")
                break
            key = name.strip().lower()
            text = _header_source(value)
            if len(text) > length:
                text = text[-length:] if key == "references" else text[:length]
                cut.add(key)
            self._values.setdefault(key, []).append(text)
        for key in sorted(cut & _NOTED_HEADERS.keys()):
            self.notes.append(
                f"the {_NOTED_HEADERS[key]} header is longer than {length} characters; only part of it was read"
            )

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
    text, _ = _decode_fallback(raw)
    text = re.sub(r"\r?\n(?=[ \t])", "", text)  # unfold
    return _clean_line(text).strip()


def _decoded_header(value: str) -> str:
    """RFC 2047 encoded words decoded; control characters gone; stripped."""
    if "=?" not in value:
        return value.strip()
    try:
        decoded = str(policy.default.header_factory("subject", value))
    except Exception:  # UnicodeEncodeError from a utf-7 encoded word, among others
        return value.strip()
    return _clean_line(decoded).strip()


# Characters that end a line or separate words somewhere (str.splitlines breaks at
# all of them): a space in one-line text.
_SPACE_IN_LINE = re.compile(r"[\t\n\x0b\x0c\r\x1c-\x1f\x85\xa0\u2028\u2029]")
# Control characters (C0, DEL, C1) and lone surrogates (a utf-7 decoder's output,
# which no mail can encode): never in any text we return.
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _clean_line(text: str) -> str:
    """One-line header text: no line breaks or control characters (no header injection
    when a value is echoed into a reply), tabs and NBSP as plain spaces."""
    return _UNWRITABLE.sub("", _SPACE_IN_LINE.sub(" ", text))


# --------------------------------------------------------------------------- sender


def _sender(headers: _Headers) -> tuple[str | None, str, str | None]:
    """(address, display name, note) from the first From header."""
    value = headers.first("from").strip()
    if not value:
        return None, "", "the message has no From address"
    try:
        header = policy.default.header_factory("from", value)
        first = header.addresses[0] if header.addresses else None
        addr, name = (first.addr_spec, first.display_name) if first else ("", "")
        guessed = any(isinstance(d, errors.InvalidHeaderDefect) for d in header.defects)
    except Exception:  # IndexError on "<", '"', "a@" ...
        addr, name, guessed = "", "", True
    if guessed:
        # The parser repaired something.  Trust its address only where the simpler
        # parseaddr reads the same: "bob@ex ample.org" gives bob@ex and bob@example.org.
        plain_name, plain_addr = parseaddr(value)
        if not addr:
            addr, name = plain_addr, _decoded_header(plain_name)
        elif addr != plain_addr:
            addr = ""
    name = _clean_line(name).strip()
    address = _writable_address(addr)
    if address is None:
        return None, name, "the From address of the message could not be read"
    return address, name, None


def _writable_address(addr: str) -> str | None:
    """`addr` as an address a reply can go to (``headers.mail_address``), a non-ASCII
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


# --------------------------------------------------------------------------- loops

_DAEMON_LOCAL_PARTS = {
    "mailer-daemon": "sent by a mail system (mailer-daemon)",
    "mailerdaemon": "sent by a mail system (mailer-daemon)",
    "mailer_daemon": "sent by a mail system (mailer-daemon)",
    "postmaster": "sent by a mail system (postmaster)",
    "noreply": "sent from a no-reply address",
    "no-reply": "sent from a no-reply address",
    "no_reply": "sent from a no-reply address",
    "donotreply": "sent from a no-reply address",
    "do-not-reply": "sent from a no-reply address",
    "do_not_reply": "sent from a no-reply address",
}


def _auto_reason(
    headers: _Headers,
    content_type: str,
    from_address: str | None,
    envelope_sender: str | None,
    loop_marker: str,
) -> str | None:
    """Why this mail must not be answered, or None.  Checked from the most specific."""
    marker = _bare_address(loop_marker)
    if marker and any(_bare_address(v) == marker for v in headers.all("x-pbm-loop")):
        return "it is our own mail (loop)"
    if marker and any(_same_mailbox(a, marker) for a in (from_address, envelope_sender) if a):
        return "it comes from our own address (loop)"

    if envelope_sender is not None and _bare_address(envelope_sender) == "":
        return "bounce (null envelope sender)"
    # Without an envelope (`pbm process` of a stored file) the delivering MTA's
    # Return-Path tells the same.
    if (
        envelope_sender is None
        and "return-path" in headers
        and not _bare_address(headers.first("return-path"))
    ):
        return "bounce (null Return-Path)"

    if content_type == "multipart/report":
        return "delivery status notification (multipart/report)"

    for address in (from_address, envelope_sender):
        reason = _DAEMON_LOCAL_PARTS.get(_local_part(address or ""))
        if reason:
            return reason

    for value in headers.all("auto-submitted"):
        keyword = re.sub(r"\([^)]*\)", "", value).partition(";")[0].strip().lower()
        if keyword != "no":
            return f"auto-submitted ({_printable(keyword) or 'empty'})"
    for name in ("x-autoreply", "x-autorespond"):
        if name in headers:
            return f"auto-reply header ({name})"
    for value in headers.all("x-auto-response-suppress"):
        tokens = {t.strip().lower() for t in value.split(",")}
        if tokens & {"all", "oof", "autoreply"}:
            return "auto-reply suppression requested (x-auto-response-suppress)"
    for value in headers.all("precedence"):
        if value.strip().lower() in {"bulk", "junk", "list"}:
            return f"bulk mail (Precedence: {value.strip().lower()})"
    for name in ("list-id", "list-unsubscribe"):
        if name in headers:
            return f"mailing list ({name})"
    return None


def _bare_address(value: str) -> str:
    """'<Pbm@Example.org> ' -> 'pbm@example.org'; '<>' -> ''."""
    return value.strip().strip("<>").strip().lower()


def _local_part(address: str) -> str:
    """'MAILER-DAEMON@mx.example.org' -> 'mailer-daemon'; also without a domain, as
    envelope senders of bounces often are; a '+detail' is dropped."""
    bare = _bare_address(address)
    return (bare.rpartition("@")[0] or bare).partition("+")[0]


def _same_mailbox(address: str, ours: str) -> bool:
    """Equal addresses, ignoring our '+token' detail (board mails use pbm+token@...)."""
    local, _, domain = _bare_address(address).rpartition("@")
    our_local, _, our_domain = ours.rpartition("@")
    return bool(local) and domain == our_domain and local.partition("+")[0] == our_local


# --------------------------------------------------------------------------- body


# --------------------------------------------------------------------------- body


def _content_type(part: EmailMessage) -> str:
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


@dataclass
class _Leaf:
    part: EmailMessage
    content_type: str
    in_alternative: bool  # another rendering of the text, never an attachment
    in_related: bool  # an inline resource (an image in an HTML body) unless attached
    disposition: str | None
    filename: str | None

    @property
    def inline_text(self) -> bool:
        """Could be the body: not marked as an attachment and not a named file."""
        return self.disposition != "attachment" and not self.filename

    @property
    def ignored_attachment(self) -> bool:
        """Worth a note when not taken as the body.  Alternatives of the body and the
        images of an HTML body are no attachments; named files and forwarded
        messages are, wherever they sit (Apple Mail nests them in alternatives)."""
        if self.content_type in _SIGNATURE_TYPES:
            return False
        if self.disposition == "attachment":
            return True
        if self.in_related:
            return False
        return (
            bool(self.filename)
            or self.content_type.startswith("message/")
            or not self.in_alternative
        )


_SIGNATURE_TYPES = {
    "application/pgp-signature",
    "application/pkcs7-signature",
    "application/x-pkcs7-signature",
}


def _leaves(msg: EmailMessage) -> list[_Leaf]:
    """The leaf parts of the top-level message in document order.

    An attached message (message/rfc822, a forward) is one leaf: its own text is the
    forwarded mail, not what this sender wrote.
    """
    leaves: list[_Leaf] = []
    stack: list[tuple[EmailMessage, bool, bool]] = [(msg, False, False)]
    while stack:
        part, in_alternative, in_related = stack.pop()
        payload = _payload(part)
        if payload is None:
            continue  # a part the parser began but never finished: it stopped at a limit
        content_type = _content_type(part)
        if content_type.startswith("multipart/") and isinstance(payload, list):
            in_alternative = in_alternative or content_type == "multipart/alternative"
            in_related = in_related or content_type == "multipart/related"
            for child in reversed(payload):
                stack.append((child, in_alternative, in_related))
            continue
        disposition, filename = _disposition(part)
        leaves.append(_Leaf(part, content_type, in_alternative, in_related, disposition, filename))
    return leaves


def _payload(part: EmailMessage) -> Any:
    """The parts of a multipart, the text of a leaf, or None for a part the parser
    never finished.  The library decodes 8-bit text by the declared charset here, and
    raises on some ("idna"): such a text is read as empty."""
    try:
        return part.get_payload()
    except Exception:
        return ""


def _disposition(part: EmailMessage) -> tuple[str | None, str | None]:
    try:
        return part.get_content_disposition(), part.get_filename()
    except Exception:
        return "attachment", None


def _body(msg: EmailMessage, limits: MailLimits) -> tuple[str, list[str]]:
    notes: list[str] = []
    leaves = _leaves(msg)
    inline = [leaf for leaf in leaves if leaf.inline_text]
    chosen = next((leaf for leaf in inline if leaf.content_type == "text/plain"), None)
    if chosen is None:
        chosen = next((leaf for leaf in inline if leaf.content_type == "text/html"), None)
    if chosen is None:
        # A multipart whose boundary never appears arrives as one unsplit leaf.
        chosen = next((leaf for leaf in inline if leaf.content_type.startswith("multipart/")), None)
        if chosen is not None:
            notes.append("the MIME structure of the message is damaged; its raw text was read")

    encrypted = _content_type(msg) == "multipart/encrypted"
    if chosen is None:
        notes.append("the message is encrypted and could not be read" if encrypted else "the message has no text")
        text = ""
    else:
        text, decode_notes = _leaf_text(chosen.part)
        notes.extend(decode_notes)
        whole = True
        if chosen.content_type == "text/html":
            text, html_notes, whole = _html_to_text(text, limits)
            notes.extend(html_notes)
        text, clean_notes = _normalise(text)
        notes.extend(clean_notes)
        if len(text) > limits.max_body_chars or not whole:
            text = text[: limits.max_body_chars]
            notes.append(f"the text is longer than {limits.max_body_chars} characters; only its start was read")

    # The parts of an encrypted mail are the mail itself, not attachments to it.
    ignored = 0 if encrypted else sum(1 for leaf in leaves if leaf is not chosen and leaf.ignored_attachment)
    if ignored:
        notes.append(
            "1 attachment was ignored" if ignored == 1 else f"{ignored} attachments were ignored"
        )
    return text, notes


_BASE64_DEFECTS = (
    errors.InvalidBase64CharactersDefect,
    errors.InvalidBase64LengthDefect,
    errors.InvalidBase64PaddingDefect,
)


def _leaf_text(part: EmailMessage) -> tuple[str, list[str]]:
    notes = []
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if not isinstance(data, bytes):
        payload = _payload(part)
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    if any(isinstance(d, _BASE64_DEFECTS) for d in part.defects):
        notes.append("part of the text was badly encoded (base64) and may be incomplete")
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text, note = _decode(data, charset)
    if note:
        notes.append(note)
    return text, notes


# Codecs Python knows that are no mail charsets: they interpret backslashes or
# always fail, and a sender must not be able to pick them.
_NOT_MAIL_CHARSETS = {"unicode-escape", "raw-unicode-escape", "undefined", "idna", "punycode"}
# Single-byte labels that, as in browsers (WHATWG Encoding), mean Windows-1252.
_WINDOWS_1252_LABELS = {"iso8859-1", "cp1252"}
_SINGLE_BYTE_WESTERN = _WINDOWS_1252_LABELS | {"iso8859-15"}


def _decode(data: bytes, charset: str | None) -> tuple[str, str | None]:
    """Text of a part and, when the declared charset did not fit, a note saying how
    it was read instead.  Never fails: Latin-1 reads any bytes."""
    if not charset:
        text, used = _decode_fallback(data)
        return text, None if used == "UTF-8" else f"the text has no charset; it was read as {used}"
    label = _printable(charset)
    try:
        codec = codecs.lookup(charset).name
    except (LookupError, ValueError):
        codec = None
    if codec in _SINGLE_BYTE_WESTERN and not data.isascii():
        # Any bytes are "valid" Latin-1, so a lie is only visible the other way
        # round: multi-byte UTF-8 sequences almost never occur in Latin-1 text.
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return text, f"the text is marked '{label}' but is UTF-8; it was read as UTF-8"
    if codec in _WINDOWS_1252_LABELS:
        return _latin1(data), None
    if codec is not None and codec not in _NOT_MAIL_CHARSETS:
        try:
            return data.decode(codec), None
        except UnicodeError:
            text, used = _decode_fallback(data)
            return text, f"the text is not valid '{label}'; it was read as {used}"
        except LookupError:
            pass  # a bytes-to-bytes codec such as "base64"
    text, used = _decode_fallback(data)
    return text, f"the charset '{label}' is unknown; the text was read as {used}"


def _decode_fallback(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _latin1(data), "Latin-1"


def _latin1(data: bytes) -> str:
    # Windows-1252 is Latin-1 with printable characters (smart quotes, euro) where
    # Latin-1 has C1 controls; the five bytes it leaves undefined need plain Latin-1.
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _printable(text: str) -> str:
    return re.sub(r"[^\x21-\x7e]", "?", text)[:40]


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def _normalise(text: str) -> tuple[str, list[str]]:
    """'\\n' newlines, no BOM, NBSP as space, no control characters but tab, no lone
    surrogates; and the notes saying what was removed (NUL cannot even be stored in a
    PostgreSQL text column, a lone surrogate cannot be written in any mail)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    text = re.sub(r"[\r\x85\u2028\u2029]", "\n", text).replace("\xa0", " ")
    notes = []
    text, controls = _CONTROLS.subn("", text)
    if controls:
        notes.append("control characters were removed from the text")
    text, surrogates = _SURROGATES.subn("\ufffd", text)
    if surrogates:
        notes.append("characters that are not valid Unicode were replaced in the text")
    return text, notes


# --------------------------------------------------------------------------- HTML
#
# html2text (on CPython's html.parser) turns the quotes and lists of real mail into
# good text, but is not safe on hostile markup: html.parser scans to the end of the
# input again from every "<" that starts something never finished (400 KB of "<!--"
# take 50 s), and html2text indents every list item by its depth (deeply nested
# lists make text quadratic in the markup).  So the markup is first rewritten, in one
# linear pass, into HTML that leaves html.parser nothing to scan twice: tags with
# plain names and no attributes (but an <ol>'s start), text whose only character
# references are &amp; &lt; &gt; &nbsp; (after a few broken ones html.parser takes
# the rest of the input as text, tags and all), no comments, declarations or scripts.
# Markup nesting lists and quotes deeper than the limit is read by a plain tag
# stripper instead.

# Tags html2text keeps a stack of: each level indents or prefixes every line.
_NESTING_TAGS = {"ol", "ul", "blockquote"}
# Tags after which html2text writes Markdown that could corrupt a move: ~~strike~~,
# `code`, "quotes", "# headings".  With the tag skipped its text passes through as is.
_MARKDOWN_TAGS = {"del", "s", "strike", "code", "kbd", "tt", "samp", "q", "abbr"}
# Block tags whose Markdown ("# ", "* * *") would be left as a line of its own; the
# <hr> above Outlook's "From:/Sent:" block would linger as fresh text.
_BREAK_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "hr"}


class _PlainHTML2Text(html2text.HTML2Text):
    """html2text that writes text, not Markdown, and stops writing after `room`
    characters."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.body_width = 0  # never re-wrap: one move per line must stay one line
        self.single_line_break = True  # Gmail and Outlook write each line as a block
        self.ignore_links = True  # keep link text, drop "[1]: http://..." clutter
        self.ignore_images = True
        self.ignore_emphasis = True  # "<b>c3</b>" must not become "**c3**"
        self.ignore_tables = True  # cells as lines, no "|" and "---|---"
        self.unicode_snob = True  # keep "é" and NBSP rather than ASCII look-alikes
        self.tag_callback = _skip_markdown_tags
        self.room = room

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        # html2text backslash-escapes Markdown-looking text ("+ 1" -> "\+ 1",
        # "1. e4" -> "1\. e4"); entity_char=True is its own switch to skip that.
        super().handle_data(data, entity_char=True)

    def outtextf(self, s: str) -> None:
        if self.room > 0:
            self.room -= len(s)
            super().outtextf(s)


def _skip_markdown_tags(parser: html2text.HTML2Text, tag: str, attrs: dict, start: bool) -> bool:
    if tag in _BREAK_TAGS:
        parser.p()
        return True
    return tag in _MARKDOWN_TAGS


def _html_to_text(markup: str, limits: MailLimits) -> tuple[str, list[str], bool]:
    """The text of an HTML part, the notes on how it was read, and whether the text
    is whole (False: more text than the body may hold was cut)."""
    notes = ["the HTML part was converted to text"]
    if len(markup) > limits.max_html_chars:
        markup = markup[: limits.max_html_chars]
        notes.append(f"the HTML part is longer than {limits.max_html_chars} characters; only its start was read")
    safe, deepest, unclosed = _safe_html(markup)
    if unclosed:
        notes.append("the HTML part has a tag or comment that is never closed; what follows it was not read")
    whole = True
    if deepest > limits.max_html_nesting:
        notes.append(
            f"the HTML part nests lists or quotes more than {limits.max_html_nesting} deep; "
            "it was read without its layout"
        )
        text = _stripped_html(markup)
    else:
        converter = _PlainHTML2Text(room=2 * limits.max_body_chars)
        try:
            text = converter.handle(safe)
            whole = converter.room > 0
        except Exception:
            # html2text has had crashes on odd markup.  A plain tag strip still
            # gives the sender's words.
            log.warning("html2text failed; stripping tags instead", exc_info=True)
            text = _stripped_html(markup)
    lines = [line.rstrip() for line in text.replace("\xa0", " ").split("\n")]
    # html2text leaves "  " line ends for <br> and several blank lines between blocks.
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n"), notes, whole


_TEXT, _START, _END, _UNCLOSED = "text", "start", "end", "unclosed"
_TAG_OPEN = re.compile(r"</?[A-Za-z]")
_TAG_NAME = re.compile(r"[^\s/>]*")
_IN_TAG_SPACE = re.compile(r"[\s/]*")
_ATTRIBUTE = re.compile(r"""([^\s/>=][^\s/>=]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
_RAW_TEXT_END = {"script": re.compile("</script", re.IGNORECASE), "style": re.compile("</style", re.IGNORECASE)}


def _html_tokens(markup: str) -> Iterator[tuple[str, str, str]]:
    """The text and tags of `markup`, in one pass that looks at each character a
    bounded number of times.

    Yields (_TEXT, text as written, ""), (_START, tag name, value of its "start"
    attribute or ""), (_END, tag name, "") and, when the markup ends inside a tag,
    comment or script, a last (_UNCLOSED, "", "").  Tag names are lower-cased.  As
    in HTML5, "<" not followed by a letter, "/", "!" or "?" is text; comments,
    declarations and processing instructions are skipped; the content of script and
    style is no text.  Each search for a closing "-->", ">" or quote either finds it
    and moves past it, or fails once and ends the scan, so nothing is scanned twice.
    """
    pos, end = 0, len(markup)
    while pos < end:
        lt = markup.find("<", pos)
        if lt < 0:
            yield _TEXT, markup[pos:], ""
            return
        if lt > pos:
            yield _TEXT, markup[pos:lt], ""
        tag = _TAG_OPEN.match(markup, lt)
        if tag is None:
            if markup.startswith("<!--", lt):
                close, length = markup.find("-->", lt + 2), 3  # "<!-->" is a whole comment
            elif markup.startswith(("<!", "<?", "</"), lt):
                close, length = markup.find(">", lt + 2), 1
            else:
                yield _TEXT, "<", ""
                pos = lt + 1
                continue
            if close < 0:
                yield _UNCLOSED, "", ""
                return
            pos = close + length
            continue
        name_end = _TAG_NAME.match(markup, tag.end()).end()
        name = markup[tag.end() - 1 : name_end].lower()
        pos, start = name_end, ""
        while True:  # the attributes, each taken whole: a quoted value may hold ">"
            pos = _IN_TAG_SPACE.match(markup, pos).end()
            if pos == end:
                yield _UNCLOSED, "", ""
                return
            if markup[pos] == ">":
                pos += 1
                break
            attribute = _ATTRIBUTE.match(markup, pos)
            if attribute is None:  # "=" where a name should begin
                pos += 1
                continue
            if attribute.group(1).lower() == "start":
                start = (attribute.group(2) or "").strip("\"'")
            pos = attribute.end()
        if tag.group().startswith("</"):
            yield _END, name, ""
            continue
        yield _START, name, start
        if name in _RAW_TEXT_END:
            close_tag = _RAW_TEXT_END[name].search(markup, pos)
            if close_tag is None:
                yield _UNCLOSED, "", ""
                return
            pos = close_tag.start()


_PLAIN_TAG_NAME = re.compile(r"[a-z][a-z0-9]*")
_LIST_START = re.compile(r"[0-9]{1,6}")
# html.unescape raises on a numeric reference of more than 4300 digits.
_LONG_CHARREF = re.compile(r"&#(?=[0-9]{8}|[xX][0-9a-fA-F]{7})")


def _unescape(text: str) -> str:
    """html.unescape, with numeric references too long to be a character left as text."""
    return html.unescape(_LONG_CHARREF.sub("&amp;#", text))


def _safe_html(markup: str) -> tuple[str, int, bool]:
    """`markup` rewritten so that html.parser reads it in one pass; with the deepest
    nesting of lists and quotes in it, and whether it ends inside a tag or comment."""
    out: list[str] = []
    depth = deepest = 0
    unclosed = False
    for kind, value, start in _html_tokens(markup):
        if kind == _TEXT:
            out.append(html.escape(_unescape(value), quote=False).replace("\xa0", "&nbsp;"))
        elif kind == _UNCLOSED:
            unclosed = True
        elif not _PLAIN_TAG_NAME.fullmatch(value):
            continue  # "o:p" and other names html2text does nothing with
        elif kind == _START:
            if value in _NESTING_TAGS:
                depth += 1
                deepest = max(deepest, depth)
            if value == "ol" and _LIST_START.fullmatch(start):
                out.append(f'<ol start="{start}">')
            else:
                out.append(f"<{value}>")
        else:
            if value in _NESTING_TAGS and depth:
                depth -= 1
            out.append(f"</{value}>")
    return "".join(out), deepest, unclosed


_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre", "section", "table",
    "tr", "ul",
}  # fmt: skip
_HTML_SPACE = re.compile(r"[ \t\n\f\r]+")


def _stripped_html(markup: str) -> str:
    """The text of `markup` without its layout: a line for each block, in one pass."""
    pieces: list[str] = []
    in_head = False
    for kind, value, _ in _html_tokens(markup):
        if kind == _TEXT:
            if not in_head:
                pieces.append(_HTML_SPACE.sub(" ", _unescape(value)))
        elif value in {"head", "title", "body"}:
            in_head = kind == _START and value != "body"
        elif value in _BLOCK_TAGS:
            pieces.append("\n")
    return "\n".join(line.strip() for line in "".join(pieces).split("\n"))


# --------------------------------------------------------------------------- fresh text

_QUOTE = re.compile(r"\s*>")
_SIGNATURE = re.compile(r"\s*(?:--|_{10,})\s*")
_SEPARATOR = re.compile(
    r"\s*-{2,}\s*(?:original message|forwarded message|ursprüngliche nachricht"
    r"|weitergeleitete nachricht|message d'origine|message transféré|mensaje original"
    r"|mensaje reenviado|oorspronkelijk bericht|doorgestuurd bericht"
    r"|messaggio originale|messaggio inoltrato)\s*-{2,}\s*"
    r"|\s*(?:begin forwarded message|anfang der weitergeleiteten nachricht"
    r"|début du message réexpédié)\s*:\s*",
    re.IGNORECASE,
)
# Words only, so that "sent from my phone: c3=b3+c2" is not taken for one.
_MOBILE_TRAILER = re.compile(
    r"\s*(?:sent from my|sent from|get outlook for|envoyé de mon|envoyé depuis"
    r"|gesendet von meinem|enviado desde mi)\s[\w .'-]{1,40}"
    r"|\s*von meinem\s[\w .'-]{1,40}\sgesendet\s*",
    re.IGNORECASE,
)
# Outlook-style reply header: "From: ..." (also "*From:*" and other languages)
# followed within a few lines by "Sent:", "To:", "Subject:" ...
_BLOCK_FROM = re.compile(r"\s*\**(?:from|von|de|van|da|fra|från)\s*:\**\s*\S", re.IGNORECASE)
_BLOCK_FIELD = re.compile(
    r"\s*\**(?:sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|à|objet"
    r"|enviado|fecha|para|asunto|verzonden|aan|onderwerp|inviato|data|oggetto)\s*:",
    re.IGNORECASE,
)
# An attribution line ending in "wrote:" in some language, when quoted lines follow.
_ATTRIBUTION_END = re.compile(
    r".{0,300}\b(?:wrote|a écrit|schrieb|escribió|schreef|ha scritto|skrev|napsal\(a\))"
    r"[^:\n]{0,100}:\s*",
    re.IGNORECASE,
)

# mail-parser-reply knows the reply headers ("On ... wrote:", wrapped over two lines,
# "Am ... schrieb ...:", "Le ... a écrit :", Outlook "From:/Sent:" blocks) of these
# languages.  Others (it, pl, da, cs) match single short words such as "A:" or "Od:"
# and would cut ordinary text.
_LIBRARY_LANGUAGES = ["en", "de", "fr", "es", "nl"]
_LIBRARY_HEADER = EmailReplyParser(languages=_LIBRARY_LANGUAGES).read("").HEADER_REGEX
# Its patterns backtrack quadratically within a line; headers are short, so only short
# lines near the top are shown to it.
_LIBRARY_MAX_LINE = 200
_LIBRARY_MAX_LINES = 1000


def fresh_text(body: str) -> str:
    """Only what the sender wrote in this mail.

    Text is kept up to the first quoted line, reply header, forwarded message or
    signature.  When nothing but blank lines stands above a quote (bottom-posting,
    Thunderbird's default), the text below the quoted block is taken instead.
    Leading text is kept exactly; trailing blank lines are dropped.
    """
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = 0
    cut, quoted = _first_cut(lines, start)
    if quoted and not any(line.strip() for line in lines[start:cut]):
        start = _after_quoted_block(lines, cut)
        cut, _ = _first_cut(lines, start)
    kept = lines[start:cut]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)


def _first_cut(lines: list[str], start: int) -> tuple[int, bool]:
    """Index of the first line that is not fresh text (len(lines) if none), and
    whether it begins a quoted block (a quote, or an attribution above quotes)."""
    own = len(lines)
    quoted = False
    for i in range(start, len(lines)):
        line = lines[i]
        if _QUOTE.match(line):
            own, quoted = i, True
            break
        if (
            _SIGNATURE.fullmatch(line)
            or _SEPARATOR.fullmatch(line)
            or _MOBILE_TRAILER.fullmatch(line)
        ):
            own = i
            break
        if len(line) > 1000:
            continue
        if _BLOCK_FROM.match(line) and any(_BLOCK_FIELD.match(n) for n in lines[i + 1 : i + 5]):
            own = i
            break
        if _ATTRIBUTION_END.fullmatch(line) and _quote_follows(lines, i + 1):
            own, quoted = i, True
            break
    library = _library_cut(lines, start, own)
    if library is not None and library < own:
        return library, _quote_follows(lines, library + 1) or _quote_follows(lines, library + 2)
    return own, quoted


def _quote_follows(lines: list[str], i: int) -> bool:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i < len(lines) and bool(_QUOTE.match(lines[i]))


def _library_cut(lines: list[str], start: int, stop: int) -> int | None:
    """The first reply header mail-parser-reply finds between start and stop.

    Its regexes expect stripped lines (its own normalisation); stripping one line at a
    time keeps line numbers, so a match maps back to our unstripped line.  Two lines
    past ``stop`` are included so a header wrapped over two lines right above our own
    cut is still seen whole.
    """
    end = min(stop + 2, len(lines), start + _LIBRARY_MAX_LINES)
    window = [line.strip() if len(line) <= _LIBRARY_MAX_LINE else "" for line in lines[start:end]]
    text = "\n".join(window)
    match = _LIBRARY_HEADER.search(text)
    if match is None:
        return None
    begin = match.start()
    while begin < len(text) and text[begin] == "\n":
        begin += 1
    return start + text.count("\n", 0, begin)


def _after_quoted_block(lines: list[str], i: int) -> int:
    """First line after the attribution, quoted and blank lines starting at i."""
    if not _QUOTE.match(lines[i]):
        i += 1  # the attribution line ("On ... wrote:")
        if i < len(lines) and lines[i].strip() and not _QUOTE.match(lines[i]):
            i += 1  # its second half when the client wrapped it
    while i < len(lines) and (not lines[i].strip() or _QUOTE.match(lines[i])):
        i += 1
    return i
