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

from sqlalchemy import and_, bindparam, case, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from pbm.addresses import comparable, comparable_column
from pbm.store.database import execute_plain
from pbm.store.models import HoldReason, InboundMessage, OutboxMessage, OutboxStatus, Player

LEASE = timedelta(seconds=15)
"""How long a claim holds without renewal: how long a dead worker's rows wait."""


def claim_due(
    session: Session,
    now: datetime,
    held_until: datetime,
    holder: str,
    *,
    limit: int = 20,
    answers_only: bool = False,
    by_priority: bool = False,
) -> list[OutboxMessage]:
    """Pending rows whose time has come, leased to `holder` until `held_until`, oldest first; with
    `answers_only`, only answers to a mail of their own recipient (`_ANSWER`); with `by_priority`
    (a daily cap leaves room for some only), answers first and board mails for players who take
    digests last (`PRIORITY`)."""
    query = select(OutboxMessage).where(
        OutboxMessage.status == OutboxStatus.PENDING, OutboxMessage.next_attempt_at <= now
    )
    if answers_only:
        query = query.where(_ANSWER)
    order = (PRIORITY,) if by_priority else ()
    due = list(
        session.scalars(
            query.order_by(*order, OutboxMessage.next_attempt_at, OutboxMessage.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    for row in due:
        row.next_attempt_at = held_until
        row.held_by = holder
    return due


_ANSWER = (
    select(InboundMessage.id)
    .where(
        InboundMessage.id == OutboxMessage.inbound_id,
        func.lower(InboundMessage.envelope_from) == func.lower(OutboxMessage.recipient),
    )
    .exists()
)
"""A mail that answers its own recipient's mail (their move's board, an error in their command)."""

DIGESTED = ("board", "nag")
"""Kinds of the mails a digest stands for, when they tell a player it is their move (`pbm.mail.outgoing`)."""

_FOR_A_DIGEST_TAKER = OutboxMessage.kind.in_(DIGESTED) & (
    select(Player.id).where(Player.id == OutboxMessage.player_id, Player.digest_times.is_not(None)).exists()
)
"""A board mail or a reminder for a player who takes digests: what it says, their digest says too."""

PRIORITY = case((_ANSWER, 0), (_FOR_A_DIGEST_TAKER, 2), else_=1)
"""The order mail goes in when a daily cap leaves room for some only: answers to a player's own
mail, then the rest, then board mails for players who take digests, which their digest will tell."""


def put_back(session: Session, message_ids: Collection[int], until: datetime, reason: str) -> None:
    """Rows that were not sent, through no fault of their own (the provider unreachable, the daily
    limit reached): due again at `until`, with `reason` shown (``pbm outbox``), no attempt counted."""
    if message_ids:
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id.in_(sorted(message_ids)), OutboxMessage.status == OutboxStatus.PENDING)
            .values(next_attempt_at=until, held_by=None, last_error=reason[:2000])
            .execution_options(synchronize_session=False)
        )


def defer_due(session: Session, now: datetime, until: datetime, reason: str, *, but_answers: bool = False) -> int:
    """Every due row (but the answers, `_ANSWER`, with `but_answers`) waits until `until`, `reason`
    shown; returns how many. No attempt is counted."""
    query = update(OutboxMessage).where(
        OutboxMessage.status == OutboxStatus.PENDING, OutboxMessage.next_attempt_at <= now
    )
    if but_answers:
        query = query.where(~_ANSWER)
    done = session.execute(
        query.values(next_attempt_at=until, last_error=reason[:2000]).execution_options(synchronize_session=False)
    )
    return int(getattr(done, "rowcount", 0) or 0)


def sent_since(session: Session, since: datetime) -> tuple[int, datetime | None]:
    """How many mails went since `since`, and when the first of them went."""
    count, first = session.execute(
        select(func.count(), func.min(OutboxMessage.sent_at)).where(
            OutboxMessage.status == OutboxStatus.SENT, OutboxMessage.sent_at >= since
        )
    ).one()
    return int(count), first


def waiting_with(session: Session, now: datetime, reason: str) -> int:
    """How many pending rows wait, not due before a later time, with `reason` in what they say."""
    return int(
        session.scalar(
            select(func.count()).where(
                OutboxMessage.status == OutboxStatus.PENDING,
                OutboxMessage.next_attempt_at > now,
                OutboxMessage.held_by.is_(None),
                OutboxMessage.last_error.contains(reason, autoescape=True),
            )
        )
        or 0
    )


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


def renew_lease(session: Session, message_ids: Collection[int], held_until: datetime, until: datetime) -> set[int]:
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
        .values(status=OutboxStatus.SENT, sent_at=now, attempts=OutboxMessage.attempts + 1, last_error="", held_by=None)
        .execution_options(synchronize_session=False)
    )
    _forget_secrets(session, message_ids)


