"""Inbound mail: the raw bytes of a message -> clean text and trustworthy facts.

``parse_mail`` reads one RFC 5322 message (stdlib ``email`` with ``policy.default``)
and returns a ``ParsedMail``: sender, subject, threading headers, the plain text the
sender wrote, why the mail must not be answered (``auto_reason``) and short notes worth
telling the sender.  It never raises: mail comes from strangers, and a message we cannot
read must still reach the command layer as an empty or partial text with an explaining
note, never as a stack trace.

``fresh_text`` cuts a reply body down to what the sender wrote in this mail: quoted
lines, reply headers, forwarded messages and signatures go.  Commands such as
``c3=b3+c2``, ``+-1,0`` or ``1,0,0->1,-1`` are never taken for quotes, bullets or
signatures: only a line whose first non-blank character is ``>`` is a quote.

    >>> fresh_text("c3=b3+c2\\n\\nOn Mon, 1 Jan 2024, Bob <b@x.org> wrote:\\n> board\\n")
    'c3=b3+c2'
"""

from __future__ import annotations

import codecs
import dataclasses
import html
import logging
import re
from dataclasses import dataclass
from email import errors, policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parseaddr
from typing import Any

import html2text
from mailparser_reply import EmailReplyParser

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParsedMail:
    """What one inbound message says, cleaned for the command layer."""

    message_id: str | None  # the Message-ID header as sent, e.g. "<abc@host>"
    from_address: str | None  # addr-spec of From, domain lower-cased
    from_name: str  # display name or ""
    subject: str  # RFC 2047-decoded, unfolded, stripped
    body: str  # the text the sender wrote, "\n" newlines
    in_reply_to: str | None
    references: tuple[str, ...]
    auto_reason: str | None  # why this mail must NOT be answered
    notes: tuple[str, ...]  # things worth telling the sender
    unreadable: str | None = None  # why the mail could not be read at all

    def to_json(self) -> dict[str, Any]:
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ParsedMail:
        return cls(**{**data, "references": tuple(data["references"]), "notes": tuple(data["notes"])})


def parse_mail(raw: bytes, *, envelope_sender: str | None, loop_marker: str) -> ParsedMail:
    """Read one raw message.  Never raises, whatever the bytes."""
    try:
        return _parse(bytes(raw), envelope_sender, loop_marker)
    except Exception:
        # Last line of defence for the never-raise contract; every known failure is
        # handled below, so reaching this is a bug worth a log line, not a crash.
        log.exception("unreadable inbound message")
        return ParsedMail(
            message_id=None,
            from_address=None,
            from_name="",
            subject="",
            body="",
            in_reply_to=None,
            references=(),
            auto_reason=None,
            notes=("the message could not be read",),
        )


# --------------------------------------------------------------------------- parsing


def _parse(raw: bytes, envelope_sender: str | None, loop_marker: str) -> ParsedMail:
    notes: list[str] = []
    try:
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        structure_readable = True
    except Exception:
        # The feed parser recurses once per nested multipart; absurd nesting exhausts
        # the stack.  The headers alone still say who wrote and whether to answer.
        msg = BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
        structure_readable = False

    headers = _Headers(msg)
    from_address, from_name, from_note = _sender(headers)
    if from_note:
        notes.append(from_note)

    if structure_readable:
        body, body_notes = _body(msg)
        notes.extend(body_notes)
    else:
        body = ""
        notes.append("the MIME structure of the message could not be read")

    return ParsedMail(
        message_id=headers.first("message-id") or None,
        from_address=from_address,
        from_name=from_name,
        subject=_decoded_header(headers.first("subject")),
        body=body,
        in_reply_to=_first_msg_id(headers.first("in-reply-to")),
        references=_msg_ids(" ".join(headers.all("references"))),
        auto_reason=_auto_reason(
            headers, _content_type(msg), from_address, envelope_sender, loop_marker
        ),
        notes=tuple(notes),
    )


class _Headers:
    """Header values as sent: 8-bit bytes decoded, unfolded, not yet RFC 2047-decoded.

    Reading them raw (``raw_items``) instead of through ``msg[name]`` matters:
    ``policy.default`` builds a parsed header object on access, and its address
    parser raises IndexError on values such as ``From: <``.
    """

    def __init__(self, msg: EmailMessage) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in msg.raw_items():
            self._values.setdefault(name.strip().lower(), []).append(_header_source(value))

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
    except Exception:
        return value.strip()
    return _clean_line(decoded).strip()


_CONTROL_IN_LINE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _clean_line(text: str) -> str:
    """One-line header text: no line breaks or control characters (no header injection
    when a value is echoed into a reply), tabs and NBSP as plain spaces."""
    text = text.replace("\t", " ").replace("\xa0", " ")
    return _CONTROL_IN_LINE.sub(lambda m: " " if m.group() in "\r\n" else "", text)


_MSG_ID = re.compile(r"<[^<>\s]+>")


def _first_msg_id(value: str) -> str | None:
    ids = _msg_ids(value)
    if ids:
        return ids[0]
    return value.strip() or None


