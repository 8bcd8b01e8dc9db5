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

The work is shared out: `pbm.mail.received_headers` reads the headers,
`pbm.mail.mime` the parts, `pbm.mail.charsets` their bytes, `pbm.mail.html_text`
HTML, `pbm.mail.automatic` says whether to answer at all. ``pbm.mail.reader`` runs
``parse_mail`` in a child process as the backstop for whatever these limits miss;
`pbm.mail.fresh` later cuts the text down to what the sender wrote in this mail.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, fields, replace
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from pbm.facts import UNCONVERTED, Fact, english, merged, placeholders
from pbm.mail.automatic import Signs, auto_reason
from pbm.mail.headers import message_id, message_ids
from pbm.mail.limits import MailLimits
from pbm.mail.mime import PartFactory, TooComplex, body, content_type
from pbm.mail.received_headers import Headers, ReadingPolicy, decoded_header, sender
from pbm.words.mail_messages import READING_NOTES

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParsedMail:
    """What one inbound message says, cleaned for the command layer.

    No string in it holds a lone surrogate or a control character, but ``"\\n"`` and
    ``"\\t"`` in ``body``."""

    message_id: str | None  # one well-formed "<...>" token (headers.message_id), or None
    from_address: str | None  # plain ASCII local@domain (`pbm.addresses.mail_address`), or None
    subject: str  # RFC 2047-decoded, one line, at most MailLimits.max_subject_chars
    body: str  # the text the sender wrote, "\n" newlines, at most MailLimits.max_body_chars
    references: tuple[str, ...]  # well-formed "<...>" tokens, the newest last
    auto_reason: str | None  # why this mail must NOT be answered
    noted: tuple[Fact, ...]  # things worth telling the sender, said in their language (`READING_NOTES`)
    unread_because: Fact | None = None  # why the mail could not be read at all (`READING_NOTES`)
    in_reply_to: str | None = None  # the mail it answers: one well-formed "<...>" token, or None

    @property
    def unreadable(self) -> str | None:
        """Why the mail could not be read at all, in English (for the record), or None."""
        return None if self.unread_because is None else english(self.unread_because, _NOTES)

    @property
    def notes(self) -> tuple[str, ...]:
        """What reading the mail noticed, in English: for the record and the logs."""
        return tuple(english(note, _NOTES) for note in self.noted)

    @classmethod
    def unread(cls, reason: Fact) -> ParsedMail:
        """A mail of which nothing could be read, and why."""
        return cls(
            message_id=None,
            from_address=None,
            subject="",
            body="",
            references=(),
            auto_reason=None,
            noted=(),
            unread_because=reason,
        )

    def to_json(self) -> dict[str, Any]:
        """The mail as JSON values (lists for the tuples), for storing between steps."""
        data: dict[str, Any] = {field.name: getattr(self, field.name) for field in fields(self)}
        data["references"] = list(self.references)
        data["noted"] = [note.to_json() for note in self.noted]
        data["unread_because"] = None if self.unread_because is None else self.unread_because.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ParsedMail:
        """The mail that `to_json` gave; ValueError when `data` is not one.

        Keys it does not know are left out: mail stored by an older version may
        carry fields this one no longer reads, and its notes as English words
        (``notes``), which are said as they are.
        """
        known = {field.name for field in fields(cls)}
        try:
            if "noted" in data:
                lists = data["references"], data["noted"]
                noted = tuple(_note(note) for note in lists[1])
            else:
                lists = data["references"], data["notes"]
                noted = tuple(Fact(UNCONVERTED, text=_text(note)) for note in lists[1])
            values = {key: value for key, value in data.items() if key in known}
            because = data.get("unread_because")
            if because is not None:
                values["unread_because"] = _note(because)
            elif data.get("unreadable") is not None:
                values["unread_because"] = Fact(UNCONVERTED, text=_text(data["unreadable"]))
            mail = cls(**{**values, "references": tuple(lists[0]), "noted": noted})
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"not a stored ParsedMail: {error}") from None
        texts = [mail.subject, mail.body, *mail.references]
        maybe_texts = [mail.message_id, mail.from_address, mail.auto_reason, mail.in_reply_to]
        if (
            not all(isinstance(value, list) for value in lists)
            or not all(isinstance(text, str) for text in texts)
            or not all(text is None or isinstance(text, str) for text in maybe_texts)
        ):
            raise ValueError("not a stored ParsedMail: a field is not text")
        return mail


