"""Inbound mail: stored raw before the SMTP 250, processed later, exactly once.

The first copy of a mail carries its dedupe key; the unique index on that key
means a second delivery of the same mail is recorded as a duplicate instead of
processed again, even when two deliveries race. The key is the Message-ID and
a digest of what the author wrote: a mail that comes again by another path (a
retry, a second MX, a Postfix pipe beside the SMTP door) differs only in the
trace headers MTAs add on the way, and is the same mail; another mail that
reuses a Message-ID is not. A mail without a Message-ID is known instead by
the first hop of its trace (`dedupe_key`): the same words sent again are
another mail, and answered again. A duplicate is kept, with a note naming the
copy that was processed, and `pbm inbox --duplicates` lists them.

What is stored from the envelope and the Message-ID is reduced first (no NUL
or control characters, at most what the column holds): it comes from anyone,
and a value the database refuses would be refused again at every retry. The
raw mail is stored as it came.

Processing takes two steps, each claimed here so that any number of workers
share the work without doing it twice:

1. *Reading* (`claim_unread`, `record_reading`): MIME to text, outside any
   write transaction. A claim is a lease naming the worker; a worker that dies
   loses it when the lease ends, or at once when a worker on its host sees
   that its process is gone (`release_reading_claims`).
2. *Applying* (`claim_ready`, `finish`): one write transaction per mail. A mail
   is ready when it has been read, every mail received before it has been
   read, and no earlier pending mail shares one of its keys (`InboundKey`):
   mail from one sender, or about one player or board, is applied in the
   order received; mail that shares nothing runs side by side.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from sqlalchemy import Integer, Select, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session, aliased

from pbm.i18n.text import one_line
from pbm.store.database import DIALECT_INSERTS, Database, execute_plain
from pbm.store.models import MAX_KEY, InboundKey, InboundMessage, InboundStatus, utcnow

MAX_ENVELOPE_ADDRESS = 320
"""The `envelope_from` column; envelope recipients are cut to it too."""
MAX_MESSAGE_ID = 998
MAX_PEER = 128
TOO_LARGE_PEER = "imap, too large: "
"""The peer of a mail of the club's mailbox over PBM_MAX_MESSAGE_SIZE (`pbm.mail.mailbox`), then
``SIZE/LIMIT``: only its header was fetched and stored, and it is answered as too large. Only the
server writes a peer, so no sender can make a mail look like one."""

AUTHOR_HEADERS = (
    "from", "sender", "reply-to", "to", "cc", "subject", "date", "message-id",
    "in-reply-to", "references", "mime-version", "content-type", "content-transfer-encoding",
)  # fmt: skip
"""The headers a mail's author (or their client) wrote: with the body, what the mail says.
Every other header may be added in transit (Received, Return-Path, Delivered-To,
X-Original-To, DKIM-Signature, ARC-*, Authentication-Results, spam scores...)."""


def dedupe_key(raw: bytes) -> tuple[str | None, str | None]:
    """The mail's Message-ID (reduced, if any) and the key that identifies the mail, if any does.

    A mail with a Message-ID is identified by it and by what its author wrote.
    One without is identified by what its author wrote and by the first hop of
    its trace: the oldest `Received` header, which the first mail server it
    passed wrote once, so that every copy of that one sending carries it,
    whichever way it reached us, and the same words sent again carry another.
    A mail with neither came straight from its author's program, not from a
    mail server that could deliver it twice: it has no key, and each one
    counts (``list`` sent twice is answered twice).

    >>> mail = b"Message-ID: <1@x>\\r\\nSubject: help\\r\\n\\r\\nhelp\\r\\n"
    >>> dedupe_key(mail)[0]
    '<1@x>'
    >>> dedupe_key(b"Received: from mx2\\n" + mail.replace(b"\\r\\n", b"\\n")) == dedupe_key(mail)
    True
    >>> dedupe_key(mail) == dedupe_key(mail.replace(b"help\\r\\n", b"list\\r\\n"))
    False
    >>> sent = b"Received: from pc by mx1 id A1\\nSubject: list\\n\\nlist\\n"
    >>> dedupe_key(b"Received: from mx1 by mx2\\n" + sent) == dedupe_key(sent)
    True
    >>> dedupe_key(sent) == dedupe_key(sent.replace(b"id A1", b"id B2"))
    False
    >>> dedupe_key(b"Subject: list\\n\\nlist\\n")
    (None, None)
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
                content.update(f"{name.lower()}:{_unfolded(value)}\n".encode("utf-8", "surrogateescape"))
    content.update(b"\n" + body)
    if message_id:
        key = hashlib.sha256(message_id.encode("utf-8") + b"\n" + content.digest())
        return message_id, "mid:" + key.hexdigest()
    trace = headers.get_all("Received") if headers is not None else None
    if not trace:
        return None, None
    first_hop = _unfolded(trace[-1]).encode("utf-8", "surrogateescape")
    return None, "content:" + hashlib.sha256(content.digest() + b"\n" + first_hop).hexdigest()


