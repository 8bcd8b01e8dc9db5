"""Correspondence time: the time rules a game is played under, and the arithmetic of waiting.

A game's `TimeControl` comes from its challenge's double-dash options, as
pbmserv wrote them, over the club's defaults:

- ``--nagtime=N``: the player to move is reminded after N days, and daily after;
- ``--forfeittime=N``: ...and forfeits after N days without a move;
- ``--totaltime=N``: a player whose own thinking time reaches N days forfeits;
- ``--clock=START+INCREMENT/CAP``: a Fischer bank: START days to begin with,
  INCREMENT added after each move, never more than CAP; an empty bank forfeits.

Every span is days, or hours with an ``h`` (``--nagtime=12h``) for fast clubs.

Time only runs for the player to move, and never while they are away: a
vacation stops their clocks, and the wait goes on from where it stood when
they return (so that no vacation, however cut up, stalls a game for longer
than it lasts). Everything here is pure: the clock and the vacations are
given, nothing is read.

>>> rules = parse(["--nagtime=12h", "--forfeittime=3"], TimeControl())
>>> rules.words()
'--nagtime=12h --forfeittime=3'
>>> from datetime import timezone
>>> start = datetime(2026, 12, 1, tzinfo=timezone.utc)
>>> away = [Interval(start + timedelta(days=1), start + timedelta(days=3))]
>>> thought(start, start + timedelta(days=4), away)
datetime.timedelta(days=2)
>>> when_thought(start, timedelta(days=2), away).date()
datetime.date(2026, 12, 5)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pbm.facts import Catalogue, Fact, Factual, english
from pbm.timekeeping import messages as time_messages

DAY = timedelta(days=1)
NAG_AFTER = timedelta(days=7)
FORFEIT_AFTER = timedelta(days=21)
LONGEST = timedelta(days=3650)
"""No time rule may be longer than ten years: anything longer is a typing slip."""
SHORTEST = timedelta(hours=1)
FOREVER = datetime.max.replace(tzinfo=timezone.utc)
"""The end of an interval that has none yet."""

_SPAN = re.compile(r"(\d{1,5})(d|h)?")
_CLOCK = re.compile(r"([\dh]+)\+([\dh]+)(?:/([\dh]+))?")


class InvalidTimeRule(Factual, ValueError):
    """A time option that cannot be: the fact says what to write instead (its words are in
    `pbm.timekeeping.messages.TIME_RULES`, with the other facts of time)."""

    def english_catalogue(self) -> Catalogue:
        return time_messages.MESSAGES


@dataclass(frozen=True)
class Bank:
    """A Fischer clock: `start` to begin with, `increment` added after each move, at most `cap`."""

    start: timedelta
    increment: timedelta
    cap: timedelta | None = None

    def after_move(self, left: timedelta) -> timedelta:
        """What is left after a move made with `left` still in the bank."""
        topped = left + self.increment
        return min(topped, self.cap) if self.cap is not None else topped

    def word(self) -> str:
        cap = f"/{span_word(self.cap)}" if self.cap is not None else ""
        return f"{span_word(self.start)}+{span_word(self.increment)}{cap}"


@dataclass(frozen=True)
class TimeControl:
    """The time rules of one game."""

    nag: timedelta = NAG_AFTER
    forfeit: timedelta = FORFEIT_AFTER
    total: timedelta | None = None
    bank: Bank | None = None
    given: frozenset[str] = field(default=frozenset(), compare=False)
    """The options the challenge wrote (the rest are the club's defaults): what `words` repeats."""

    def words(self, *, all_rules: bool = False) -> str:
        """The rules as challenge options: those the challenge gave, or (`all_rules`) every one."""
        words = []
        if all_rules or "nagtime" in self.given:
            words.append(f"--nagtime={span_word(self.nag)}")
        if all_rules or "forfeittime" in self.given:
            words.append(f"--forfeittime={span_word(self.forfeit)}")
        if self.total is not None:
            words.append(f"--totaltime={span_word(self.total)}")
        if self.bank is not None:
            words.append(f"--clock={self.bank.word()}")
        return " ".join(words)

    def said(self) -> Fact:
        """The rules as the new-game mail and ``help time`` say them, to be said in the reader's words."""
        rules = Fact("time-rules", nag=_span_fact(self.nag), forfeit=_span_fact(self.forfeit))
        if self.total is not None:
            rules = Fact("time-rules-total", rules=rules, total=_span_fact(self.total))
        if self.bank is not None:
            spans = {"start": _span_fact(self.bank.start), "increment": _span_fact(self.bank.increment)}
            if self.bank.cap is None:
                rules = Fact("time-rules-clock", rules=rules, **spans)
            else:
                rules = Fact("time-rules-clock-capped", rules=rules, cap=_span_fact(self.bank.cap), **spans)
        return rules

    def sentence(self) -> str:
        """The rules in English (`said` in the reader's words)."""
        return english(self.said(), time_messages.MESSAGES)

    def sentence_facts(self) -> list[Fact]:
        """The rules as facts, one a rule, for the reader's language: what `sentence` says in English."""
        facts = [
            Fact("time-rule-nag", span=_span_fact(self.nag)),
            Fact("time-rule-forfeit", span=_span_fact(self.forfeit)),
        ]
        if self.total is not None:
            facts.append(Fact("time-rule-total", span=_span_fact(self.total)))
        if self.bank is not None:
            start, increment = _span_fact(self.bank.start), _span_fact(self.bank.increment)
            if self.bank.cap is not None:
                cap = _span_fact(self.bank.cap)
                facts.append(Fact("time-rule-clock-capped", start=start, increment=increment, cap=cap))
            else:
                facts.append(Fact("time-rule-clock", start=start, increment=increment))
        return facts

    @property
    def has_clocks(self) -> bool:
        """Whether each player has a clock of their own to show (a total or a bank)."""
        return self.total is not None or self.bank is not None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"nag": self.nag.total_seconds(), "forfeit": self.forfeit.total_seconds()}
        if self.total is not None:
            data["total"] = self.total.total_seconds()
        if self.bank is not None:
            data["bank"] = [self.bank.start.total_seconds(), self.bank.increment.total_seconds()]
            if self.bank.cap is not None:
                data["bank"].append(self.bank.cap.total_seconds())
        data["given"] = sorted(self.given)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, default: TimeControl) -> TimeControl:
        """The rules a game stored; a game from before time rules existed plays by `default`."""
        if not data:
            return default
        bank = data.get("bank")
        return cls(
            nag=timedelta(seconds=data["nag"]),
            forfeit=timedelta(seconds=data["forfeit"]),
            total=timedelta(seconds=data["total"]) if "total" in data else None,
            bank=Bank(*(timedelta(seconds=s) for s in bank)) if bank else None,
            given=frozenset(data.get("given", ())),
        )


