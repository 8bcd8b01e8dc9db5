"""``vacation``: a player books time away, ends it early, or asks where they stand.

While a player is away their clocks stand still, nobody reminds them and they
cannot forfeit on time (`pbm.clocks`, `pbm.commands.deadlines`). Every player
may be away for the club's allowance (``PBM_VACATION_DAYS``, 30 days) in any
365 days: a rolling window, so vacations cannot be stacked across the turn of
a year, nor cut into pieces, to stall a game for longer. A vacation starts
now or later, never in the past; ``off`` ends the one under way at once (the
days not taken count no more) and calls off those booked ahead.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from pbm import clocks
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.store import turns, vacations
from pbm.store.models import Player, Vacation

YEAR = timedelta(days=365)
LONGEST_AHEAD = timedelta(days=365)
"""How far ahead a vacation may be booked."""


def vacation(ctx: Context, command: lang.Vacation) -> list[OutgoingMail]:
    player = ctx.authenticate(command.userid, command.secret)
    now = ctx.now()
    news = ""
    if command.off:
        news = _end(ctx, player, now)
    elif command.books:
        news = _book(ctx, player, command, now)
    booked = vacations.of(ctx.session, player, now)
    context = {
        "player": player.userid,
        "news": news,
        "booked": [_interval(v) for v in booked],
        "away": next((v.ends_at for v in booked if v.starts_at <= now), None),
        "left": allowance_left(ctx, player, now),
        "allowance": ctx.club.vacation_allowance,
    }
    return [ctx.to_sender("vacation", **context)]


def _book(ctx: Context, player: Player, command: lang.Vacation, now: datetime) -> str:
    today = now.date()
    if command.starts is not None and command.starts < today:
        raise Refused(f"A vacation cannot start in the past: {command.starts} is gone (write 'now' to start now)")
    first = command.starts or today
    if first - today > LONGEST_AHEAD or (command.until is not None and command.until - first > YEAR):
        raise Refused("A vacation can be booked at most a year ahead, for at most a year")
    starts = now if first == today else _midnight(first)
    if command.days is not None:
        ends = starts + timedelta(days=command.days)
    else:
        assert command.until is not None
        ends = _midnight(command.until + timedelta(days=1))  # the last day away is a whole day
    if ends <= starts:
        raise Refused(f"The vacation would end before it starts: the last day away ({command.until}) comes first")
    wanted = clocks.Interval(starts, ends)
    booked = vacations.of(ctx.session, player, now - YEAR)
    clash = next((v for v in booked if v.starts_at < ends and starts < v.ends_at), None)
    if clash is not None:
        raise Refused(
            f"That overlaps your vacation {_interval(clash)}: send 'vacation {player.userid} PASSWORD off' "
            "to call it off, or choose other days"
        )
    allowance = ctx.club.vacation_allowance
    if most_in_a_year([*(_as_interval(v) for v in booked), wanted]) > allowance:
        left = left_from(ctx, player, starts, now)
        raise Refused(
            f"A vacation {_interval_text(wanted)} ({days_text(ends - starts)}) takes more than your allowance: "
            f"at most {days_text(allowance)} away in any 365 days, those booked counted. From "
            f"{starts:%Y-%m-%d} you can take up to {days_text(left)}"
        )
    vacations.book(ctx.session, player, starts, ends, now)
    turns.look_soon(ctx.session, player.id, now)
    return f"Booked: away {_interval_text(wanted)}."


def _end(ctx: Context, player: Player, now: datetime) -> str:
    ended, dropped = vacations.end(ctx.session, player, now)
    if ended is None and not dropped:
        raise Refused(f"{player.userid} is not away and has no vacation booked: there is nothing to end")
    turns.look_soon(ctx.session, player.id, now)
    words = []
    if ended is not None:
        words.append("Your vacation ends now: your clocks run again, and your opponents are told.")
    if dropped:
        words.append(f"Called off: {', '.join(_interval_text(_as_interval(v)) for v in dropped)}.")
    return " ".join(words)


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


def days_text(span: timedelta) -> str:
    """A span of vacation as days, with the hours when it is not whole days."""
    days, rest = divmod(int(span.total_seconds()) // 3600, 24)
    text = f"{days} day{'s' if days != 1 else ''}"
    return f"{text} {rest} hour{'s' if rest != 1 else ''}" if rest else text


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=timezone.utc)


def _as_interval(vacation: Vacation) -> clocks.Interval:
    return clocks.Interval(vacation.starts_at, vacation.ends_at)


def _interval(vacation: Vacation) -> str:
    return _interval_text(_as_interval(vacation))


def _interval_text(interval: clocks.Interval) -> str:
    return f"from {interval.start:%Y-%m-%d %H:%M} until {interval.end:%Y-%m-%d %H:%M} UTC"
