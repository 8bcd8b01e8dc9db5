"""Inbound mail: stored raw before the SMTP 250, processed later, exactly once.

The first copy of a mail carries its dedupe key; the unique index on that key
means a second delivery of the same mail is recorded as a duplicate instead of
processed again, even when two deliveries race. The key is the Message-ID and
a digest of what the author wrote: a mail that comes again by another path (a
retry, a second MX, a Postfix pipe beside the SMTP door) differs only in the
trace headers MTAs add on the way, and is the same mail; another mail that
reuses a Message-ID is not.

What is stored from the envelope and the Message-ID is reduced first (no NUL
or control characters, at most what the column holds): it comes from anyone,
and a value the database refuses would be refused again at every retry. The
raw mail is stored as it came.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import compat32

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm.mail.headers import one_line
from pbm.store.database import Database
from pbm.store.models import InboundMessage, utcnow

MAX_ENVELOPE_ADDRESS = 320
"""The `envelope_from` column; envelope recipients are cut to it too."""
MAX_MESSAGE_ID = 998
MAX_PEER = 128

AUTHOR_HEADERS = (
    "from", "sender", "reply-to", "to", "cc", "subject", "date", "message-id",
    "in-reply-to", "references", "mime-version", "content-type", "content-transfer-encoding",
)  # fmt: skip
"""The headers a mail's author (or their client) wrote: with the body, what the mail says.
Every other header may be added in transit (Received, Return-Path, Delivered-To,
X-Original-To, DKIM-Signature, ARC-*, Authentication-Results, spam scores...)."""


def dedupe_key(raw: bytes) -> tuple[str | None, str]:
    """The mail's Message-ID (reduced, if any) and the key that identifies the mail.

    >>> mail = b"Message-ID: <1@x>\\r\\nSubject: help\\r\\n\\r\\nhelp\\r\\n"
    >>> dedupe_key(mail)[0]
    '<1@x>'
    >>> dedupe_key(b"Received: from mx2\\n" + mail.replace(b"\\r\\n", b"\\n")) == dedupe_key(mail)
    True
    >>> dedupe_key(mail) == dedupe_key(mail.replace(b"help\\r\\n", b"list\\r\\n"))
    False
    """
    head, body = _split(raw.replace(b"\r\n", b"\n"))
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(head)
        found = headers.get("Message-ID")
    except Exception:  # a header block we cannot read has no usable Message-ID
        headers, found = None, None
    message_id = one_line(str(found), limit=MAX_MESSAGE_ID) if found is not None else ""
    content = hashlib.sha256()
    if headers is not None:
        for name, value in headers.items():
            if name.lower() in AUTHOR_HEADERS:
                # Unfolded and trimmed: a relay may refold a long header line.
                text = " ".join(str(value).split())
                content.update(f"{name.lower()}:{text}\n".encode("utf-8", "surrogateescape"))
    content.update(b"\n" + body)
    if message_id:
        key = hashlib.sha256(message_id.encode("utf-8") + b"\n" + content.digest())
        return message_id, "mid:" + key.hexdigest()
    return None, "content:" + content.hexdigest()


def _split(raw: bytes) -> tuple[bytes, bytes]:
    """The header block and the body of a mail with ``\\n`` line ends."""
    if raw.startswith(b"\n"):
        return b"", raw[1:]
    head, blank, body = raw.partition(b"\n\n")
    return (head, body) if blank else (raw, b"")


def save_inbound(
    database: Database, raw: bytes, *, envelope_from: str, envelope_to: Sequence[str], peer: str = ""
) -> InboundMessage:
    """Store one received mail durably; returns the row (status pending or duplicate)."""
    message_id, key = dedupe_key(raw)
    fields = dict(
        raw=raw,
        message_id=message_id,
        envelope_from=one_line(envelope_from, limit=MAX_ENVELOPE_ADDRESS),
        envelope_to="\n".join(one_line(address, limit=MAX_ENVELOPE_ADDRESS) for address in envelope_to),
        peer=one_line(peer, limit=MAX_PEER),
        received_at=utcnow(),
    )
    try:
        with database.transaction(urgent=True) as session:
            row = InboundMessage(dedupe_key=key, status="pending", **fields)
            session.add(row)
        return row
    except IntegrityError:
        with database.transaction(urgent=True) as session:
            first = session.scalar(select(InboundMessage.id).where(InboundMessage.dedupe_key == key))
            row = InboundMessage(
                dedupe_key=None,
                status="duplicate",
                note=f"a copy of inbound message {first}, which was processed instead",
                processed_at=utcnow(),
                **fields,
            )
            session.add(row)
        return row


def next_pending(session: Session) -> InboundMessage | None:
    """The oldest unprocessed mail, locked for this transaction (others skip it)."""
    query = (
        select(InboundMessage)
        .where(InboundMessage.status == "pending")
        .order_by(InboundMessage.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    return session.scalar(query)


def pending_count(session: Session) -> int:
    return session.scalar(select(func.count()).where(InboundMessage.status == "pending")) or 0


def requeue_failed(database: Database, ids: Sequence[int]) -> list[int]:
    """Put failed mails back in the queue (after the bug that failed them is fixed)."""
    with database.transaction() as session:
        rows = session.scalars(
            select(InboundMessage).where(InboundMessage.id.in_(ids), InboundMessage.status == "failed")
        ).all()
        for row in rows:
            row.status = "pending"
            row.note = f"requeued after: {row.note}"[:2000]
        return sorted(row.id for row in rows)


def needing_attention(session: Session) -> list[InboundMessage]:
    """Mail not (yet) answered: pending, failed, or ignored as automatic; oldest first."""
    query = select(InboundMessage).where(InboundMessage.status.in_(("pending", "failed", "ignored")))
    return list(session.scalars(query.order_by(InboundMessage.id)))


def status_counts(session: Session) -> dict[str, int]:
    """How many received mails are in each status (pending, processed, failed, ...)."""
    rows = session.execute(select(InboundMessage.status, func.count()).group_by(InboundMessage.status))
    return {status: count for status, count in rows}


def oldest_pending_received_at(session: Session) -> datetime | None:
    """When the oldest mail still waiting to be processed arrived (``None``: nothing waits)."""
    query = (
        select(InboundMessage.received_at)
        .where(InboundMessage.status == "pending")
        .order_by(InboundMessage.id)
        .limit(1)
    )
    return session.scalar(query)