def is_time_option(word: str) -> bool:
    return word.startswith("--")


def parse(words: Iterable[str], default: TimeControl) -> TimeControl:
    """The `TimeControl` of challenge words like ``--nagtime=3 --forfeittime=10``, over `default`.

    >>> parse(["--forfeittime=3"], TimeControl()).nag  # the club's 7 to 21, kept
    datetime.timedelta(days=1)
    >>> parse(["--clock=3+1/10"], TimeControl()).bank
    Bank(start=datetime.timedelta(days=3), increment=datetime.timedelta(days=1), cap=datetime.timedelta(days=10))
    >>> parse(["--nagtime=30", "--forfeittime=10"], TimeControl())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pbm.timekeeping.clocks.InvalidTimeRule: --nagtime=30 is not shorter than --forfeittime=10: ...
    """
    values: dict[str, Any] = {}
    words = list(words)
    given = {word[2:].partition("=")[0].lower() for word in words}
    for word in words:
        name, has_value, value = word[2:].partition("=")
        name = name.lower()
        if name not in ("nagtime", "forfeittime", "totaltime", "clock"):
            raise InvalidTimeRule("time-rule-unknown", word=word)
        if not has_value:
            example = "3+1/10" if name == "clock" else "7"
            raise InvalidTimeRule("time-rule-needs-a-value", word=word, name=name, example=example)
        values[name] = _bank(value, word) if name == "clock" else _span(value, word)
    if "forfeittime" in values and "nagtime" not in values and values["forfeittime"] <= default.nag:
        # A short forfeit time alone keeps the club's proportion of nag to forfeit time.
        scaled = values["forfeittime"] * (default.nag / default.forfeit)
        values["nagtime"] = max(SHORTEST, timedelta(hours=round(scaled.total_seconds() / 3600)))
    rules = TimeControl(
        nag=values.get("nagtime", default.nag),
        forfeit=values.get("forfeittime", default.forfeit),
        total=values.get("totaltime", default.total),
        bank=values.get("clock", default.bank),
        given=frozenset(name for name in values if name in given),
    )
    if rules.nag >= rules.forfeit:
        raise InvalidTimeRule(
            "time-rule-nag-not-before-forfeit", nag=span_word(rules.nag), forfeit=span_word(rules.forfeit)
        )
    return rules


