"""What queuing a mail's answers must know of their recipients, read in one statement.

Every mail that causes mail asks, for the players its answers are for, the language and zone
they read in, their quiet hours and whether they take digests; and, for the addresses they go
to, the language and zone of a player there, the mail queued to each within the hour, the mail
the hourly limit holds for each, whether bounces stopped mail to it, and who confirmed it. Asked
one table at a time that was seven statements a mail, the most of any stage of a reply move
(issue 45): here it is one statement, a UNION ALL whose branches each keep the index their own
statement used.

Everything here runs inside a session the caller owns, and sees what it has not flushed yet (a
player just signed up, with their address and language).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import (
    Integer,
    String,
    bindparam,
    case,
    func,
    literal_column,
    null,
    select,
    type_coerce,
    union_all,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from pbm.addresses import comparable, comparable_column
from pbm.store.models import (
    AddressConfirmation,
    BouncedAddress,
    HoldReason,
    OutboxMessage,
    OutboxStatus,
    Player,
    PlayerAddress,
    UTCDateTime,
)
from pbm.store.outbox import Hold, Recent
from pbm.store.players import Readers
from pbm.store.preferences import Choices, choices_from

_PLAYER, _RECENT, _HELD, _READER, _STOPPED, _CONFIRMED = "player", "recent", "held", "reader", "stopped", "confirmed"


@dataclass(frozen=True)
class Recipients:
    """What `look_up` found, by player id and by the comparable form (`pbm.addresses`) of each address."""

    readers: Readers
    """Who reads in which language, on which wall clock (`pbm.store.players.readers`)."""
    choices: Choices
    """Quiet hours and digests (`pbm.store.preferences.choices_of`)."""
    recent: dict[str, Recent]
    """The mail queued to each address since the window began (`pbm.store.outbox.recent_counts`)."""
    held: dict[str, Hold]
    """How the latest mail the hourly limit holds for each address is held (`pbm.store.outbox.held_for`)."""
    stopped: set[str]
    """The addresses bounces stopped mail to (`pbm.store.bounces.stopped`)."""
    confirmed: dict[str, set[int]]
    """The players each address is confirmed for (`pbm.store.confirmations.confirmed_by`)."""


def look_up(
    session: Session,
    player_ids: Collection[int],
    addresses: Collection[str],
    *,
    since: datetime,
    kinds: Collection[str],
) -> Recipients:
    """What answers for `player_ids` at `addresses` must know: `recent` counts the mail queued
    since `since`, and of it the mail of `kinds`."""
    ids = sorted(set(player_ids))
    keys = sorted({comparable(address) for address in addresses})
    by_id: dict[int, tuple[str | None, str | None]] = {}
    chose: list[_Chose] = []
    languages: dict[str, str] = {}
    zones: dict[str, str] = {}
    recent: dict[str, Recent] = {}
    held: dict[str, Hold] = {}
    stopped: set[str] = set()
    confirmed: dict[str, set[int]] = defaultdict(set)
    if not ids and not keys:
        return Recipients(Readers({}, {}, {}), Choices({}, set()), {}, {}, set(), {})
    rows = session.execute(_LOOK_UP, {"ids": ids, "keys": keys, "since": since, "kinds": sorted(kinds)})
    # Rows come in no order a UNION keeps: each branch's order is by its `number`.
    for what, key, number, count, at, text, other, until, times in sorted(rows, key=lambda row: (row[0], row[2] or 0)):
        if what == _PLAYER:
            by_id[number] = (text, other)
            chose.append(_Chose(number, other, count, until, times))
        elif what == _RECENT:
            recent[key] = Recent(number, count, at)
        elif what == _HELD:
            held[key] = Hold(HoldReason(text), at)  # the latest last
        elif what == _READER:
            if text is not None:
                languages.setdefault(key, text)  # the first player there who chose one
            if other is not None:
                zones.setdefault(key, other)
        elif what == _STOPPED:
            stopped.add(key)
        else:
            confirmed[key].add(number)
    return Recipients(Readers(by_id, languages, zones), choices_from(chose), recent, held, stopped, dict(confirmed))


class _Chose(NamedTuple):
    """A player's choices as `pbm.store.preferences.choices_from` reads them."""

    id: int
    time_zone: str | None
    quiet_from: int | None
    quiet_until: int | None
    digest_times: str | None