def mark_failed_attempt(session: Session, message_id: int, error: str, retry_at: datetime | None) -> None:
    """Record a failed attempt: retry at `retry_at`, or give up for good when it is None."""
    # Its lease ends with the attempt: a retry waits out its backoff, whoever made the attempt.
    values: dict[str, object] = {"attempts": OutboxMessage.attempts + 1, "last_error": error[:2000], "held_by": None}
    if retry_at is None:
        values["status"] = OutboxStatus.FAILED
    else:
        values["next_attempt_at"] = retry_at
    session.execute(update(OutboxMessage).where(OutboxMessage.id == message_id).values(**values))
    if retry_at is None:
        _forget_secrets(session, [message_id])


def _forget_secrets(session: Session, message_ids: Collection[int]) -> None:
    """Of the mails `message_ids`, those that carry a secret keep only their copy without it:
    they will not be sent again, and whoever reads the database must not find a secret that works."""
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id.in_(message_ids), OutboxMessage.raw_without_secret.is_not(None))
        .values(raw=OutboxMessage.raw_without_secret, raw_without_secret=None)
        .execution_options(synchronize_session=False)
    )


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
        query = query.where(OutboxMessage.status.not_in([OutboxStatus.SENT, OutboxStatus.GATHERED]))
    return list(session.scalars(query))


@dataclass(frozen=True)
class Hold:
    """Why a mail is held back, and until when (None: until `release` lets it go)."""

    reason: HoldReason
    release_at: datetime | None


@dataclass(frozen=True)
class Queued:
    """A composed mail for the outbox. `suppressed` (the limit it met) records it never to be sent;
    `hold` records it held back; `player_id` is the player it is for, if any."""

    recipient: str
    message_id: str
    raw: bytes
    kind: str
    game_id: int | None = None
    suppressed: str | None = None
    raw_without_secret: bytes | None = None
    """`raw` without the secret it carries, if it carries one (`OutboxMessage.raw_without_secret`)."""
    hold: Hold | None = None
    player_id: int | None = None


def enqueue(session: Session, mails: Sequence[Queued], *, now: datetime, inbound_id: int | None = None) -> None:
    """Add `mails` to the outbox, in one statement (`inbound_id`: the received mail that caused them)."""
    if not mails:
        return
    rows = [
        {
            "recipient": mail.recipient,
            "message_id": mail.message_id,
            # A mail held back is never sent: it keeps no secret either.
            "raw": (mail.raw_without_secret or mail.raw) if mail.suppressed else mail.raw,
            "raw_without_secret": None if mail.suppressed else mail.raw_without_secret,
            "kind": mail.kind,
            "status": _status_of(mail),
            "last_error": mail.suppressed or "",
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
            "queued_at": None if mail.suppressed or mail.hold else now,
            "hold_reason": mail.hold.reason if mail.hold else None,
            "release_at": mail.hold.release_at if mail.hold else None,
            "inbound_id": inbound_id,
            "game_id": mail.game_id,
            "player_id": mail.player_id,
        }
        for mail in mails
    ]
    execute_plain(session, _ENQUEUE, rows)
    # Held behind mail whose time has come (the hour has room again): it goes at once, gathered.
    _let_go(session, sum(1 for m in mails if m.hold and m.hold.release_at is not None and m.hold.release_at <= now))


def _status_of(mail: Queued) -> OutboxStatus:
    if mail.suppressed:
        return OutboxStatus.SUPPRESSED
    return OutboxStatus.HELD if mail.hold else OutboxStatus.PENDING


