"""Elo ratings as the classic server kept them: start 1600, K = 32.

A rating is *provisional* until the player has finished 20 rated games in that
game type. Cancelled games (ended before every player had moved) are not rated.

Two players: the standard Elo update. More players: every pair of seats counts
as one game between them — a winner against a non-winner scores 1-0, two
winners (a shared result) draw, two non-winners are not compared (the result
does not rank them) — and K is shared over each player's opponents so a
six-player game moves a rating no more than a two-player one.

>>> [round(r) for r in rate([1600.0, 1600.0], winners={0})]
[1616, 1584]
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

START = 1600.0
K = 32.0
PROVISIONAL_GAMES = 20


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def rate(ratings: Sequence[float], winners: Set[int]) -> list[float]:
    """New ratings for the seats of one finished game, given the winning seats."""
    count = len(ratings)
    changes = [0.0] * count
    for a in range(count):
        for b in range(count):
            if a == b or (a not in winners and b not in winners):
                continue
            score = 0.5 if (a in winners) == (b in winners) else (1.0 if a in winners else 0.0)
            changes[a] += K / (count - 1) * (score - expected_score(ratings[a], ratings[b]))
    return [rating + change for rating, change in zip(ratings, changes)]


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


@dataclass(frozen=True)
class RatingChange:
    """What a finished game did to one player's rating (rounded as printed)."""

    userid: str
    before: int
    after: int
    provisional: bool
    """Still provisional after this game: a mail says the rating, not how it moved."""