def _span(text: str, word: str, *, zero: bool = False) -> timedelta:
    match = _SPAN.fullmatch(text.strip().lower())
    if match is None:
        raise InvalidTimeRule("time-rule-not-a-span", word=word)
    number, unit = int(match[1]), match[2] or "d"
    span = timedelta(hours=number) if unit == "h" else timedelta(days=number)
    if zero and span == timedelta(0):
        return span
    if not SHORTEST <= span <= LONGEST:
        raise InvalidTimeRule("time-rule-out-of-range", word=word)
    return span


def _bank(text: str, word: str) -> Bank:
    match = _CLOCK.fullmatch(text.strip().lower())
    if match is None:
        raise InvalidTimeRule("time-rule-not-a-clock", word=word)
    start, increment = _span(match[1], word), _span(match[2], word, zero=True)
    cap = _span(match[3], word) if match[3] else None
    if cap is not None and cap < start:
        raise InvalidTimeRule("time-rule-cap-below-start", word=word)
    return Bank(start, increment, cap)


def span_word(span: timedelta) -> str:
    """A span as an option writes it: whole days as ``7``, anything else in hours, ``36h``."""
    hours = int(span.total_seconds() // 3600)
    return str(hours // 24) if hours % 24 == 0 else f"{hours}h"


def _span_fact(span: timedelta) -> Fact:
    """A span as a time rule is said, as a fact: whole days in days, anything else in hours."""
    hours = int(span.total_seconds() // 3600)
    return Fact("days", count=hours // 24) if hours % 24 == 0 else Fact("hours", count=hours)


# -- time away ------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Interval:
    """From `start` until `end`: a time a player is away."""

    start: datetime
    end: datetime

    def overlap(self, start: datetime, end: datetime) -> timedelta:
        return max(min(self.end, end) - max(self.start, start), timedelta(0))

    def __contains__(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    """The same moments, as disjoint intervals in order."""
    result: list[Interval] = []
    for interval in sorted(intervals):
        if result and interval.start <= result[-1].end:
            result[-1] = Interval(result[-1].start, max(result[-1].end, interval.end))
        else:
            result.append(interval)
    return result


def thought(since: datetime, now: datetime, away: Sequence[Interval]) -> timedelta:
    """The time from `since` to `now` that counts: all of it but the time `away`."""
    if now <= since:
        return timedelta(0)
    return (now - since) - sum((i.overlap(since, now) for i in merged(away)), timedelta(0))


def when_thought(since: datetime, amount: timedelta, away: Sequence[Interval]) -> datetime:
    """The moment at which the time that counts since `since` reaches `amount` (time away does not count)."""
    moment, left = since, max(amount, timedelta(0))
    for interval in merged(away):
        if interval.end <= moment:
            continue
        if interval.start > moment:
            if moment + left <= interval.start:
                break
            left -= interval.start - moment
        moment = interval.end
        if moment == FOREVER:
            return FOREVER
    return moment + left


# -- the turn -------------------------------------------------------------------


def reminders_due(counted: timedelta, nag: timedelta, *, before: timedelta) -> int:
    """How many reminders a wait of `counted` has called for: one at `nag` and one each day after,
    those at `before` or later not counted (a warning or a settling takes their place).

    >>> reminders_due(timedelta(days=9), timedelta(days=7), before=timedelta(days=20))
    3
    >>> reminders_due(timedelta(days=9), timedelta(days=7), before=timedelta(days=8))
    1
    """
    if counted < nag:
        return 0
    return min((counted - nag) // DAY + 1, max(0, -((nag - before) // DAY)))


@dataclass(frozen=True)
class Turn:
    """Where the player to move stands in time at `now`: how long they have had the turn, when
    they are reminded, warned and forfeit.

    Reminders come when the time counted reaches the nag time, and each day after
    it; the last warning a day before the forfeit (and no reminder after it).

    >>> from datetime import timezone
    >>> since = datetime(2026, 12, 1, tzinfo=timezone.utc)
    >>> turn = Turn(TimeControl(), since, since + timedelta(days=9), ())
    >>> turn.waited.days, turn.reminders_due, turn.forfeit_at.date(), turn.why
    (9, 3, datetime.date(2026, 12, 22), Fact('no-move-in', span=Fact('days', count=21)))
    >>> turn.warning_at.date()
    datetime.date(2026, 12, 21)
    """

    rules: TimeControl
    since: datetime
    now: datetime
    away: tuple[Interval, ...]
    """The player's time away that ends after `since`, booked ahead too."""
    thinking: timedelta = timedelta(0)
    """The player's thinking time before this turn (``--totaltime``)."""
    bank: timedelta | None = None
    """What the player's bank held when the turn began (``--clock``)."""

    @property
    def waited(self) -> timedelta:
        """The time this turn has counted so far."""
        return thought(self.since, self.now, self.away)

    @property
    def allowed(self) -> timedelta:
        """The time this turn may count before the player forfeits: the tightest of the rules."""
        return min(amount for amount, _ in self._limits())

    @property
    def why(self) -> Fact:
        """Which rule the forfeit comes from (its words, for the move list, in `pbm.timekeeping.messages`)."""
        return min(self._limits(), key=lambda limit: limit[0])[1]

    def _limits(self) -> list[tuple[timedelta, Fact]]:
        limits = [(self.rules.forfeit, Fact("no-move-in", span=_span_fact(self.rules.forfeit)))]
        if self.rules.total is not None:
            limits.append(
                (self.rules.total - self.thinking, Fact("thinking-time-ran-out", span=_span_fact(self.rules.total)))
            )
        if self.bank is not None:
            limits.append((self.bank, Fact("clock-ran-out")))
        return [(max(amount, timedelta(0)), why) for amount, why in limits]

    @property
    def forfeit_at(self) -> datetime:
        return when_thought(self.since, self.allowed, self.away)

    @property
    def warning_amount(self) -> timedelta | None:
        """The time counted at which the last warning comes: a day before the forfeit, if the turn is longer."""
        return self.allowed - DAY if self.allowed > DAY else None

    @property
    def warning_at(self) -> datetime | None:
        amount = self.warning_amount
        return when_thought(self.since, amount, self.away) if amount is not None else None

    def reminder_amount(self, index: int) -> timedelta | None:
        """The time counted at which reminder `index` (from 0) comes, if it comes before the warning."""
        amount = self.rules.nag + index * DAY
        last = self.warning_amount if self.warning_amount is not None else self.allowed
        return amount if amount < last else None

    @property
    def reminders_due(self) -> int:
        """How many reminders the time counted so far has called for."""
        last = self.warning_amount if self.warning_amount is not None else self.allowed
        return reminders_due(self.waited, self.rules.nag, before=last)

    def reminder_at(self, index: int) -> datetime | None:
        amount = self.reminder_amount(index)
        return when_thought(self.since, amount, self.away) if amount is not None else None

    @property
    def away_now(self) -> Interval | None:
        return next((interval for interval in merged(self.away) if self.now in interval), None)

    @property
    def bank_left(self) -> timedelta | None:
        return max(self.bank - self.waited, timedelta(0)) if self.bank is not None else None

    @property
    def total_left(self) -> timedelta | None:
        if self.rules.total is None:
            return None
        return max(self.rules.total - self.thinking - self.waited, timedelta(0))