_ENQUEUE = insert(OutboxMessage)


@dataclass(frozen=True)
class Recent:
    """The mails queued to one address within a window: how many, how many of some kinds, the oldest's time."""

    mails: int
    of_kinds: int
    oldest: datetime


def recent_counts(
    session: Session, recipients: Collection[str], since: datetime, *, kinds: Collection[str]
) -> dict[str, Recent]:
    """By the comparable form (`pbm.addresses`) of each of `recipients` that has any: the mails
    queued to it since `since` (neither held back nor suppressed), however its case was written."""
    keys = sorted({comparable(r) for r in recipients})
    if not keys:
        return {}
    parameters = {"keys": keys, "since": since, "kinds": list(kinds)}
    rows = execute_plain(session, _RECENT_COUNTS, parameters)
    return {key: Recent(every, of_kind, oldest) for key, every, of_kind, oldest in rows}


_RECIPIENT = comparable_column(OutboxMessage.recipient)
_RECENT_COUNTS = (
    select(
        _RECIPIENT,
        func.count(),
        func.coalesce(func.sum(case((OutboxMessage.kind.in_(bindparam("kinds", expanding=True)), 1), else_=0)), 0),
        func.min(OutboxMessage.queued_at),
    )
    .where(_RECIPIENT.in_(bindparam("keys", expanding=True)), OutboxMessage.queued_at >= bindparam("since"))
    .group_by(_RECIPIENT)
)
"""Built once: every mail that answers anyone asks it."""


def id_of_message(session: Session, message_ids: Collection[str]) -> int | None:
    """The outbox row of the first of our mails among `message_ids`, if any is ours."""
    query = select(OutboxMessage.id).where(OutboxMessage.message_id.in_(sorted(set(message_ids))))
    return session.scalars(query.order_by(OutboxMessage.id).limit(1)).first()


def kinds_of(session: Session, message_ids: Collection[str]) -> dict[str, str]:
    """The template each of our mails among `message_ids` was made from (``message``), by Message-ID:
    what a mail that answers one of them answers."""
    if not message_ids:
        return {}
    query = select(OutboxMessage.message_id, OutboxMessage.kind).where(OutboxMessage.message_id.in_(message_ids))
    return {message_id: kind for message_id, kind in session.execute(query)}


@dataclass(frozen=True)
class Answerable:
    """One of our mails, as much as an answer to it needs: its template, its game, its recipient."""

    kind: str
    game_id: int | None
    player_id: int | None
    recipient: str


def answerable(session: Session, message_ids: Collection[str]) -> dict[str, Answerable]:
    """Our mails among `message_ids`, by Message-ID (`kinds_of`, with the game and the recipient)."""
    if not message_ids:
        return {}
    query = select(
        OutboxMessage.message_id,
        OutboxMessage.kind,
        OutboxMessage.game_id,
        OutboxMessage.player_id,
        OutboxMessage.recipient,
    ).where(OutboxMessage.message_id.in_(message_ids))
    return {
        row.message_id: Answerable(row.kind, row.game_id, row.player_id, row.recipient)
        for row in session.execute(query)
    }


def held_for(session: Session, recipients: Collection[str]) -> dict[str, Hold]:
    """By the comparable form of each of `recipients` that has mail held back by the hourly limit:
    how the latest is held (later mail waits behind it). Mail waiting for a confirmation holds up
    nothing: it waits for its own player's."""
    keys = sorted({comparable(r) for r in recipients})
    if not keys:
        return {}
    rows = execute_plain(session, _HELD_FOR, {"keys": keys})
    return {key: Hold(reason, release_at) for key, reason, release_at in rows}


_HELD_FOR = (
    select(_RECIPIENT, OutboxMessage.hold_reason, OutboxMessage.release_at)
    .where(
        _RECIPIENT.in_(bindparam("keys", expanding=True)),
        # Held mail is not queued yet: the index on (recipient, queued_at) finds it.
        OutboxMessage.queued_at.is_(None),
        OutboxMessage.status == OutboxStatus.HELD,
        OutboxMessage.hold_reason == HoldReason.HOURLY_LIMIT,
    )
    .order_by(OutboxMessage.id)
)
"""Built once: every mail that answers anyone asks it. Rows come oldest first, so the last one
read for an address is its latest."""