def _tag(what: str) -> ColumnElement[str]:
    """Which branch a row comes from, written into the statement (a parameter in a select list
    has no type PostgreSQL can tell)."""
    return literal_column(f"'{what}'", String)


_KEYS: BindParameter[list[str]] = bindparam("keys", expanding=True)
_NO_TEXT = type_coerce(null(), String)
_NO_NUMBER = type_coerce(null(), Integer)
_NO_TIME = type_coerce(null(), UTCDateTime)
_OUTBOX_RECIPIENT = comparable_column(OutboxMessage.recipient)
_PLAYER_ADDRESS = comparable_column(PlayerAddress.address)

# Each branch: (what, address, number, count, time, text, other text, until, times). The first
# branch gives the columns their types; `number` orders the rows of the branches whose order
# matters. Built once: every mail that causes mail asks it.
_LOOK_UP = union_all(
    select(
        _tag(_PLAYER),
        _NO_TEXT,
        Player.id,
        Player.quiet_from,
        _NO_TIME,
        Player.language,
        Player.time_zone,
        Player.quiet_until,
        Player.digest_times,
    ).where(Player.id.in_(bindparam("ids", expanding=True))),
    select(
        _tag(_RECENT),
        _OUTBOX_RECIPIENT,
        func.count(),
        func.coalesce(func.sum(case((OutboxMessage.kind.in_(bindparam("kinds", expanding=True)), 1), else_=0)), 0),
        func.min(OutboxMessage.queued_at),
        _NO_TEXT,
        _NO_TEXT,
        _NO_NUMBER,
        _NO_TEXT,
    )
    .where(_OUTBOX_RECIPIENT.in_(_KEYS), OutboxMessage.queued_at >= bindparam("since"))
    .group_by(_OUTBOX_RECIPIENT),
    select(
        _tag(_HELD),
        _OUTBOX_RECIPIENT,
        OutboxMessage.id,
        _NO_NUMBER,
        OutboxMessage.release_at,
        type_coerce(OutboxMessage.hold_reason, String),
        _NO_TEXT,
        _NO_NUMBER,
        _NO_TEXT,
    ).where(
        _OUTBOX_RECIPIENT.in_(_KEYS),
        # Held mail is not queued yet: the index on (recipient, queued_at) finds it.
        OutboxMessage.queued_at.is_(None),
        OutboxMessage.status == OutboxStatus.HELD,
        OutboxMessage.hold_reason == HoldReason.HOURLY_LIMIT,
    ),
    select(
        _tag(_READER),
        _PLAYER_ADDRESS,
        Player.id,
        _NO_NUMBER,
        _NO_TIME,
        Player.language,
        Player.time_zone,
        _NO_NUMBER,
        _NO_TEXT,
    )
    .join(Player)
    .where(
        _PLAYER_ADDRESS.in_(_KEYS),
        Player.signed_off_at.is_(None),
        Player.language.is_not(None) | Player.time_zone.is_not(None),
    ),
    select(
        _tag(_STOPPED),
        BouncedAddress.address,
        _NO_NUMBER,
        _NO_NUMBER,
        _NO_TIME,
        _NO_TEXT,
        _NO_TEXT,
        _NO_NUMBER,
        _NO_TEXT,
    ).where(BouncedAddress.address.in_(_KEYS), BouncedAddress.stopped_at.is_not(None)),
    select(
        _tag(_CONFIRMED),
        AddressConfirmation.address,
        AddressConfirmation.player_id,
        _NO_NUMBER,
        _NO_TIME,
        _NO_TEXT,
        _NO_TEXT,
        _NO_NUMBER,
        _NO_TEXT,
    ).where(AddressConfirmation.address.in_(_KEYS), AddressConfirmation.confirmed_at.is_not(None)),
)