def _unfolded(value: object) -> str:
    """A header's value unfolded and trimmed: a relay may refold a long header line."""
    return " ".join(str(value).split())


def _split(raw: bytes) -> tuple[bytes, bytes]:
    """The header block and the body of a mail with ``\\n`` line ends."""
    if raw.startswith(b"\n"):
        return b"", raw[1:]
    head, blank, body = raw.partition(b"\n\n")
    return (head, body) if blank else (raw, b"")


@dataclass(frozen=True)
class Received:
    """A mail as SMTP (or a pipe from the MTA) handed it over."""

    raw: bytes
    envelope_from: str
    envelope_to: Sequence[str]
    peer: str = ""


@dataclass(frozen=True)
class Stored:
    """A received mail once it is stored: its row's id and status (pending, or duplicate)."""

    id: int
    status: InboundStatus


def save_inbound(
    database: Database, raw: bytes, *, envelope_from: str, envelope_to: Sequence[str], peer: str = ""
) -> Stored:
    """Store one received mail durably; returns its row's id and status (pending or duplicate)."""
    (stored,) = save_received(database, [Received(raw, envelope_from, envelope_to, peer)])
    if isinstance(stored, Exception):
        raise stored
    return stored


def save_received(database: Database, mails: Sequence[Received]) -> list[Stored | Exception]:
    """Store received mails durably, in one transaction: one wait for the disk for all of them.

    Returns, for each mail in order, its stored row (pending, or a duplicate of one stored
    before), or the error that is that mail's alone (its row could not be written; the others
    are). An error that is not one mail's (the database gone, the commit failing) raises: then
    none is stored, and every sender must be told to try again.
    """
    return database.write_each(mails, _store, urgent=True)


def store_received(session: Session, mail: Received) -> Stored:
    """Store one received mail in the caller's transaction (`save_received` is the usual way): for
    a door that records something of its own with it (`pbm.store.mailbox.store_fetched`)."""
    return _store(session, mail)


def _store(session: Session, mail: Received) -> Stored:
    message_id, key = dedupe_key(mail.raw)
    fields = dict(
        raw=mail.raw,
        message_id=message_id,
        envelope_from=one_line(mail.envelope_from, limit=MAX_ENVELOPE_ADDRESS),
        envelope_to="\n".join(one_line(address, limit=MAX_ENVELOPE_ADDRESS) for address in mail.envelope_to),
        peer=one_line(mail.peer, limit=MAX_PEER),
        received_at=utcnow(),
    )
    # The unique key decides, not a look first: two copies may arrive at two workers at once.
    first_copy = _FIRST_COPY[session.get_bind().dialect.name]
    stored = execute_plain(session, first_copy, {**fields, "dedupe_key": key, "status": InboundStatus.PENDING})
    row_id = stored.scalar()
    if row_id is not None:
        return Stored(row_id, InboundStatus.PENDING)
    # Its key is taken: a copy of a mail stored before (perhaps just now, in this group).
    first = execute_plain(session, _HOLDER_OF_KEY, {"key": key}).scalar_one()
    copy = {
        **fields,
        "dedupe_key": None,
        "status": InboundStatus.DUPLICATE,
        "note": f"a copy of inbound message {first}, which was processed instead",
        "processed_at": utcnow(),
    }
    return Stored(execute_plain(session, _COPY, copy).scalar_one(), InboundStatus.DUPLICATE)


_FIRST_COPY = {
    name: insert_for(InboundMessage)
    .on_conflict_do_nothing(index_elements=[InboundMessage.dedupe_key])
    .returning(InboundMessage.id)
    for name, insert_for in DIALECT_INSERTS.items()
}
"""A mail's row, unless its dedupe key is taken; by dialect, built once (building costs more than running)."""
_HOLDER_OF_KEY = select(InboundMessage.id).where(InboundMessage.dedupe_key == bindparam("key"))
_COPY = insert(InboundMessage).returning(InboundMessage.id)