def due_held(session: Session, now: datetime, *, limit: int) -> list[str]:
    """The comparable forms of (at most `limit`) addresses that have held mail whose time has come."""
    query = (
        select(_RECIPIENT)
        .where(OutboxMessage.status == OutboxStatus.HELD, OutboxMessage.release_at <= now)
        .group_by(_RECIPIENT)
        .order_by(func.min(OutboxMessage.release_at))
        .limit(limit)
    )
    return list(session.scalars(query))


def held_till_later(session: Session, now: datetime, *, limit: int) -> list[str]:
    """The comparable forms of (at most `limit`) addresses with mail the hourly limit holds back
    until later than `now`."""
    query = (
        select(_RECIPIENT)
        .where(*_HELD_TILL_LATER, OutboxMessage.release_at > now)
        .group_by(_RECIPIENT)
        .order_by(func.min(OutboxMessage.release_at))
        .limit(limit)
    )
    return list(session.scalars(query))


def bring_forward(session: Session, keys: Collection[str], now: datetime) -> None:
    """The mail the hourly limit holds back for the addresses whose comparable forms are `keys`
    goes at `now` instead (`pbm.mail.held`: the hour has room for it)."""
    if keys:
        statement = (
            update(OutboxMessage)
            .where(*_HELD_TILL_LATER, OutboxMessage.release_at > now, _RECIPIENT.in_(sorted(keys)))
            .values(release_at=now)
            .execution_options(synchronize_session=False)
        )
        session.execute(statement)


_HELD_TILL_LATER = (OutboxMessage.status == OutboxStatus.HELD, OutboxMessage.hold_reason == HoldReason.HOURLY_LIMIT)


def claim_held(session: Session, key: str, now: datetime) -> list[OutboxMessage]:
    """The mail held back for the address whose comparable form is `key` whose time has come,
    oldest first and locked; none when another worker is letting some of it go just now (all of
    an address's held mail that is due goes together, or none of it). Mail whose time is still to
    come (a player's quiet hours that have not ended) stays held."""
    timed = (
        OutboxMessage.status == OutboxStatus.HELD,
        _RECIPIENT == key,
        OutboxMessage.release_at <= now,
    )
    rows = list(
        session.scalars(
            select(OutboxMessage).where(*timed).order_by(OutboxMessage.id).with_for_update(skip_locked=True)
        )
    )
    waiting = session.scalar(select(func.count()).select_from(OutboxMessage).where(*timed))
    return rows if len(rows) == waiting else []


def postpone(rows: Sequence[OutboxMessage], release_at: datetime) -> None:
    """Held mail whose time came while its address still has no room: it waits until `release_at`."""
    for row in rows:
        row.release_at = release_at


def wait_for_quiet_hours(rows: Sequence[OutboxMessage], release_at: datetime) -> None:
    """Held mail whose time came in its player's quiet hours: it waits for them to end, at
    `release_at`, as mail that came in them does (and holds up no later mail to its address)."""
    for row in rows:
        row.hold_reason = HoldReason.QUIET_HOURS
        row.release_at = release_at


def requeue_held(row: OutboxMessage, raw: bytes, now: datetime) -> None:
    """A held mail goes out as it was (its text now `raw`): queued, and counted, from `now`."""
    row.raw = raw
    row.status = OutboxStatus.PENDING
    row.queued_at = row.next_attempt_at = row.release_at = now


def mark_gathered(rows: Sequence[OutboxMessage], now: datetime) -> None:
    """Held mails that go out gathered into one mail (queued in the same transaction)."""
    for row in rows:
        row.status = OutboxStatus.GATHERED
        row.release_at = now


def release_digest_mail(session: Session, player_id: int, now: datetime) -> int:
    """The board mails held for `player_id`'s digests go as mails of their own (they took the
    digest off): the time pass lets them go. Returns how many."""
    return _let_go(session, _change_digest_mail(session, player_id, release_at=now))