_NOTES = merged([{UNCONVERTED: "{text}"}, READING_NOTES])


def _note(data: Any) -> Fact:
    """A note as `ParsedMail.to_json` wrote it, checked: it comes from the reader's child process,
    which reads hostile mail, so only a known code with plain values is taken."""
    fact = Fact.from_json(data)
    if fact.code not in _NOTES or not all(isinstance(v, str | int) for v in fact.params.values()):
        raise ValueError(f"not a note: {fact.code!r}")
    if placeholders(_NOTES[fact.code]) - set(fact.params):
        raise ValueError(f"a note without its values: {fact.code!r}")
    return fact


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("a note is not text")
    return value


COULD_NOT_READ = Fact("unread-could-not-read")
NEEDED_TOO_MUCH_MEMORY = Fact("unread-too-much-memory")


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
    return replace(headers, unread_because=reason)


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
        parts = PartFactory(max_parts=self.limits.max_parts, max_depth=self.limits.max_depth)
        policy = ReadingPolicy(message_factory=parts, max_header_length=self.limits.max_header_length)
        notes: list[Fact] = []
        msg: EmailMessage
        try:
            msg = BytesParser(policy=policy).parsebytes(raw)  # type: ignore[assignment]  # parts are EmailMessages
        except TooComplex as limit:
            # The parser stops at the part that broke the limit; the parts before
            # it are whole, and the text the sender wrote is usually the first.
            msg = parts.root
            notes.append(limit.fact)
        except Exception:
            # Nothing known reaches here; the headers still say who wrote and
            # whether to answer.
            log.warning("MIME structure unreadable", exc_info=True)
            unread = [Fact("note-mime-unreadable")]
            return self._facts(self._headers_of(raw), envelope_sender, loop_marker, body="", notes=unread)
        text, body_notes = body(msg, self.limits)
        return self._facts(msg, envelope_sender, loop_marker, body=text, notes=notes + body_notes)

    def headers_only(self, raw: bytes, envelope_sender: str | None, loop_marker: str) -> ParsedMail:
        return self._facts(self._headers_of(raw), envelope_sender, loop_marker, body="", notes=[])

    def _headers_of(self, raw: bytes) -> EmailMessage:
        end = _HEADER_END.search(raw)
        head = raw[: end.end()] if end else raw
        policy = ReadingPolicy(max_header_length=self.limits.max_header_length)
        return BytesParser(policy=policy).parsebytes(head, headersonly=True)  # type: ignore[return-value]

    def _facts(
        self, msg: EmailMessage, envelope_sender: str | None, loop_marker: str, *, body: str, notes: list[Fact]
    ) -> ParsedMail:
        headers = Headers(msg, max_headers=self.limits.max_headers, max_header_length=self.limits.max_header_length)
        from_address, from_note = sender(headers)
        subject, subject_note = self._subject(headers)
        header_notes = [note for note in (from_note, subject_note) if note]
        signs = Signs(headers, content_type(msg), from_address, envelope_sender, loop_marker)
        return ParsedMail(
            message_id=message_id(headers.first("message-id")),
            from_address=from_address,
            subject=subject,
            body=body,
            references=message_ids(" ".join(headers.all("references"))),
            auto_reason=auto_reason(signs),
            noted=tuple(headers.notes + header_notes + notes),
            in_reply_to=message_id(headers.first("in-reply-to")),
        )

    def _subject(self, headers: Headers) -> tuple[str, Fact | None]:
        subject = decoded_header(headers.first("subject"))
        limit = self.limits.max_subject_chars
        if len(subject) <= limit:
            return subject, None
        return subject[:limit].rstrip(), Fact("note-subject-cut", limit=limit)


_HEADER_END = re.compile(rb"\r?\n\r?\n")
