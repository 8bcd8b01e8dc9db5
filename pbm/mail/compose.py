"""Composing outgoing mail: an `OutgoingMail` effect in, the RFC 5322 bytes of one mail out.

Every mail is rendered from ``templates/mail/<name>.txt``, whose top-level
``{% set subject = ... %}`` gives the Subject and whose output is the body.
One mail per recipient. Every mail says it is automatic (``Auto-Submitted``)
and carries our loop marker, so that auto-responders leave it alone and our
own mail is never answered if it comes back.

Threading: the game's first mail to a player has a Message-ID derived from the
game and the player; every later mail of that game to that player refers to
it (In-Reply-To/References), so a mail client shows one thread per game.
Answers to a player's own mail (errors, help, lists) refer to that mail.

The bytes are written here, not by `email.message.EmailMessage`, because a
mail library is free to reinterpret what it is given: ``policy.default``
decodes an RFC 2047 encoded word in a copied Message-ID into line breaks, and
so into header lines and MIME parts of the sender's choosing. Here every
header value has one checked shape (an address we can write to, well-formed
Message-IDs, a subject reduced to one line and encoded when it is not plain
ASCII), the headers are all ASCII, and the body is one ``text/plain`` part
whose text cannot fail to encode.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import quopri
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime, make_msgid
from typing import Any

from pbm.addresses import mail_address
from pbm.commands.effects import Attachment, OutgoingMail, ReplyAs
from pbm.crypto.keys import SigningKeys
from pbm.i18n.text import one_line
from pbm.mail import headers
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.views import record as records
from pbm.words.templating import Templates

LOOP_HEADER = "X-PBM-Loop"
SERVER_NAME = "PBeM Server"
MAX_SUBJECT = 200
"""Longest Subject, in characters; every template's subject is far shorter."""
MAX_REFERENCES = 10
"""References of the answered mail carried on, besides its own Message-ID."""

_FOLD_AT = 76
"""Fold header lines before they pass this: RFC 2047's limit for lines holding encoded words
(RFC 5322 recommends 78). A single Message-ID may be longer; it is never broken."""
_MAX_LINE = 998
"""RFC 5322's hard limit on a line, line end excluded."""
_WORD_PREFIX, _WORD_SUFFIX = "=?utf-8?b?", "?="
_WORD_BYTES = 39
"""UTF-8 bytes per encoded word: 52 base64 characters, so that the first one still fits
a line after ``Subject: `` (9 + 64 characters)."""
_TOKEN = re.compile(r"[a-z0-9-]+")
_URL = re.compile(r"https?://[A-Za-z0-9.:\[\]-]+(?:/[A-Za-z0-9._~-]+)*/unsubscribe/[a-z0-9-]+")
_BOUNDARY = re.compile(rb'boundary="(pbm-[0-9a-f]+)"')
_FILENAME = re.compile(r"[a-z0-9]+-[0-9]+\.json")
_THREAD_ROOT = re.compile(r"<pbm\.(\d{1,18})\.(\d{1,18})\.([0-9a-f]{12})@([^<>@]+)>")
REMOVED_TOKEN = "removed"
"""What stands for a mail's own reply token in the copy of it that is kept once it is sent."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_BLANK_LINES = re.compile(r"\n{3,}")


class Unaddressable(ValueError):
    """A reply's recipient is not a plain address we can write to, so the reply cannot be sent."""


@dataclass(frozen=True)
class ComposedMail:
    """One outgoing mail, ready for the outbox. `raw` ends its lines with "\\n"; SMTP sends CRLF."""

    message_id: str
    recipient: str
    raw: bytes
    raw_without_secret: bytes | None = None
    """`raw` without the secret it carries (a password reset's reply token), when it carries one:
    what is kept of the mail once it is sent."""


@dataclass(frozen=True)
class Answering:
    """The inbound mail a reply answers, for threading: its headers as sent, checked here."""

    message_id: str | None
    references: tuple[str, ...] = ()