LET_GO = "pbm.store.outbox.let_go"
"""The key, in the `info` of a session that let held mail go from its `now` (`release`,
`release_digest_mail`), or held mail whose time has come (`enqueue`: behind mail that waited),
that says so: the mail worker then lets it go at once, after the mail that let it go, and every
other mail it applies asks nothing of the held mail (issue 45)."""


def _let_go(session: Session, count: int) -> int:
    if count:
        session.info[LET_GO] = True
    return count


def gather_into_digest(session: Session, player_id: int, now: datetime, *, told: bool = True) -> int:
    """The mails held for `player_id`'s digest, done with as its time comes: marked gathered, never
    to go on their own. `told`: a digest went, listing the games still waiting for the player's
    move (a held mail about one that no longer waits is overtaken); else no game waits any more,
    no digest went, and each row says so. Returns how many."""
    values: dict[str, object] = {"status": OutboxStatus.GATHERED, "release_at": now}
    if not told:
        values["last_error"] = NO_DIGEST
    return _change_digest_mail(session, player_id, **values)


NO_DIGEST = "no digest went: no game waited for its player's move any more"
"""What a mail held for a digest that had nothing to tell records (`pbm outbox --all`)."""
SIGNED_OFF = "not sent: its player signed off before the digest it waited for"
"""What a mail held for the digest of a player who signed off records (`pbm outbox`)."""


def drop_digest_mail(session: Session, player_id: int, now: datetime) -> int:
    """The mails held for the digest of `player_id`, who signed off: no digest will go, so they are
    never sent, each saying why (`SIGNED_OFF`). Mail held for `player_id` for any other reason (an
    answer they asked for, past the hourly limit) is kept, and goes as its hold says. Returns how many."""
    return _change_digest_mail(
        session, player_id, status=OutboxStatus.SUPPRESSED, last_error=SIGNED_OFF, release_at=now
    )


def _change_digest_mail(session: Session, player_id: int, **values: object) -> int:
    """Set `values` on every mail held for `player_id`'s digest; returns how many."""
    changed = session.scalars(
        update(OutboxMessage)
        .where(
            OutboxMessage.status == OutboxStatus.HELD,
            OutboxMessage.hold_reason == HoldReason.DIGEST,
            OutboxMessage.player_id == player_id,
        )
        .values(**values)
        .returning(OutboxMessage.id)
        .execution_options(synchronize_session=False)
    )
    return len(changed.all())


def release(
    session: Session, recipient: str, reason: HoldReason, now: datetime, *, player_id: int | None = None
) -> int:
    """Let the mail held back for `reason` to `recipient` (however its case is written) go from
    `now`, only that for `player_id` when given: the time pass sends it, gathered, within the
    limits. Returns how many mails that is."""
    for_player = () if player_id is None else (OutboxMessage.player_id == player_id,)
    released = session.scalars(
        update(OutboxMessage)
        .where(
            OutboxMessage.status == OutboxStatus.HELD,
            _RECIPIENT == comparable(recipient),
            OutboxMessage.hold_reason == reason,
            *for_player,
        )
        .values(release_at=now)
        .returning(OutboxMessage.id)
        .execution_options(synchronize_session=False)
    )
    return _let_go(session, len(released.all()))


def prune_sent(session: Session, *, done_before: datetime, limit: int) -> int:
    """Forget at most `limit` mails that went before `done_before`: sent, or gone gathered into
    one that was (its copy of them is the one kept). Never a mail waiting, held back, failed or
    suppressed: those are still to send, or what the administrator looks at. Returns how many."""
    done = or_(
        and_(OutboxMessage.status == OutboxStatus.SENT, OutboxMessage.sent_at < done_before),
        and_(OutboxMessage.status == OutboxStatus.GATHERED, OutboxMessage.release_at < done_before),
    )
    ids = list(session.scalars(select(OutboxMessage.id).where(done).order_by(OutboxMessage.id).limit(limit)))
    if ids:
        session.execute(
            delete(OutboxMessage).where(OutboxMessage.id.in_(ids)).execution_options(synchronize_session=False)
        )
    return len(ids)
