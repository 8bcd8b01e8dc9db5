"""The transactional outbox: replies are rows first, mail later.

A reply is added in the same transaction as the command that caused it, so a
move is never applied without its mails, nor mailed without being applied.
Delivery claims a row by pushing its next attempt into the future (a lease)
before sending, so two delivery workers never send the same row at once. The
lease is short and renewed while the worker still holds the row, so it ends
with the worker: the rows of a worker that was killed mid-send fall due again
within `LEASE`, and another worker sends them. A lease names its worker, so a
worker that knows the holder is dead (a process on its own host that is gone,
see `pbm.mail.worker`) ends the lease at once instead.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, case, func, insert, select, update
from sqlalchemy.orm import Session

from pbm.store.database import execute_plain
from pbm.store.models import OutboxMessage, OutboxStatus

LEASE = timedelta(seconds=15)
"""How long a claim holds without renewal: how long a dead worker's rows wait."""


def claim_due(
    session: Session, now: datetime, held_until: datetime, holder: str, *, limit: int = 20
) -> list[OutboxMessage]:
    """Pending rows whose time has come, leased to `holder` until `held_until`."""
    due = list(
        session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.status == OutboxStatus.PENDING, OutboxMessage.next_attempt_at <= now)
            .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    for row in due:
        row.next_attempt_at = held_until
        row.held_by = holder
    return due


def leases(session: Session, now: datetime) -> list[tuple[int, str]]:
    """(row id, holder) of every reply leased to a worker now."""
    query = select(OutboxMessage.id, OutboxMessage.held_by).where(
        OutboxMessage.status == OutboxStatus.PENDING,
        OutboxMessage.next_attempt_at > now,
        OutboxMessage.held_by.is_not(None),
    )
    return [(message_id, holder) for message_id, holder in session.execute(query) if holder is not None]


def end_leases(session: Session, message_ids: Collection[int], holders: Collection[str], now: datetime) -> None:
    """End the leases `holders` (workers that are gone) have on `message_ids`: due at `now`.

    A row another worker claimed meanwhile names that worker, and keeps its lease.
    """
    session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.id.in_(message_ids),
            OutboxMessage.status == OutboxStatus.PENDING,
            OutboxMessage.held_by.in_(holders),
        )
        .values(next_attempt_at=now, held_by=None)
        .execution_options(synchronize_session=False)
    )


def renew_lease(
    session: Session, message_ids: Collection[int], held_until: datetime, until: datetime
) -> set[int]:
    """Extend the caller's lease on `message_ids` from `held_until` to `until`; returns the ids still held.

    A row is still the caller's when it is pending and its lease is the one
    the caller set: a row whose lease lapsed and was claimed by another
    worker, or that was sent or rescheduled meanwhile, is left alone.
    """
    if not message_ids:
        return set()
    renewed = session.scalars(
        update(OutboxMessage)
        .where(
            OutboxMessage.id.in_(message_ids),
            OutboxMessage.status == OutboxStatus.PENDING,
            OutboxMessage.next_attempt_at == held_until,
        )
        .values(next_attempt_at=until)
        .returning(OutboxMessage.id)
        .execution_options(synchronize_session=False)
    )
    return set(renewed)


def mark_sent(session: Session, message_ids: Collection[int], now: datetime) -> None:
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id.in_(message_ids))
        .values(
            status=OutboxStatus.SENT, sent_at=now, attempts=OutboxMessage.attempts + 1, last_error="", held_by=None
        )
        .execution_options(synchronize_session=False)
    )


def mark_failed_attempt(session: Session, message_id: int, error: str, retry_at: datetime | None) -> None:
    """Record a failed attempt: retry at `retry_at`, or give up for good when it is None."""
    # Its lease ends with the attempt: a retry waits out its backoff, whoever made the attempt.
    values: dict[str, object] = {"attempts": OutboxMessage.attempts + 1, "last_error": error[:2000], "held_by": None}
    if retry_at is None:
        values["status"] = OutboxStatus.FAILED
    else:
        values["next_attempt_at"] = retry_at
    session.execute(update(OutboxMessage).where(OutboxMessage.id == message_id).values(**values))


