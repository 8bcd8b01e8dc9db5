"""The bots' ladder of one game: each level's measured strength, as ``help bots`` and the
bots' page show it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pbm.bots
import pbm.games
from pbm.games import Game, UnknownGame
from pbm.store import bot_players

WIDE_ELO = 200
"""An interval of a bot's Elo wider than this says the ladder played too few games to rate it
closely: the help and the page then say so, and how many games there were."""


@dataclass(frozen=True)
class BotLevelView:
    """One bot level of one game as the ladder (``make ladder``) measured it; the numbers are
    None for a game the ladder has not rated."""

    level: int
    userid: str
    elo: int | None = None
    """Elo counted from a player that moves at random, at 0."""
    elo_95: tuple[int, int] | None = None
    """The 95% interval of `elo`."""
    lead: int | None = None
    """Elo above the level below (the random mover below level 1)."""
    lead_95: tuple[int, int] | None = None
    games: int | None = None
    """The ladder games this level played."""
    seconds_per_move: float | None = None
    """The mean processor time it took to choose a move in the ladder, on the machine that ran it."""
    wall_seconds_per_move: float | None = None
    """The same by the wall clock, which a busy machine stretches (None where the ladder kept none)."""

    @property
    def shown_stronger(self) -> bool:
        """Whether the ladder has shown this level stronger than the one below: the 95% interval
        of its lead lies above 0."""
        return self.lead_95 is not None and self.lead_95[0] > 0


@dataclass(frozen=True)
class BotLadder:
    """A game's bot levels, weakest first, with what the ladder measured of them."""

    engine: Game[Any]
    levels: tuple[BotLevelView, ...]
    measured: datetime | None = None
    """The day of the measure (midnight UTC); None: the ladder has not rated this game."""
    games: int = 0
    """The ladder's games of this game, in all."""
    random_games: int = 0
    """Of them, those the random mover played (against level 1)."""

    @property
    def rough(self) -> bool:
        """Too few games to rate the levels closely: some level's Elo interval is wider than `WIDE_ELO`."""
        return any(v.elo_95 is not None and v.elo_95[1] - v.elo_95[0] > WIDE_ELO for v in self.levels)

    @property
    def not_shown_stronger(self) -> tuple[BotLevelView, ...]:
        """The measured levels the ladder has not shown stronger than the level below."""
        return tuple(v for v in self.levels if v.lead_95 is not None and not v.shown_stronger)


def bot_ladder(engine: Game[Any], levels: Sequence[int], measured: Mapping[str, Any] | None) -> BotLadder:
    """`engine`'s bot `levels` with the ladder's `measured` table (`pbm.bots.strength`; None when
    it has not rated the game). A level the table lacks is listed without numbers."""
    if measured is None:
        return BotLadder(engine, tuple(BotLevelView(level, bot_players.userid_of(level)) for level in levels))
    rows = {row["level"]: row for row in measured["levels"]}

    def interval(row: Mapping[str, Any], key: str) -> tuple[int, int] | None:
        return (int(row[key][0]), int(row[key][1])) if key in row else None

    views = []
    for level in levels:
        row = rows.get(level)
        if row is None:
            views.append(BotLevelView(level, bot_players.userid_of(level)))
            continue
        views.append(
            BotLevelView(
                level,
                bot_players.userid_of(level),
                elo=int(row["elo"]),
                elo_95=interval(row, "elo_95"),
                lead=int(row["lead"]) if "lead" in row else None,
                lead_95=interval(row, "lead_95"),
                games=int(row["games"]),
                seconds_per_move=float(row["seconds_per_move"]),
                wall_seconds_per_move=float(row["wall_seconds_per_move"]) if "wall_seconds_per_move" in row else None,
            )
        )
    day = datetime.strptime(measured["measured"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return BotLadder(
        engine,
        tuple(views),
        measured=day,
        games=int(measured["games"]),
        random_games=int(rows[0]["games"]) if 0 in rows else 0,
    )


def bot_ladders() -> list[BotLadder]:
    """Every game's bots and their measured strength, in the order help pages list the games: what
    ``help bots`` mails and the ``/bots`` page shows. Games no bot plays (one installed as a
    plugin) are left out."""
    ladders = []
    for engine in pbm.games.all_games():
        try:
            levels = pbm.bots.levels(engine.name)
        except UnknownGame:
            continue
        ladders.append(bot_ladder(engine, levels, pbm.bots.strength(engine.name)))
    return ladders