def save_read(
    session: Session, raw: bytes, *, sender: str, parsed: dict[str, object], keys: Collection[str], now: datetime
) -> int:
    """Put into the queue something the server itself wrote and read already (a bot's decision:
    `pbm.mail.bot_turns`), to be applied in its turn among the mail that shares its `keys`; returns
    its row's id. `raw` says what it is, for the record; `sender` names who it is from."""
    row = {
        "raw": raw,
        "envelope_from": one_line(sender, limit=MAX_ENVELOPE_ADDRESS),
        "envelope_to": "",
        "peer": "",
        "received_at": now,
        "status": InboundStatus.PENDING,
        "read_at": now,
        "parsed": parsed,
        "read_seconds": 0.0,
        "read_peak_kb": 0,
    }
    inbound_id: int = execute_plain(session, _COPY, row).scalar_one()
    fitting = sorted({_fitting(k) for k in keys})
    if fitting:
        execute_plain(session, _ADD_KEY, [{"inbound_id": inbound_id, "key": key} for key in fitting])
    return inbound_id


@dataclass(frozen=True)
class Unread:
    """A mail claimed for reading: what reading it needs."""

    id: int
    raw: bytes
    envelope_from: str
    envelope_to: tuple[str, ...]
    attempts: int
    """Times reading it was started, this one included."""
    peer: str = ""
    """The SMTP client that handed it over (`Received.peer`)."""


def claim_unread(session: Session, *, worker: str, now: datetime, lease: timedelta, limit: int) -> list[Unread]:
    """Up to `limit` pending mails nobody has read or is reading, oldest first, leased to `worker`.

    Mails `worker` itself claimed before are taken again: a worker reads one
    batch at a time, so a claim it still holds is left from a batch that an
    outage cut short, and waiting out its lease would hold up all later mail.
    """
    parameters = {"now": now, "worker": worker, "limit": limit, "until": now + lease}
    rows = sorted(execute_plain(session, _CLAIM_UNREAD, parameters).all(), key=lambda row: row.id)
    return [
        Unread(row.id, row.raw, row.envelope_from, tuple(row.envelope_to.splitlines()), row.read_attempts, row.peer)
        for row in rows
    ]


_unread = aliased(InboundMessage)  # the rows to claim, apart from the rows the claim updates
_UNREAD = (
    select(_unread.id)
    .where(
        _unread.status == InboundStatus.PENDING,
        _unread.read_at.is_(None),
        or_(
            _unread.read_claimed_until.is_(None),
            _unread.read_claimed_until < bindparam("now"),
            _unread.read_claim == bindparam("worker"),
        ),
    )
    .order_by(_unread.id)
    .limit(bindparam("limit", type_=Integer, literal_execute=True))
    .with_for_update(skip_locked=True)
)
_CLAIM_UNREAD = (
    # One statement: the claim returns what it claimed (the attempts counted with this one),
    # where a SELECT and then an UPDATE of what it found made two for every batch read.
    update(InboundMessage)
    .where(InboundMessage.id.in_(_UNREAD))
    .values(
        read_claim=bindparam("worker"),
        read_claimed_until=bindparam("until"),
        read_attempts=InboundMessage.read_attempts + 1,
    )
    .returning(
        InboundMessage.id,
        InboundMessage.raw,
        InboundMessage.envelope_from,
        InboundMessage.envelope_to,
        InboundMessage.read_attempts,
        InboundMessage.peer,
    )
)
"""Built once, like `_READY`: the claims run with every batch, and building a statement costs more than running it."""


def extend_read_claims(session: Session, ids: Collection[int], *, worker: str, until: datetime) -> None:
    """Keep reading mails that take long: the lease of `worker` on `ids` runs until `until`."""
    session.execute(
        update(InboundMessage)
        .where(InboundMessage.id.in_(ids), InboundMessage.read_claim == worker, InboundMessage.read_at.is_(None))
        .values(read_claimed_until=until)
    )


def reading_claims(session: Session) -> list[tuple[int, str]]:
    """(mail id, worker) of every mail being read now."""
    query = select(InboundMessage.id, InboundMessage.read_claim).where(
        InboundMessage.status == InboundStatus.PENDING,
        InboundMessage.read_at.is_(None),
        InboundMessage.read_claim.is_not(None),
    )
    return [(inbound_id, claim) for inbound_id, claim in session.execute(query) if claim is not None]


def release_reading_claims(session: Session, ids: Collection[int]) -> None:
    """End the reading claims on `ids` (their workers are gone): anyone may read them now."""
    session.execute(
        update(InboundMessage)
        .where(InboundMessage.id.in_(ids), InboundMessage.read_at.is_(None))
        .values(read_claim=None, read_claimed_until=None)
    )


