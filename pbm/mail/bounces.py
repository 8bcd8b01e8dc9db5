"""Bounces: which of our mails did not arrive, told by the mail systems that could not deliver it.

Every mail leaves with an envelope sender of its own (VERP): ``pbm+bounce-<id>-<mac>@domain``,
naming its outbox row and signed with the server's key (`BounceAddresses`), so a report that
comes back names the mail it is about, and nobody can make up a report about a mail they
never saw the envelope of. A report is read by `read_report` from at most `MOST_READ` bytes,
line by line, in time linear in what it reads: what comes to that address is as hostile as
any mail.

What counts (`Report`):

- an RFC 3464 delivery-status report (``message/delivery-status``, as Postfix, Exim, Gmail
  and Exchange send): ``Action: failed`` with a ``5.x.x`` status is permanent, ``delayed`` or a
  ``4.x.x`` status temporary, ``delivered``, ``relayed`` and ``expanded`` are no failure;
- a well-known report without that part (a bounce whose subject says so, qmail's, an older
  Exchange's): the first enhanced status code in it (``550 5.1.1``), or an SMTP reply code;
- nothing else: an auto-reply ("Automatic reply", "Out of office") is no bounce, though it says
  ``Auto-Submitted: auto-replied`` as bounces do.

>>> addresses = BounceAddresses(b"k" * 32, Addressing("pbm@example.org"))
>>> address = addresses.address_for(42)
>>> addresses.outbox_id_of(Addressing("pbm@example.org").token_of(address))
42
>>> addresses.outbox_id_of("bounce-43-" + address.split("-")[2].split("@")[0]) is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from pbm.mail.tokens import Addressing

TOKEN_PREFIX = "bounce-"
MOST_READ = 256 * 1024
"""Bytes of a report read: a report's status comes in its first kilobytes; the rest is the returned mail."""
_TOKEN = re.compile(r"bounce-(\d{1,18})-([a-z2-7]{20})")
PERMANENT, TEMPORARY = "permanent", "temporary"


class BounceAddresses:
    """The envelope sender of each outgoing mail, and the outbox row a bounce address names."""

    def __init__(self, key: bytes, addressing: Addressing) -> None:
        self._key = key
        self.addressing = addressing

    def _mac(self, outbox_id: int) -> str:
        digest = hmac.new(self._key, f"bounce:{outbox_id}".encode(), hashlib.sha256).digest()
        return base64.b32encode(digest).decode()[:20].lower()  # mail systems may lower-case local parts

    def address_for(self, outbox_id: int) -> str:
        """The envelope sender of the outbox row `outbox_id`'s mail."""
        return self.addressing.reply_address(f"{TOKEN_PREFIX}{outbox_id}-{self._mac(outbox_id)}")

    def outbox_id_of(self, token: str | None) -> int | None:
        """The outbox row a genuine bounce token names; None for any other token."""
        found = _TOKEN.fullmatch(token.strip().lower()) if token else None
        if found is None or not hmac.compare_digest(found[2], self._mac(int(found[1]))):
            return None
        return int(found[1])

    def outbox_id_in(self, envelope_to: tuple[str, ...]) -> int | None:
        """The outbox row named by the bounce address among those a mail came to, if any."""
        return next(
            (i for i in (self.outbox_id_of(self.addressing.token_of(to)) for to in envelope_to) if i is not None),
            None,
        )


def is_bounce_token(token: str | None) -> bool:
    return token is not None and token.lower().startswith(TOKEN_PREFIX)


@dataclass(frozen=True)
class Report:
    """What a bounce says of the mail it returns: a permanent or a temporary failure, and its status."""

    kind: str
    status: str
    """The enhanced status code (``5.1.1``), or the SMTP reply code when the report gives no other."""

    @property
    def permanent(self) -> bool:
        return self.kind == PERMANENT


