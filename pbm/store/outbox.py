"""The transactional outbox: replies are rows first, mail later.

A reply is added in the same transaction as the command that caused it, so a
move is never applied without its mails, nor mailed without being applied.
Delivery claims a row by pushing its next attempt into the future (a lease)
before sending, so two delivery workers never send the same row at once; a
worker that dies mid-send leaves the row to be retried when the lease ends.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from pbm.store.models import OutboxMessage

LEASE = timedelta(minutes=5)


def claim_due(session: Session, now: datetime, *, limit: int = 20) -> list[OutboxMessage]:
    """Pending rows whose time has come, leased to the caller."""
    due = list(
        session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.status == "pending", OutboxMessage.next_attempt_at <= now)
            .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    for row in due:
        row.next_attempt_at = now + LEASE
    return due


def mark_sent(session: Session, message_id: int, now: datetime) -> None:
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message_id)
        .values(status="sent", sent_at=now, attempts=OutboxMessage.attempts + 1, last_error="")
    )


def mark_failed_attempt(session: Session, message_id: int, error: str, retry_at: datetime | None) -> None:
    """Record a failed attempt: retry at `retry_at`, or give up for good when it is None."""
    values: dict[str, object] = {"attempts": OutboxMessage.attempts + 1, "last_error": error[:2000]}
    if retry_at is None:
        values["status"] = "failed"
    else:
        values["next_attempt_at"] = retry_at
    session.execute(update(OutboxMessage).where(OutboxMessage.id == message_id).values(**values))


def most_overdue(session: Session, now: datetime) -> datetime | None:
    """When the longest-waiting reply that is due (pending, its time come) fell due; ``None``: none is."""
    query = select(func.min(OutboxMessage.next_attempt_at)).where(
        OutboxMessage.status == "pending", OutboxMessage.next_attempt_at <= now
    )
    return session.scalar(query)


def counts(session: Session) -> dict[str, int]:
    rows = session.execute(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status))
    return {status: count for status, count in rows}


def listing(session: Session, *, include_sent: bool = False) -> list[OutboxMessage]:
    """The outbox, oldest first: what waits or failed for good (and what went, if asked)."""
    query = select(OutboxMessage).order_by(OutboxMessage.id)
    if not include_sent:
        query = query.where(OutboxMessage.status != "sent")
    return list(session.scalars(query))