def record_reading(
    session: Session,
    inbound_id: int,
    *,
    worker: str,
    parsed: dict[str, object],
    keys: Collection[str],
    seconds: float,
    peak_kb: int,
    now: datetime,
) -> bool:
    """Store what reading found and the mail's keys; False if another worker got there first."""
    stored = execute_plain(
        session,
        _RECORD_READING,
        {
            "inbound": inbound_id,
            "worker": worker,
            "at": now,
            "parsed": parsed,
            "seconds": seconds,
            "peak_kb": peak_kb,
        },
    )
    if stored.rowcount != 1:
        return False
    fitting = sorted({_fitting(k) for k in keys})
    if fitting:
        execute_plain(session, _ADD_KEY, [{"inbound_id": inbound_id, "key": key} for key in fitting])
    return True


_RECORD_READING = (
    update(InboundMessage)
    .where(
        InboundMessage.id == bindparam("inbound"),
        InboundMessage.status == InboundStatus.PENDING,
        InboundMessage.read_at.is_(None),
        InboundMessage.read_claim == bindparam("worker"),
    )
    .values(
        read_at=bindparam("at"),
        parsed=bindparam("parsed", type_=InboundMessage.__table__.c.parsed.type),
        read_claim=None,
        read_claimed_until=None,
        read_seconds=bindparam("seconds"),
        read_peak_kb=bindparam("peak_kb"),
    )
)


_ADD_KEY = insert(InboundKey)


def _fitting(key: str) -> str:
    """`key`, or a digest of it when it is longer than the column (equal keys stay equal)."""
    if len(key) <= MAX_KEY:
        return key
    return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _ready_query() -> Select[tuple[int, dict[str, Any] | None, str, datetime, bool]]:
    earlier = aliased(InboundMessage)
    unread_before = (
        select(earlier.id)
        .where(earlier.status == InboundStatus.PENDING, earlier.read_at.is_(None), earlier.id < InboundMessage.id)
        .exists()
    )
    mine, theirs = aliased(InboundKey), aliased(InboundKey)
    shares_a_key = (
        select(theirs.inbound_id)
        .join(mine, mine.key == theirs.key)
        .where(mine.inbound_id == InboundMessage.id, theirs.inbound_id < InboundMessage.id)
        .exists()
    )
    other = aliased(InboundMessage)
    others_read = (
        select(other.id)
        .where(other.status == InboundStatus.PENDING, other.read_at.is_not(None), other.id != InboundMessage.id)
        .exists()
    )
    return (
        select(
            InboundMessage.id,
            InboundMessage.parsed,
            InboundMessage.envelope_to,
            InboundMessage.received_at,
            others_read,
        )
        .where(
            InboundMessage.status == InboundStatus.PENDING,
            InboundMessage.read_at.is_not(None),
            ~unread_before,
            ~shares_a_key,
        )
        .order_by(InboundMessage.id)
        .limit(1)
        .with_for_update(skip_locked=True, of=InboundMessage)
    )


_READY = _ready_query()  # built once: it has no parameters, and building it costs more than running it


@dataclass(frozen=True)
class Ready:
    """A mail claimed for applying: what applying it needs (what reading it found, not its bytes)."""

    id: int
    parsed: dict[str, Any]
    envelope_to: tuple[str, ...]
    received_at: datetime
    others_read: bool = True
    """Whether other mail was read and waits to be applied when this was claimed (ready, or held up
    by this one or by mail before it): when none did, nothing is ready after this one but what was
    read since, which wakes the worker anyway, and the batch need not look again."""


def claim_ready(session: Session) -> Ready | None:
    """The oldest mail that may be applied now, locked for this transaction (others skip it)."""
    row = execute_plain(session, _READY).first()
    if row is None:
        return None
    assert row.parsed is not None, "a ready mail has been read"
    return Ready(row.id, row.parsed, tuple(row.envelope_to.splitlines()), row.received_at, bool(row[4]))


def board_key(game_type: str, board: int) -> str:
    """The key of mail that names a board (`pbm.commands.plan.conflict_keys` gives it to such mail)."""
    return f"board:{game_type}:{board}"


