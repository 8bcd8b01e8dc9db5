"""The MIME structure of a received mail: its parts within limits, and which of them is the text.

Every MIME part costs the parser time, and every open boundary costs each
line of the mail a check, so the parts are counted and their nesting bounded
while the library parses (`PartFactory`, `Part`): past a limit it stops, and
the parts before are whole. Of the parts, the text the sender wrote is the
first plain text one, else the first HTML one; attachments are noted, not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import errors
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import TYPE_CHECKING, Any

from pbm.facts import Fact
from pbm.mail.charsets import decode, normalise
from pbm.mail.html_text import html_to_text

if TYPE_CHECKING:
    from pbm.mail.limits import MailLimits


class TooComplex(Exception):
    """The MIME structure passed a limit; `fact` says which."""

    def __init__(self, fact: Fact) -> None:
        super().__init__(fact.code)
        self.fact = fact


class Part(EmailMessage):
    """A message part that knows how deep it sits, so that nesting can be stopped."""

    depth = 0
    max_depth = 0

    def attach(self, payload: Any) -> None:
        # The feed parser attaches each new part to its parent before reading it.
        payload.depth = self.depth + 1
        if payload.depth > self.max_depth:
            raise TooComplex(Fact("note-mime-too-deep", depth=self.max_depth))
        super().attach(payload)


class PartFactory:
    """Makes the parts of one message for the parser, and stops it past the limit."""

    def __init__(self, *, max_parts: int, max_depth: int) -> None:
        self.max_parts = max_parts
        self.max_depth = max_depth
        self.made = 0
        self.root = Part()  # replaced by the first part made: the message itself

    def __call__(self, policy: EmailPolicy) -> Part:
        if self.made == max(self.max_parts, 1):
            raise TooComplex(Fact("note-mime-too-many-parts", count=self.made))
        part = Part(policy=policy)
        part.max_depth = self.max_depth
        if not self.made:
            self.root = part
        self.made += 1
        return part


def content_type(part: EmailMessage) -> str:
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
        return bool(self.filename) or self.content_type.startswith("message/") or not self.in_alternative


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
        kind = content_type(part)
        if kind.startswith("multipart/") and isinstance(payload, list):
            in_alternative = in_alternative or kind == "multipart/alternative"
            in_related = in_related or kind == "multipart/related"
            for child in reversed(payload):
                stack.append((child, in_alternative, in_related))
            continue
        disposition, filename = _disposition(part)
        leaves.append(_Leaf(part, kind, in_alternative, in_related, disposition, filename))
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


def body(msg: EmailMessage, limits: MailLimits) -> tuple[str, list[Fact]]:
    """The text the sender wrote (the plain part, else the HTML one as text), and the notes on
    how it was read: what was converted, guessed, cut or left out."""
    notes: list[Fact] = []
    leaves = _leaves(msg)
    inline = [leaf for leaf in leaves if leaf.inline_text]
    chosen = next((leaf for leaf in inline if leaf.content_type == "text/plain"), None)
    if chosen is None:
        chosen = next((leaf for leaf in inline if leaf.content_type == "text/html"), None)
    if chosen is None:
        # A multipart whose boundary never appears arrives as one unsplit leaf.
        chosen = next((leaf for leaf in inline if leaf.content_type.startswith("multipart/")), None)
        if chosen is not None:
            notes.append(Fact("note-mime-damaged"))

    encrypted = content_type(msg) == "multipart/encrypted"
    if chosen is None:
        notes.append(Fact("note-encrypted") if encrypted else Fact("note-no-text"))
        text = ""
    else:
        text, decode_notes = _leaf_text(chosen.part)
        notes.extend(decode_notes)
        whole = True
        if chosen.content_type == "text/html":
            text, html_notes, whole = html_to_text(text, limits)
            notes.extend(html_notes)
        text, clean_notes = normalise(text)
        notes.extend(clean_notes)
        if len(text) > limits.max_body_chars or not whole:
            text = text[: limits.max_body_chars]
            notes.append(Fact("note-text-cut", limit=limits.max_body_chars))

    # The parts of an encrypted mail are the mail itself, not attachments to it.
    ignored = 0 if encrypted else sum(1 for leaf in leaves if leaf is not chosen and leaf.ignored_attachment)
    if ignored:
        notes.append(Fact("note-attachments-ignored", count=ignored))
    return text, notes


_BASE64_DEFECTS = (
    errors.InvalidBase64CharactersDefect,
    errors.InvalidBase64LengthDefect,
    errors.InvalidBase64PaddingDefect,
)


def _leaf_text(part: EmailMessage) -> tuple[str, list[Fact]]:
    notes = []
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if not isinstance(data, bytes):
        payload = _payload(part)
        data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    if any(isinstance(d, _BASE64_DEFECTS) for d in part.defects):
        notes.append(Fact("note-base64-damaged"))
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text, note = decode(data, charset)
    if note:
        notes.append(note)
    return text, notes