_DSN_PART = re.compile(rb"(?im)^content-type:[ \t]*message/(?:global-)?delivery-status\b")
_ACTION = re.compile(rb"(?im)^action:[ \t]*([a-z]{1,12})[ \t]*\r?$")
_STATUS = re.compile(rb"(?im)^status:[ \t]*([245])\.(\d{1,3})\.(\d{1,3})\b")
_ENHANCED = re.compile(rb"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
_SMTP_REPLY = re.compile(rb"(?<![\d.#-])([45][0-5]\d)(?=[ -])(?![\d.])")
_AUTO_REPLY_HEADER = re.compile(rb"(?im)^(?:x-autoreply|x-autorespond):")
_AUTO_REPLY_SUBJECT = re.compile(
    rb"(?i)^[ \t]*(?:automatic reply|auto:|autoreply|auto-reply|out of (?:the )?office|absence|vacation|away)"
)
_FROM_MAIL_SYSTEM = re.compile(rb"(?im)^from:[^\r\n]{0,200}\b(?:mailer-daemon|postmaster)@")
_SUBJECT = re.compile(rb"(?im)^subject:[ \t]*([^\r\n]{0,300})")
_BOUNCE_SUBJECT = re.compile(
    rb"(?i)undeliverable|undelivered mail|delivery status notification|mail delivery fail|delivery failure"
    rb"|failure notice|returned mail|returned to sender|could not be delivered|non[- ]?delivery"
)
_QMAIL = re.compile(rb"(?i)this is the qmail-send program")
_FAILED_ACTIONS = {b"failed": PERMANENT, b"delayed": TEMPORARY}


def read_report(raw: bytes) -> Report | None:
    """What `raw`, come to a bounce address, reports; None when it reports no failure (an
    auto-reply, a report of delivery, or nothing a mail system writes)."""
    text = raw[:MOST_READ]
    head = _head(text)
    if _DSN_PART.search(text):
        return _delivery_status(text)
    # Bounces and auto-replies alike say Auto-Submitted: auto-replied; what tells them apart is
    # who writes (a mail system) and what the subject says.
    subject = _SUBJECT.search(head)
    said = subject[1] if subject else b""
    if _AUTO_REPLY_HEADER.search(head) or _AUTO_REPLY_SUBJECT.search(said):
        return None
    if not (_FROM_MAIL_SYSTEM.search(head) or _BOUNCE_SUBJECT.search(said) or _QMAIL.search(text)):
        return None
    enhanced = _ENHANCED.search(text, len(head))
    if enhanced:
        return _report(enhanced[1], b".".join(enhanced.groups()))
    reply = _SMTP_REPLY.search(text, len(head))
    if reply:
        return _report(reply[1][:1], reply[1])
    return None


def _delivery_status(text: bytes) -> Report | None:
    """The worst failure an RFC 3464 report gives: permanent before temporary, the first of each."""
    found: list[Report] = []
    actions = [m[1].lower() for m in _ACTION.finditer(text)]
    statuses = [m for m in _STATUS.finditer(text)]
    for index, status in enumerate(statuses):
        action = actions[index] if index < len(actions) else b""
        code = b".".join(status.groups())
        if action in (b"delivered", b"relayed", b"expanded"):
            continue
        kind = _FAILED_ACTIONS.get(action)
        if kind is None or (kind == PERMANENT and status[1] != b"5"):
            kind = PERMANENT if status[1] == b"5" else TEMPORARY if status[1] == b"4" else None
        if kind is not None:
            found.append(Report(kind, code.decode()))
    if not found and any(action == b"failed" for action in actions):
        found.append(Report(PERMANENT, "5.0.0"))
    return next((r for r in found if r.permanent), found[0] if found else None)


def _report(first_digit: bytes, code: bytes) -> Report | None:
    if first_digit == b"5":
        return Report(PERMANENT, code.decode())
    if first_digit == b"4":
        return Report(TEMPORARY, code.decode())
    return None


def _head(text: bytes) -> bytes:
    """The header section of `text` (all of it, for a mail without a body)."""
    ends = [i for i in (text.find(b"\r\n\r\n"), text.find(b"\n\n")) if i >= 0]
    return text[: min(ends)] if ends else text


_RETURNED_MESSAGE_ID = re.compile(rb"(?im)^message-id:[ \t]*(<[!-=?-~]{1,250}>)[ \t]*\r?$")
MOST_RETURNED_IDS = 5


def returned_message_ids(raw: bytes) -> list[str]:
    """The Message-IDs of the mail a report returns (its headers, in a ``text/rfc822-headers`` or
    ``message/rfc822`` part): every Message-ID line after the report's own header block, the first
    few. A provider's account sends with itself as envelope sender, so its bounces come to the
    club's own address: the returned mail's Message-ID (each of our mails has its own, one per
    recipient) says which mail failed, as the bounce address does otherwise.

    >>> report = b"Message-ID: <dsn@mx>\\r\\n\\r\\nfailed\\r\\n\\r\\nMessage-ID: <42.x@club>\\r\\nSubject: b\\r\\n"
    >>> returned_message_ids(report)
    ['<42.x@club>']
    """
    text = raw[:MOST_READ]
    found = [m[1].decode("ascii") for m in _RETURNED_MESSAGE_ID.finditer(text, len(_head(text)))]
    return list(dict.fromkeys(found))[:MOST_RETURNED_IDS]
