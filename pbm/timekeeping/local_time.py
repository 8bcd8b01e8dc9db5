"""A player's own time: the zone they live in, the hours they want no mail, the times of day
they want their digests.

The server keeps every moment in UTC. A player who names their zone (an IANA name,
``Europe/Paris``) reads dates in it, and their quiet hours and digest times are wall-clock
times there. Wall clocks jump twice a year, and the arithmetic here is what makes those
jumps harmless:

- a wall time that a spring change skips (02:30 in Paris on the last Sunday of March)
  happens once, at the first instant after the jump (03:30);
- a wall time that an autumn change repeats happens once, the first time the clock shows it.

So a daily time happens exactly once every local day, and a digest is never sent twice or
skipped. Pure: the moment is always given, nothing is read.

>>> paris = zone_named("Europe/Paris")
>>> quiet = LocalHours.parse("22:00-07:00")
>>> quiet.ends_after(datetime(2026, 12, 1, 22, 30, tzinfo=timezone.utc), paris)
datetime.datetime(2026, 12, 2, 6, 0, tzinfo=datetime.timezone.utc)
>>> quiet.ends_after(datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc), paris) is None
True
>>> next_time(datetime(2026, 3, 28, 12, 0, tzinfo=timezone.utc), (time(2, 30),), paris)
datetime.datetime(2026, 3, 29, 1, 30, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC_NAME = "UTC"
"""The zone of a player who named none."""
LONGEST_ZONE_NAME = 64
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9][A-Za-z0-9_+-]*){0,2}")
"""What an IANA zone name looks like: read as a name, never as a path (no ``..``, no leading ``/``)."""
_CLOCK = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
MOST_DIGEST_TIMES = 6
"""Digests a player may ask for in a day."""


def zone_named(name: str | None) -> ZoneInfo:
    """The zone `name` names (UTC for None). Raises `UnknownZone` for a name that is no IANA zone."""
    if name is None:
        return ZoneInfo(UTC_NAME)
    if len(name) > LONGEST_ZONE_NAME or not _ZONE_NAME.fullmatch(name):
        raise UnknownZone(name)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UnknownZone(name) from None


def zone_name(word: str) -> str | None:
    """The IANA name `word` writes in any letter case (``europe/paris``: ``Europe/Paris``); None
    when it names no zone this system knows.

    >>> zone_name("america/NEW_york"), zone_name("Mars/Olympus")
    ('America/New_York', None)
    """
    if len(word) > LONGEST_ZONE_NAME or not _ZONE_NAME.fullmatch(word):
        return None
    return _zone_names().get(word.lower())


@cache
def _zone_names() -> dict[str, str]:
    """Every zone name the system knows, by its lower case (read once: it lists a directory tree)."""
    return {name.lower(): name for name in available_timezones() if _ZONE_NAME.fullmatch(name)}


@cache
def zone_or_utc(name: str | None) -> ZoneInfo:
    """The zone `name` names, UTC for None or for a name the system's zone database no longer
    knows: a reader is never refused their mail for a zone that went away."""
    try:
        return zone_named(name)
    except UnknownZone:
        return zone_named(None)


class UnknownZone(ValueError):
    """A word that names no time zone."""


def clock_time(word: str) -> time | None:
    """``07:30`` as a time of day; None when the word is not one (``7:30`` is one, ``24:00`` not)."""
    found = _CLOCK.fullmatch(word)
    return time(int(found[1]), int(found[2])) if found else None


def clock_times(word: str) -> tuple[time, ...] | None:
    """``07:30,19:00``: times of day, each once, earliest first; None when the word is not that, or
    names more than `MOST_DIGEST_TIMES`.

    >>> clock_times("19:00,7:30,19:00")
    (datetime.time(7, 30), datetime.time(19, 0))
    """
    words = word.split(",", MOST_DIGEST_TIMES)
    times = [clock_time(part) for part in words]
    if len(words) > MOST_DIGEST_TIMES or any(t is None for t in times):
        return None
    return tuple(sorted({t for t in times if t is not None}))


_UTC_NAMES = frozenset(
    {"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT"}
)


def on_a_named_clock(moment: datetime) -> bool:
    """Whether `moment` is on the wall clock of a zone a player named (a `ZoneInfo` other than
    UTC's), rather than a moment in UTC or at a bare offset, as the store and the clock give them.

    >>> now = datetime(2026, 11, 26, 14, 30, tzinfo=timezone.utc)
    >>> on_a_named_clock(now), on_a_named_clock(now.astimezone(zone_named("Europe/Paris")))
    (False, True)
    >>> on_a_named_clock(now.astimezone(ZoneInfo("Etc/UTC")))
    False
    """
    zone = moment.tzinfo
    return isinstance(zone, ZoneInfo) and zone.key not in _UTC_NAMES


def zone_label(moment: datetime) -> str:
    """How a date names the zone of `moment` (a time on some zone's wall clock): its abbreviation
    where the zone database gives one in letters (``UTC``, ``CET``, ``CEST``, ``EST``, ``JST``),
    else its offset from UTC (``UTC-3``, ``UTC+5:45``): some zones have no abbreviation but
    their offset (``-03`` in São Paulo). A naive `moment` is in UTC.

    >>> paris = zone_named("Europe/Paris")
    >>> [zone_label(datetime(2026, m, 1, 12, tzinfo=timezone.utc).astimezone(paris)) for m in (1, 7)]
    ['CET', 'CEST']
    >>> zone_label(datetime(2026, 1, 1, tzinfo=zone_named("America/Sao_Paulo")))
    'UTC-3'
    >>> zone_label(datetime(2026, 1, 1, tzinfo=zone_named("Asia/Kathmandu"))), zone_label(datetime(2026, 1, 1))
    ('UTC+5:45', 'UTC')
    """
    name = moment.tzname() if moment.tzinfo is not None else UTC_NAME
    if name and name.isascii() and name.isalpha():
        return name
    offset = moment.utcoffset() or timedelta(0)
    sign = "-" if offset < timedelta(0) else "+"
    hours, minutes = divmod(abs(int(offset.total_seconds())) // 60, 60)
    return f"{UTC_NAME}{sign}{hours}" + (f":{minutes:02d}" if minutes else "")


def at_local(day: date, clock: time, zone: tzinfo) -> datetime:
    """The UTC moment the wall clocks of `zone` show `clock` on `day`: the first such moment when the
    clocks show it twice, the first moment after the jump when they skip it.

    Both come from reading the wall time with ``fold=0`` (PEP 495): the offset before the change,
    which in an autumn repeat is the first showing and in a spring gap lands as far past the jump
    as the time was past its start."""
    return datetime.combine(day, clock, tzinfo=zone).astimezone(timezone.utc)


def next_time(after: datetime, clocks: Iterable[time], zone: tzinfo) -> datetime | None:
    """The first moment strictly after `after` when the wall clocks of `zone` show one of `clocks`;
    None when there are none. Each of `clocks` happens once a local day (`at_local`)."""
    times = sorted(set(clocks))
    if not times:
        return None
    day = after.astimezone(zone).date() - timedelta(days=1)
    for offset in range(4):  # a day either side is enough for any offset and any jump
        for clock in times:
            moment = at_local(day + timedelta(days=offset), clock, zone)
            if moment > after:
                return moment
    raise AssertionError("a daily time happens within three days")


@dataclass(frozen=True)
class LocalHours:
    """A span of the wall clock, every day: ``22:00-07:00`` runs over midnight. Never empty, never
    the whole day (a player who wants no mail at all signs off)."""

    start: time
    end: time

    @classmethod
    def parse(cls, word: str) -> LocalHours | None:
        """``HH:MM-HH:MM``; None when the word is not one, or starts where it ends."""
        first, dash, last = word.partition("-")
        start, end = clock_time(first), clock_time(last)
        if not dash or start is None or end is None or start == end:
            return None
        return cls(start, end)

    @classmethod
    def from_minutes(cls, start: int, end: int) -> LocalHours:
        return cls(time(start // 60, start % 60), time(end // 60, end % 60))

    @property
    def minutes(self) -> tuple[int, int]:
        """The start and end as minutes after midnight, as the store keeps them."""
        return self.start.hour * 60 + self.start.minute, self.end.hour * 60 + self.end.minute

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"

    def ends_after(self, moment: datetime, zone: tzinfo) -> datetime | None:
        """When the span `moment` falls in ends (UTC); None when `moment` is outside it."""
        local = moment.astimezone(zone)
        now, today = local.time().replace(tzinfo=None), local.date()
        if self.start < self.end:
            inside, ends_on = self.start <= now < self.end, today
        elif now >= self.start:
            inside, ends_on = True, today + timedelta(days=1)
        else:
            inside, ends_on = now < self.end, today
        if not inside:
            return None
        return max(at_local(ends_on, self.end, zone), moment)
