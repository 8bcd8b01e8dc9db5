"""Where a game stands against its time rules: each clock, whose turn it is, how long they
have waited and whether the forfeit is near (`time_view`, from `pbm.timekeeping.clocks`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbm.facts import Fact
from pbm.store.models import Board
from pbm.timekeeping.clocks import FOREVER, TimeControl, Turn


@dataclass(frozen=True)
class ClockView:
    """One player's clock, where the game has clocks (``--totaltime``, ``--clock``)."""

    userid: str
    used: timedelta
    """Thinking time so far (the turn under way included)."""
    left: timedelta | None
    """What is left before the player forfeits on their clock: the bank, or the total."""


@dataclass(frozen=True)
class TimeView:
    """A game's time as players see it: the rules, the turn under way, the clocks."""

    rules: Fact
    """The time rules, to be said in each reader's words (`pbm.timekeeping.clocks.TimeControl.said`)."""
    rule_words: str
    """The same as challenge options: ``--nagtime=7 --forfeittime=21``."""
    rule_facts: tuple[Fact, ...] = ()
    """The time rules as facts, one a rule (`pbm.timekeeping.clocks.TimeControl.sentence_facts`):
    `rules` in any language."""
    to_move: str | None = None
    waited: timedelta | None = None
    """How long the player to move has had the turn (time away not counted)."""
    forfeit_at: datetime | None = None
    why: Fact | None = None
    """Which time rule the forfeit comes from (`pbm.timekeeping.clocks.Turn.why`)."""
    near: bool = False
    """The forfeit is near enough to say so in every board mail: past the nag time, or within two days."""
    away_until: datetime | None = None
    """The player to move is away until then."""
    clocks: list[ClockView] = field(default_factory=list)


def time_view(board: Board, rules: TimeControl, turn: Turn | None) -> TimeView:
    """`board`'s time: `turn` is where the player to move stands (None once the game is over)."""
    clocks = []
    if rules.has_clocks:
        for seat in board.seats:
            used = timedelta(seconds=seat.thinking_seconds)
            mover = turn is not None and seat.seat == board.to_move
            if mover and turn is not None:
                used += turn.waited
                left = turn.bank_left if turn.bank_left is not None else turn.total_left
            elif seat.bank_seconds is not None:
                left = timedelta(seconds=seat.bank_seconds)
            else:
                left = rules.total - used if rules.total is not None else None
            clocks.append(ClockView(seat.player.userid, used, left))
    if turn is None or board.to_move is None:
        return TimeView(rules.said(), rules.words(all_rules=True), tuple(rules.sentence_facts()), clocks=clocks)
    away = turn.away_now
    return TimeView(
        rules.said(),
        rules.words(all_rules=True),
        tuple(rules.sentence_facts()),
        to_move=board.seats[board.to_move].player.userid,
        waited=turn.waited,
        forfeit_at=turn.forfeit_at,
        why=turn.why,
        near=turn.forfeit_at < FOREVER and (turn.waited >= rules.nag or turn.forfeit_at - turn.now <= NEAR),
        away_until=away.end if away is not None and away.end < FOREVER else None,
        clocks=clocks,
    )


NEAR = timedelta(days=2)
