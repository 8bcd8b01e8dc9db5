"""Inbound mail: stored raw before the SMTP 250, processed later, exactly once.

The first copy of a mail carries its dedupe key (the Message-ID, or a digest of
the raw bytes when there is none); the unique index on that key means a second
delivery of the same mail is recorded as a duplicate instead of processed again,
even when two deliveries race.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from email.parser import BytesHeaderParser
from email.policy import compat32

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbm.store.database import Database
from pbm.store.models import InboundMessage, utcnow


def dedupe_key(raw: bytes) -> tuple[str | None, str]:
    """The mail's Message-ID (if any) and the key that identifies the mail."""
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw[:65536])
        message_id = str(headers.get("Message-ID") or "").strip() or None
    except Exception:  # a header block we cannot read has no usable Message-ID
        message_id = None
    if message_id:
        message_id = message_id[:998]
        return message_id, "mid:" + hashlib.sha256(message_id.encode("utf-8", "replace")).hexdigest()
    return None, "raw:" + hashlib.sha256(raw).hexdigest()


def save_inbound(
    database: Database, raw: bytes, *, envelope_from: str, envelope_to: Sequence[str], peer: str = ""
) -> InboundMessage:
    """Store one received mail durably; returns the row (status pending or duplicate)."""
    message_id, key = dedupe_key(raw)
    fields = dict(
        raw=raw,
        message_id=message_id,
        envelope_from=envelope_from,
        envelope_to="\n".join(envelope_to),
        peer=peer,
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
