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

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence, Set
from dataclasses import dataclass

START = 1600.0
K = 32.0
PROVISIONAL_GAMES = 20


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


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


def bradley_terry(
    results: Sequence[tuple[Hashable, Hashable, float]], players: Sequence[Hashable]
) -> dict[Hashable, float]:
    """Ratings in Elo that fit a set of games best (Bradley-Terry), `players[0]` at 0.

    Each result is (a, b, a's score): 1, 0.5 or 0, so a draw is half a win each. One drawn game
    is added between every pair that met, a prior that keeps the rating of a player who won
    every game finite. Hunter's MM iteration; Elo is 400 log10 of the ratio of strengths. The
    bots' ladder (``make ladder``) rates its levels with it.

    >>> ratings = bradley_terry([("b", "a", 1.0)] * 3 + [("b", "a", 0.0)], ["a", "b"])
    >>> round(ratings["b"])  # 3.5 to 1.5 with the prior draw: 400 log10(3.5 / 1.5)
    147
    """
    wins: dict[Hashable, float] = defaultdict(float)
    meetings: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for a, b, score in results:
        wins[a] += score
        wins[b] += 1 - score
        meetings[(b, a) if (b, a) in meetings else (a, b)] += 1  # one entry per pair, either way round
    for pair in list(meetings):
        wins[pair[0]] += 0.5
        wins[pair[1]] += 0.5
        meetings[pair] += 1
    strength = dict.fromkeys(players, 1.0)
    for _ in range(5000):
        change = 0.0
        for player in players:
            denominator = sum(
                count / (strength[a] + strength[b]) for (a, b), count in meetings.items() if player in (a, b)
            )
            new = wins[player] / denominator if denominator else strength[player]
            change = max(change, abs(math.log(new / strength[player])))
            strength[player] = new
        if change < 1e-10:
            break
    anchor = strength[players[0]]
    return {player: 400 * math.log10(strength[player] / anchor) for player in players}


def bradley_terry_covariance(
    results: Sequence[tuple[Hashable, Hashable, float]], ratings: Mapping[Hashable, float], players: Sequence[Hashable]
) -> dict[tuple[Hashable, Hashable], float]:
    """The covariance of `bradley_terry`'s ratings (in Elo squared), `players[0]` held at 0.

    The inverse of the fit's Fisher information, the prior games counted: ``sqrt(cov[a, a])`` is
    the standard error of a's rating and ``cov[a, a] + cov[b, b] - 2 cov[a, b]`` the variance of
    a's lead over b, so a 95% interval is 1.96 standard errors either side. Unlike a bootstrap it
    gives a clean sweep of a few games the wide interval it deserves.

    >>> games = [("b", "a", 1.0)] * 3 + [("b", "a", 0.0)]
    >>> cov = bradley_terry_covariance(games, bradley_terry(games, ["a", "b"]), ["a", "b"])
    >>> round(math.sqrt(cov["b", "b"]))  # 5 meetings at p = 0.7: 400 / ln 10 / sqrt(5 * 0.7 * 0.3)
    170
    """
    scale = 400 / math.log(10)  # Elo per unit of log-strength
    meetings: dict[tuple[Hashable, Hashable], float] = defaultdict(float)
    for a, b, _ in results:
        meetings[(b, a) if (b, a) in meetings else (a, b)] += 1
    free = list(players[1:])
    index = {player: i for i, player in enumerate(free)}
    size = len(free)
    information = [[0.0] * size for _ in range(size)]
    for (a, b), count in meetings.items():
        p = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
        weight = (count + 1) * p * (1 - p)  # the prior's drawn game counts as a meeting too
        for x, y, sign in ((a, a, 1), (b, b, 1), (a, b, -1), (b, a, -1)):
            if x in index and y in index:
                information[index[x]][index[y]] += sign * weight
    inverse = _inverse(information)
    covariance: dict[tuple[Hashable, Hashable], float] = {}
    for a in players:
        for b in players:
            inside = a in index and b in index
            covariance[a, b] = inverse[index[a]][index[b]] * scale**2 if inside else 0.0
    return covariance


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small square matrix, by Gauss-Jordan elimination with partial pivoting."""
    size = len(matrix)
    work = [row[:] + [float(i == j) for j in range(size)] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(work[r][column]))
        work[column], work[pivot] = work[pivot], work[column]
        lead = work[column][column]
        work[column] = [value / lead for value in work[column]]
        for r in range(size):
            if r != column and work[r][column]:
                factor = work[r][column]
                work[r] = [value - factor * other for value, other in zip(work[r], work[column])]
    return [row[size:] for row in work]


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