def next_attempt_at(session: Session) -> datetime | None:
    """When the soonest pending reply falls due (a retry, or a lease that lapses); ``None``: none waits."""
    query = select(func.min(OutboxMessage.next_attempt_at)).where(OutboxMessage.status == OutboxStatus.PENDING)
    return session.scalar(query)


def most_overdue(session: Session, now: datetime) -> datetime | None:
    """When the longest-waiting reply that is due (pending, its time come) fell due; ``None``: none is."""
    due = next_attempt_at(session)
    return due if due is not None and due <= now else None


def counts(session: Session) -> dict[str, int]:
    rows = session.execute(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status))
    return {status: count for status, count in rows}


def rows(session: Session, *, include_sent: bool = False) -> list[OutboxMessage]:
    """The outbox, oldest first: what waits or failed for good (and what went, if asked)."""
    query = select(OutboxMessage).order_by(OutboxMessage.id)
    if not include_sent:
        query = query.where(OutboxMessage.status != OutboxStatus.SENT)
    return list(session.scalars(query))


@dataclass(frozen=True)
class Queued:
    """A composed mail for the outbox; `suppressed` (the limit it met) records it without sending it,
    `unconfirmed` keeps it until its recipient confirms the address."""

    recipient: str
    message_id: str
    raw: bytes
    kind: str
    game_id: int | None = None
    suppressed: str | None = None
    unconfirmed: bool = False
    player_id: int | None = None


def enqueue(session: Session, mails: Sequence[Queued], *, now: datetime, inbound_id: int | None = None) -> None:
    """Add `mails` to the outbox, in one statement (`inbound_id`: the received mail that caused them)."""
    if not mails:
        return
    rows = [
        {
            "recipient": mail.recipient,
            "message_id": mail.message_id,
            "raw": mail.raw,
            "kind": mail.kind,
            "status": _status(mail),
            "last_error": mail.suppressed or "",
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
            "inbound_id": inbound_id,
            "game_id": mail.game_id,
            "player_id": mail.player_id,
        }
        for mail in mails
    ]
    execute_plain(session, _ENQUEUE, rows)


_ENQUEUE = insert(OutboxMessage)


def _status(mail: Queued) -> OutboxStatus:
    if mail.suppressed:
        return OutboxStatus.SUPPRESSED
    return OutboxStatus.UNCONFIRMED if mail.unconfirmed else OutboxStatus.PENDING


def release_unconfirmed(session: Session, address: str, player_id: int, now: datetime) -> int:
    """Send what waited for `player_id`'s `address` to be confirmed, from `now`; returns how many mails."""
    released = session.execute(
        update(OutboxMessage)
        .where(
            OutboxMessage.status == OutboxStatus.UNCONFIRMED,
            OutboxMessage.player_id == player_id,
            func.lower(OutboxMessage.recipient) == address.lower(),
        )
        .values(status=OutboxStatus.PENDING, next_attempt_at=now)
        .execution_options(synchronize_session=False)
    )
    return int(released.rowcount)  # type: ignore[attr-defined]  # an UPDATE gives a CursorResult


def recent_counts(
    session: Session, recipients: Collection[str], since: datetime, *, kinds: Collection[str]
) -> dict[str, tuple[int, int]]:
    """For each of `recipients` that has any: (mails queued to be sent since `since`, of them of `kinds`);
    mails held back (suppressed, or waiting for a confirmation) do not count."""
    if not recipients:
        return {}
    parameters = {"recipients": sorted(recipients), "since": since, "kinds": list(kinds)}
    rows = execute_plain(session, _RECENT_COUNTS, parameters)
    return {recipient: (every, of_kind) for recipient, every, of_kind in rows}


_RECENT_COUNTS = (
    select(
        OutboxMessage.recipient,
        func.count(),
        func.coalesce(func.sum(case((OutboxMessage.kind.in_(bindparam("kinds", expanding=True)), 1), else_=0)), 0),
    )
    .where(
        OutboxMessage.recipient.in_(bindparam("recipients", expanding=True)),
        OutboxMessage.created_at >= bindparam("since"),
        OutboxMessage.status.not_in([OutboxStatus.SUPPRESSED, OutboxStatus.UNCONFIRMED]),
    )
    .group_by(OutboxMessage.recipient)
)
"""Built once: every mail that answers anyone asks it."""
