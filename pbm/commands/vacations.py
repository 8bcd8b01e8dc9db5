"""``vacation``: a player books time away, ends it early, or asks where they stand.

While a player is away their clocks stand still, nobody reminds them and they
cannot forfeit on time (`pbm.timekeeping.clocks`, `pbm.commands.deadlines`). Every player
may be away for the club's allowance (``PBM_VACATION_DAYS``, 30 days) in any
365 days: a rolling window, so vacations cannot be stacked across the turn of
a year, nor cut into pieces, to stall a game for longer. A vacation starts
now or later, never in the past, and the days a player names are days of
their own calendar (the zone they live in, `pbm.timekeeping.local_time`); ``off`` ends the
one under way at once (the days not taken count no more) and calls off those
booked ahead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from pbm.commands import language as lang
from pbm.commands import recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.store import preferences, turns, vacations
from pbm.store.models import Player, Vacation
from pbm.timekeeping import clocks
from pbm.timekeeping.local_time import at_local

YEAR = timedelta(days=365)
LONGEST_AHEAD = timedelta(days=365)
"""How far ahead a vacation may be booked."""


def vacation(ctx: Context, command: lang.Vacation) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    now = ctx.now()
    news = VacationNews()
    if command.off:
        news = _end(ctx, player, now)
    elif command.books:
        news = _book(ctx, player, command, now)
    booked = vacations.of(ctx.session, player, now)
    context = {
        "player": player.userid,
        "news": news,
        "booked": [_as_interval(v) for v in booked],
        "away": next((v.ends_at for v in booked if v.starts_at <= now), None),
        "left": allowance_left(ctx, player, now),
        "allowance": ctx.club.vacation_allowance,
    }
    return [recipients.to_sender(ctx, "vacation", **context)]


@dataclass(frozen=True)
class VacationNews:
    """What a ``vacation`` command changed, for the first lines of its answer."""

    booked: clocks.Interval | None = None
    ended: bool = False
    """The vacation under way ended now."""
    called_off: tuple[clocks.Interval, ...] = ()
    """Vacations booked ahead that will not be."""

    def __bool__(self) -> bool:
        return self.booked is not None or self.ended or bool(self.called_off)


def _book(ctx: Context, player: Player, command: lang.Vacation, now: datetime) -> VacationNews:
    # The days a player writes are the days of their own calendar: a day away begins at their midnight.
    zone = preferences.zone_of(player)
    today = now.astimezone(zone).date()
    if command.starts is not None and command.starts < today:
        raise Refused("vacation-in-the-past", starts=command.starts)
    first = command.starts or today
    if first - today > LONGEST_AHEAD or (command.until is not None and command.until - first > YEAR):
        raise Refused("vacation-too-far")
    starts = now if first == today else at_local(first, time(0), zone)
    if command.days is not None:
        ends = starts + timedelta(days=command.days)
    else:
        assert command.until is not None
        ends = at_local(command.until + timedelta(days=1), time(0), zone)  # the last day away is a whole day
    if ends <= starts:
        raise Refused("vacation-ends-first", until=command.until)
    wanted = clocks.Interval(starts, ends)
    booked = vacations.of(ctx.session, player, now - YEAR)
    clash = next((v for v in booked if v.starts_at < ends and starts < v.ends_at), None)
    if clash is not None:
        raise Refused("vacation-overlaps", starts=clash.starts_at, ends=clash.ends_at, userid=player.userid)
    allowance = ctx.club.vacation_allowance
    if most_in_a_year([*(_as_interval(v) for v in booked), wanted]) > allowance:
        left = left_from(ctx, player, starts, now)
        raise Refused(
            "vacation-over-allowance",
            starts=starts,
            ends=ends,
            length=days(ends - starts),
            allowance=days(allowance),
            left=days(left),
        )
    vacations.book(ctx.session, player, starts, ends, now)
    turns.look_soon(ctx.session, player.id, now)
    return VacationNews(booked=wanted)


def _end(ctx: Context, player: Player, now: datetime) -> VacationNews:
    ended, dropped = vacations.end(ctx.session, player, now)
    if ended is None and not dropped:
        raise Refused("not-away", userid=player.userid)
    turns.look_soon(ctx.session, player.id, now)
    return VacationNews(ended=ended is not None, called_off=tuple(_as_interval(v) for v in dropped))


def most_in_a_year(intervals: list[clocks.Interval]) -> timedelta:
    """The most time away in any 365 days. The busiest window starts where one of the intervals
    starts (or ends where one ends), so only those windows need counting."""
    spans = clocks.merged(intervals)
    windows = [s.start for s in spans] + [s.end - YEAR for s in spans]
    return max(
        (sum((s.overlap(w, w + YEAR) for s in spans), timedelta(0)) for w in windows),
        default=timedelta(0),
    )


def allowance_left(ctx: Context, player: Player, now: datetime) -> timedelta:
    """The vacation `player` may still book: the allowance less their busiest 365 days."""
    booked = [_as_interval(v) for v in vacations.of(ctx.session, player, now - YEAR)]
    return max(ctx.club.vacation_allowance - most_in_a_year(booked), timedelta(0))


def left_from(ctx: Context, player: Player, starts: datetime, now: datetime) -> timedelta:
    """The longest vacation `player` could book from `starts` (to the hour), their allowance and
    what they booked counted."""
    booked = [_as_interval(v) for v in vacations.of(ctx.session, player, now - YEAR)]
    allowance = ctx.club.vacation_allowance
    busy = [v for v in booked if v.end > starts]
    next_start = min((v.start for v in busy), default=None)
    longest, shortest = int(allowance.total_seconds() // 3600), 0
    if next_start is not None and next_start <= starts:
        return timedelta(0)
    while shortest < longest:  # the fit only gets worse as the vacation grows: bisect on hours
        hours = (shortest + longest + 1) // 2
        trial = clocks.Interval(starts, starts + timedelta(hours=hours))
        fits = (next_start is None or trial.end <= next_start) and most_in_a_year([*booked, trial]) <= allowance
        shortest, longest = (hours, longest) if fits else (shortest, hours - 1)
    return timedelta(hours=shortest)


def days(span: timedelta) -> Fact:
    """A span of vacation as days, with the hours when it is not whole days: ``30 days``, ``2 days 5 hours``."""
    whole, rest = divmod(int(span.total_seconds()) // 3600, 24)
    counted = Fact("days", count=whole)
    return Fact("days-and-hours", days=counted, hours=Fact("hours", count=rest)) if rest else counted


def _as_interval(vacation: Vacation) -> clocks.Interval:
    return clocks.Interval(vacation.starts_at, vacation.ends_at)