def may_move_at(session: Session, game_type: str, board: int, received_by: datetime) -> bool:
    """Whether a mail received by `received_by` and not yet applied may be a move at the board: one
    that names it, or one not read yet. A player is not out of time while their move waits here."""
    unread = (InboundMessage.read_at.is_(None)) | InboundMessage.id.in_(
        select(InboundKey.inbound_id).where(InboundKey.key == _fitting(board_key(game_type, board)))
    )
    waiting = select(InboundMessage.id).where(
        InboundMessage.status == InboundStatus.PENDING, InboundMessage.received_at <= received_by, unread
    )
    return session.scalar(waiting.limit(1)) is not None


def finish(session: Session, inbound_id: int, status: InboundStatus, note: str, now: datetime) -> None:
    """The mail is done: record how, and free what it held up."""
    execute_plain(session, _FINISH, {"inbound": inbound_id, "new_status": status, "new_note": _note(note), "at": now})
    execute_plain(session, _FREE_KEYS, {"inbound": inbound_id})


_FINISH = (
    update(InboundMessage)
    .where(InboundMessage.id == bindparam("inbound"))
    .values(status=bindparam("new_status"), note=bindparam("new_note"), processed_at=bindparam("at"))
)
_FREE_KEYS = delete(InboundKey).where(InboundKey.inbound_id == bindparam("inbound"))


def senders(session: Session, inbound_ids: Collection[int]) -> dict[int, str]:
    """The From address reading found in each of the mails `inbound_ids` that had one."""
    if not inbound_ids:
        return {}
    rows = session.execute(
        select(InboundMessage.id, InboundMessage.parsed).where(InboundMessage.id.in_(sorted(set(inbound_ids))))
    )
    found = {inbound_id: (parsed or {}).get("from_address") for inbound_id, parsed in rows}
    return {inbound_id: sender for inbound_id, sender in found.items() if isinstance(sender, str)}


def what_was_read(session: Session, inbound_id: int) -> dict[str, object] | None:
    """What reading the mail found (`ParsedMail.to_json`), or None if it was never read."""
    return session.scalar(select(InboundMessage.parsed).where(InboundMessage.id == inbound_id))


def record_failure(session: Session, inbound_id: int, note: str, now: datetime) -> None:
    """Mark a mail failed, by plain statements that need nothing from the mail but its id."""
    session.execute(
        update(InboundMessage)
        .where(InboundMessage.id == inbound_id)
        .values(status=InboundStatus.FAILED, note=_note(note), processed_at=now)
    )
    session.execute(delete(InboundKey).where(InboundKey.inbound_id == inbound_id))


def _note(text: str) -> str:
    # Notes quote exception messages, which may quote the mail: no NUL (PostgreSQL
    # text cannot hold it), no lone surrogate (no encoding can), and bounded.
    return text.replace("\0", "").encode("utf-8", "replace").decode("utf-8")[:2000]


def requeue_failed(database: Database, ids: Sequence[int]) -> list[int]:
    """Put failed mails back in the queue (after the bug that failed them is fixed)."""
    with database.transaction() as session:
        rows = session.scalars(
            select(InboundMessage).where(InboundMessage.id.in_(ids), InboundMessage.status == InboundStatus.FAILED)
        ).all()
        for row in rows:
            row.status = InboundStatus.PENDING
            row.note = _note(f"requeued after: {row.note}")
            # Read again: the reader may be what was fixed.
            row.read_at = row.parsed = row.read_claim = row.read_claimed_until = None
            row.read_attempts = 0
        return sorted(row.id for row in rows)


def needing_attention(session: Session, *, duplicates: bool = False) -> list[InboundMessage]:
    """Mail not (yet) answered: pending, failed, or ignored as automatic; with `duplicates`, also
    the copies recorded as duplicates of another; oldest first."""
    unanswered = [InboundStatus.PENDING, InboundStatus.FAILED, InboundStatus.IGNORED]
    if duplicates:
        unanswered.append(InboundStatus.DUPLICATE)
    query = select(InboundMessage).where(InboundMessage.status.in_(unanswered))
    return list(session.scalars(query.order_by(InboundMessage.id)))


def status_counts(session: Session) -> dict[str, int]:
    """How many received mails are in each status (pending, processed, failed, ...)."""
    rows = session.execute(select(InboundMessage.status, func.count()).group_by(InboundMessage.status))
    return {status: count for status, count in rows}


def oldest_pending_received_at(session: Session) -> datetime | None:
    """When the oldest mail still waiting to be processed arrived (``None``: nothing waits)."""
    query = (
        select(InboundMessage.received_at)
        .where(InboundMessage.status == InboundStatus.PENDING)
        .order_by(InboundMessage.id)
        .limit(1)
    )
    return session.scalar(query)