def _msg_ids(value: str) -> tuple[str, ...]:
    ids = _MSG_ID.findall(value)
    if not ids and "<" not in value:
        ids = value.split()  # some clients send bare ids without angle brackets
    return tuple(ids)


# --------------------------------------------------------------------------- sender

_ADDR_SPEC = re.compile(r'[^\s@<>()\[\],;:\\"]+@[\w-]+(?:\.[\w-]+)*\.?')


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
    addr, name = addr.strip(), _clean_line(name).strip()
    if not _ADDR_SPEC.fullmatch(addr):
        return None, name, "the From address of the message could not be read"
    local, _, domain = addr.rpartition("@")
    return f"{local}@{domain.lower().rstrip('.')}", name, None


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
    forwarded mail, not what this sender wrote.  Iterative, so deep nesting that the
    parser accepted cannot exhaust the stack here.
    """
    leaves: list[_Leaf] = []
    stack: list[tuple[EmailMessage, bool, bool]] = [(msg, False, False)]
    while stack:
        part, in_alternative, in_related = stack.pop()
        content_type = _content_type(part)
        children = part.get_payload() if content_type.startswith("multipart/") else None
        if isinstance(children, list):
            in_alternative = in_alternative or content_type == "multipart/alternative"
            in_related = in_related or content_type == "multipart/related"
            for child in reversed(children):
                stack.append((child, in_alternative, in_related))
            continue
        disposition, filename = _disposition(part)
        leaves.append(_Leaf(part, content_type, in_alternative, in_related, disposition, filename))
    return leaves


def _disposition(part: EmailMessage) -> tuple[str | None, str | None]:
    try:
        return part.get_content_disposition(), part.get_filename()
    except Exception:
        return "attachment", None


def _body(msg: EmailMessage) -> tuple[str, list[str]]:
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

    if chosen is None:
        if _content_type(msg) == "multipart/encrypted":
            notes.append("the message is encrypted and could not be read")
        else:
            notes.append("the message has no text")
        text = ""
    else:
        text, decode_notes = _leaf_text(chosen.part)
        notes.extend(decode_notes)
        if chosen.content_type == "text/html":
            text = _html_to_text(text)
            notes.append("the HTML part was converted to text")
        text, removed = _normalise(text)
        if removed:
            notes.append("control characters were removed from the text")

    ignored = sum(1 for leaf in leaves if leaf is not chosen and leaf.ignored_attachment)
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
        payload = part.get_payload()
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


_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _normalise(text: str) -> tuple[str, bool]:
    """'\\n' newlines, no BOM, NBSP as space, no control characters but tab.

    Returns the text and whether control characters were removed (NUL bytes cannot
    even be stored in a PostgreSQL text column)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\xa0", " ")
    cleaned = _CONTROL_IN_TEXT.sub("", text)
    return cleaned, len(cleaned) != len(text)


# --------------------------------------------------------------------------- HTML

# Tags after which html2text writes Markdown that could corrupt a move: ~~strike~~,
# `code`, "quotes", "# headings".  With the tag skipped its text passes through as is.
_MARKDOWN_TAGS = {"del", "s", "strike", "code", "kbd", "tt", "samp", "q", "abbr"}
# Block tags whose Markdown ("# ", "* * *") would be left as a line of its own; the
# <hr> above Outlook's "From:/Sent:" block would linger as fresh text.
_BREAK_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "hr"}


class _PlainHTML2Text(html2text.HTML2Text):
    """html2text that writes text, not Markdown."""

    def __init__(self) -> None:
        super().__init__()
        self.body_width = 0  # never re-wrap: one move per line must stay one line
        self.single_line_break = True  # Gmail and Outlook write each line as a block
        self.ignore_links = True  # keep link text, drop "[1]: http://..." clutter
        self.ignore_images = True
        self.ignore_emphasis = True  # "<b>c3</b>" must not become "**c3**"
        self.ignore_tables = True  # cells as lines, no "|" and "---|---"
        self.unicode_snob = True  # keep "é" and NBSP rather than ASCII look-alikes
        self.tag_callback = _skip_markdown_tags

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        # html2text backslash-escapes Markdown-looking text ("+ 1" -> "\+ 1",
        # "1. e4" -> "1\. e4"); entity_char=True is its own switch to skip that.
        super().handle_data(data, entity_char=True)


def _skip_markdown_tags(parser: html2text.HTML2Text, tag: str, attrs: dict, start: bool) -> bool:
    if tag in _BREAK_TAGS:
        parser.p()
        return True
    return tag in _MARKDOWN_TAGS


def _html_to_text(markup: str) -> str:
    try:
        text = _PlainHTML2Text().handle(markup)
    except Exception:
        # html.parser copes with anything; html2text itself has had crashes on odd
        # markup.  A crude tag strip still gives the sender's words.
        log.warning("html2text failed; stripping tags instead", exc_info=True)
        text = html.unescape(re.sub(r"<[^>]*>", " ", markup))
    lines = [line.rstrip() for line in text.replace("\xa0", " ").split("\n")]
    # html2text leaves "  " line ends for <br> and several blank lines between blocks.
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


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