class Composer:
    def __init__(
        self,
        templates: Templates,
        addressing: Addressing,
        tokens: ReplyTokens,
        key: bytes,
        *,
        unsubscribe_url: Callable[[OutgoingMail, datetime], str | None] | None = None,
        signing: SigningKeys | None = None,
    ) -> None:
        if mail_address(addressing.address) is None:
            raise ValueError(f"the server's address must be a plain local@domain, got {addressing.address!r}")
        self.templates = templates
        self.addressing = addressing
        self.tokens = tokens
        self._key = key
        self.unsubscribe_url = unsubscribe_url
        """The one-click unsubscribe URL of a mail, if it has one (`pbm.commands.unsubscribe`)."""
        self.signing = signing
        """Signs the game records mails carry (`pbm.commands.effects.Attachment.signed_record`)."""

    def render(
        self, template: str, context: dict[str, Any], language: str | None = None, zone: str | None = None
    ) -> tuple[str, str]:
        """The (subject, body) of ``mail/<template>.txt`` rendered with `context` in `language`
        (the club's default when None), its dates on the wall clock of `zone` (None: UTC), as the
        mail carries them: the subject one line, the body `_plain_text`."""
        environment = self.templates.speaking(language, zone)
        module = environment.get_template(f"mail/{template}.txt").make_module(context)
        subject = one_line(str(getattr(module, "subject", "")), limit=MAX_SUBJECT)
        return subject or SERVER_NAME, _plain_text(str(module))

    def written(self, mail: OutgoingMail) -> tuple[str, str]:
        """The (subject, body) `mail` is sent with."""

        def reply_address_of(reply_as: ReplyAs) -> str:
            """The reply address that plays the next move at a board, written in the mail's text (a
            digest gives one for each game it lists), tied to the address the mail goes to."""
            # Sealed: the outbox keeps no token that works (`pbm.mail.tokens.ReplyTokens.unseal`).
            sealed = self.tokens.sealed(reply_as.board_id, reply_as.player_id, reply_as.at_ply)
            return self.addressing.reply_address(sealed)

        context = {**mail.context, "server": self.addressing.address, "reply_address_of": reply_address_of}
        return self.render(mail.template, context, mail.language, mail.zone)

    def compose(self, mail: OutgoingMail, *, now: datetime, answering: Answering | None = None) -> ComposedMail:
        """The mail `mail` asks for; raises `Unaddressable` when its recipient is not an address."""
        recipient = mail_address(mail.to)
        if recipient is None:
            raise Unaddressable("the reply's recipient is not a plain local@domain address")
        subject, body = self.written(mail)
        message_id, in_reply_to, references = self._thread(mail, answering)
        reply_to = self._reply_to(mail)
        fields = [
            f"From: {SERVER_NAME} <{self.addressing.address}>",
            f"To: {recipient}",
            _subject_field(subject),
            f"Date: {format_datetime(now)}",
            "Auto-Submitted: auto-replied",
            f"{LOOP_HEADER}: {self.addressing.address}",
            f"Message-ID: {message_id}",
        ]
        if in_reply_to is not None:
            fields += [f"In-Reply-To: {in_reply_to}", _folded("References", references)]
        if reply_to is not None:
            fields.append(f"Reply-To: {reply_to}")
        unsubscribe = self.unsubscribe_url(mail, now) if self.unsubscribe_url is not None else None
        if unsubscribe is not None:
            assert _URL.fullmatch(unsubscribe), "an unsubscribe URL is written into its header as it is"
            # RFC 8058: a POST to the URL acts at once; the MTA's DKIM signature covers both fields.
            fields += [f"List-Unsubscribe: <{unsubscribe}>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
        encoding, payload = _body_payload(body)
        fields.append("MIME-Version: 1.0")
        if mail.attachment is None:
            fields += ["Content-Type: text/plain; charset=utf-8", f"Content-Transfer-Encoding: {encoding}"]
        else:
            boundary = f"pbm-{secrets.token_hex(12)}"
            fields.append(f'Content-Type: multipart/mixed; boundary="{boundary}"')
            payload = _with_attachment(boundary, encoding, payload, self._attached(mail.attachment))
        head = "\n".join(fields).encode("ascii")
        # Every token in it is sealed (a reset's and a confirmation's too): nothing to remove once sent.
        return ComposedMail(message_id, recipient, head + b"\n\n" + payload)

    def _thread(self, mail: OutgoingMail, answering: Answering | None) -> tuple[str, str | None, tuple[str, ...]]:
        """`mail`'s Message-ID, and the mail it answers with the thread it belongs to (In-Reply-To,
        References): a board's mails are one thread per player, from the first; another mail
        answers the mail it was written for (`answering`), when there is one."""
        if mail.board_id is not None and mail.player_id is not None:
            root = self.thread_root(mail.board_id, mail.player_id)
            if mail.starts_thread:
                return root, None, ()
            return make_msgid(domain=self.addressing.domain), root, (root,)
        message_id = make_msgid(domain=self.addressing.domain)
        if answering is not None:
            in_reply_to, references = _thread_of(answering)
            return message_id, in_reply_to, references
        return message_id, None, ()

    def _reply_to(self, mail: OutgoingMail) -> str | None:
        """The address a reply to `mail` goes to, its token saying what the reply may do: play at the
        board the mail showed, answer a digest, or what the mail's own token allows (the last given wins)."""
        reply_to = None
        if mail.board_id is not None and mail.player_id is not None and mail.at_ply is not None:
            token = self.tokens.sealed(mail.board_id, mail.player_id, mail.at_ply)
            assert _TOKEN.fullmatch(token), "a reply token is written into Reply-To as it is"
            reply_to = f"{SERVER_NAME} <{self.addressing.reply_address(token)}>"
        if mail.digest_reply and mail.player_id is not None:
            sealed = self.tokens.sealed_digest(mail.player_id, int(mail.context.get("digest_mark", 0)))
            reply_to = f"{SERVER_NAME} <{self.addressing.reply_address(sealed)}>"
        if mail.reply_token is not None:
            assert _TOKEN.fullmatch(mail.reply_token), "a reply token is written into Reply-To as it is"
            reply_to = f"{SERVER_NAME} <{self.addressing.reply_address(mail.reply_token)}>"
        return reply_to

    def _attached(self, attachment: Attachment) -> tuple[str, bytes]:
        """(file name, bytes) of `attachment`: a record signed now, as the mail leaves."""
        assert _FILENAME.fullmatch(attachment.filename), "an attachment's name is pbm's, written as it is"
        document = attachment.document
        if attachment.signed_record:
            document = copy.deepcopy(document)
            document["header"]["site"]["name"] = self.addressing.domain
            if self.signing is not None:
                document = records.sign(document, self.signing)
        return attachment.filename, json.dumps(document, indent=1, ensure_ascii=True).encode("ascii") + b"\n"

    def thread_root(self, board_id: int, player_id: int) -> str:
        return f"<pbm.{board_id}.{player_id}.{self._thread_mac(board_id, player_id)}@{self.addressing.domain}>"

    def thread_named(self, message_id: str) -> tuple[int, int] | None:
        """The (board id, player id) whose thread `message_id` is the root of, when it is one of
        ours and genuine (`thread_root` made it); else None. Every later mail of the thread, and
        a mail client's reply to any of them, names it in its References."""
        match = _THREAD_ROOT.fullmatch(message_id)
        if match is None or match[4].lower() != self.addressing.domain.lower():
            return None
        board_id, player_id = int(match[1]), int(match[2])
        if not hmac.compare_digest(match[3], self._thread_mac(board_id, player_id)):
            return None
        return board_id, player_id

    def _thread_mac(self, board_id: int, player_id: int) -> str:
        return hmac.new(self._key, f"thread:{board_id}:{player_id}".encode(), hashlib.sha256).hexdigest()[:12]


def with_preface(raw: bytes, preface: str) -> bytes:
    """`raw`, a mail composed here, with the plain text `preface` above its body (above the text
    part of a mail with an attachment); every header is kept but the text's encoding, which the
    preface may change."""
    head, _, payload = raw.partition(b"\n\n")
    boundary = _BOUNDARY.search(head)
    if boundary is None:
        return _prefaced(head, payload, preface)
    separator = b"\n--" + boundary.group(1)
    first, _, rest = payload.partition(separator)
    part_head, _, text = first.partition(b"\n\n")
    return head + b"\n\n" + _prefaced(part_head, text, preface).rstrip(b"\n") + separator + rest


def _prefaced(head: bytes, text: bytes, preface: str) -> bytes:
    """A text (its header block and encoded payload) with `preface` above it, encoded anew."""
    fields = head.decode("ascii").split("\n")
    encoding_at = next(i for i, f in enumerate(fields) if f.startswith("Content-Transfer-Encoding:"))
    if fields[encoding_at].endswith("quoted-printable"):
        text = quopri.decodestring(text)
    encoding, payload = _body_payload(_plain_text(f"{preface}\n\n{text.decode('utf-8')}"))
    fields[encoding_at] = f"Content-Transfer-Encoding: {encoding}"
    return "\n".join(fields).encode("ascii") + b"\n\n" + payload


def _with_attachment(boundary: str, encoding: str, text: bytes, attached: tuple[str, bytes]) -> bytes:
    """A multipart/mixed body: the text, then the attachment (base64), as pbm built both."""
    filename, data = attached
    encoded = base64.encodebytes(data)
    parts = [
        f"--{boundary}".encode(),
        b"Content-Type: text/plain; charset=utf-8",
        f"Content-Transfer-Encoding: {encoding}".encode(),
        b"",
        text.rstrip(b"\n"),
        f"--{boundary}".encode(),
        f'Content-Type: application/json; name="{filename}"'.encode(),
        f'Content-Disposition: attachment; filename="{filename}"'.encode(),
        b"Content-Transfer-Encoding: base64",
        b"",
        encoded.rstrip(b"\n"),
        f"--{boundary}--".encode(),
        b"",
    ]
    return b"\n".join(parts)


def _plain_text(text: str) -> str:
    """`text` as a mail body carries it, whatever it held: "\\n" line ends, no control
    characters but tab, lone surrogates (which UTF-8 cannot encode) as U+FFFD, no white
    space at the end of a line, never two blank lines in a row (templates join optional
    sections, each followed by one), none around it, one line end at the end."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _SURROGATE.sub("\ufffd", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip("\n") + "\n"


def _thread_of(answering: Answering) -> tuple[str | None, tuple[str, ...]]:
    """(In-Reply-To, References) for an answer: nothing unless the answered mail has a
    well-formed Message-ID; then its last few well-formed references and that id."""
    answered = headers.message_id(answering.message_id)
    if answered is None:
        return None, ()
    earlier = [ref for value in answering.references for ref in headers.message_ids(value)]
    return answered, (*earlier[-MAX_REFERENCES:], answered)


def _subject_field(subject: str) -> str:
    # Plain ASCII goes as it is, unless a reader would take part of it for an encoded word.
    if subject.isascii() and "=?" not in subject:
        return _folded("Subject", subject.split(" "))
    return _folded("Subject", _encoded_words(subject))


def _encoded_words(text: str) -> list[str]:
    """RFC 2047 "B" encoded words for `text`, each holding whole characters."""
    words, chunk = [], b""
    for character in text:
        data = character.encode("utf-8")
        if len(chunk) + len(data) > _WORD_BYTES:
            words.append(chunk)
            chunk = b""
        chunk += data
    words.append(chunk)
    return [_WORD_PREFIX + base64.b64encode(word).decode("ascii") + _WORD_SUFFIX for word in words]


def _folded(name: str, words: Iterable[str]) -> str:
    """``name: words``, folded between words where a line would pass `_FOLD_AT`."""
    lines: list[str] = []
    line = f"{name}:"
    for index, word in enumerate(words):
        if index and len(line) + 1 + len(word) > _FOLD_AT:
            lines.append(line)
            line = ""
        line += " " + word
    lines.append(line)
    return "\n".join(lines)


def _body_payload(body: str) -> tuple[str, bytes]:
    """(Content-Transfer-Encoding, encoded body): 7bit when RFC 5322 can carry the text as
    it is, quoted-printable otherwise."""
    data = body.encode("utf-8")
    if data.isascii() and all(len(line) <= _MAX_LINE for line in data.split(b"\n")):
        return "7bit", data
    return "quoted-printable", quopri.encodestring(data)
