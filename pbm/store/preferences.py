"""What a player chose about their mail: the zone they live in, their quiet hours, their digests.

Read for many players at once where mail is composed (`choices_of`): one statement
for every recipient of a received mail's answers, whatever their number.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, time, tzinfo
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.store.models import Player
from pbm.timekeeping.local_time import LocalHours, clock_times, next_time, zone_or_utc


@dataclass(frozen=True)
class Quiet:
    """A player's quiet hours, in the zone they keep them in."""

    hours: LocalHours
    zone: tzinfo

    def ends_after(self, moment: datetime) -> datetime | None:
        """When the quiet hours `moment` falls in end (UTC); None when it falls in none."""
        return self.hours.ends_after(moment, self.zone)


def zone_of(player: Player) -> tzinfo:
    """The zone `player` reads dates in (UTC unless they named one)."""
    return _zone(player.time_zone)


def _zone(name: str | None) -> tzinfo:
    return zone_or_utc(name)  # a zone the system's database no longer has: UTC, not a failure


def quiet_hours(player: Player) -> LocalHours | None:
    if player.quiet_from is None or player.quiet_until is None:
        return None
    return LocalHours.from_minutes(player.quiet_from, player.quiet_until)


def set_zone(player: Player, name: str) -> None:
    """`player` lives in the zone `name` (checked by the caller: `pbm.timekeeping.local_time.zone_named`)."""
    player.time_zone = name


def set_quiet_hours(player: Player, hours: LocalHours | None) -> None:
    """`player`'s quiet hours from now: `hours`, or none."""
    player.quiet_from, player.quiet_until = hours.minutes if hours is not None else (None, None)


def digest_times(player: Player) -> tuple[time, ...]:
    """The local times of `player`'s digests; none: a mail for each move."""
    return clock_times(player.digest_times) or () if player.digest_times else ()


def set_digest(player: Player, times: tuple[time, ...], due_at: datetime | None) -> None:
    """`player`'s digests from now on: at `times` (none: a mail for each move), the next at `due_at`."""
    player.digest_times = ",".join(f"{t:%H:%M}" for t in times) or None
    player.digest_due_at = due_at if times else None


def next_digest(player: Player, after: datetime) -> datetime | None:
    """When `player`'s next digest is due after `after` (None: they take none)."""
    return next_time(after, digest_times(player), zone_of(player))


def digests_due(session: Session, at: datetime, *, limit: int) -> list[Player]:
    """Players whose digest is due by `at`, the longest due first (at most `limit`)."""
    query = (
        select(Player)
        .where(Player.digest_due_at <= at, Player.signed_off_at.is_(None))
        .order_by(Player.digest_due_at, Player.id)
        .limit(limit)
    )
    return list(session.scalars(query))


@dataclass(frozen=True)
class Choices:
    """What the players a received mail's answers are for chose about their mail, by player id:
    the quiet hours of those who keep some, and who takes digests."""

    quiet: dict[int, Quiet]
    digests: set[int]


def choices_of(session: Session, player_ids: Collection[int]) -> Choices:
    """What those of `player_ids` who chose anything chose, in one statement."""
    ids = sorted(set(player_ids))
    if not ids:
        return Choices({}, set())
    query = select(Player.id, Player.time_zone, Player.quiet_from, Player.quiet_until, Player.digest_times).where(
        Player.id.in_(ids), (Player.quiet_from.is_not(None)) | (Player.digest_times.is_not(None))
    )
    return choices_from(session.execute(query))


def choices_from(rows: Iterable[Any]) -> Choices:
    """The choices in rows of players' (id, time_zone, quiet_from, quiet_until, digest_times),
    read by name: a statement that reads more of each player's row makes them too."""
    quiet, digests = {}, set()
    for row in rows:
        player_id, zone, start, end, times = row.id, row.time_zone, row.quiet_from, row.quiet_until, row.digest_times
        if start is not None and end is not None:
            quiet[player_id] = Quiet(LocalHours.from_minutes(start, end), _zone(zone))
        if times is not None:
            digests.add(player_id)
    return Choices(quiet, digests)
