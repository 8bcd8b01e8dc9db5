"""Cubeo for the searches: the engine's states, truncated playouts that never miss a winning merge.

Random Cubeo games are long (about a hundred plies) and each ply costs the engine's move
generator a few hundred microseconds (the step graph of every die: see
``python -m benchmarks.cubeo_movegen``), so a playout to the end would cost tens of
milliseconds. A playout here plays at most `DEPTH` plies and then *evaluates*: the game is won by
merging two of one's dice into more than the die size, so a side is closer to winning the larger
the two neighbouring dice of its own that it could merge. Inside the playout a side that can win
at once always does: a random playout would otherwise walk past most wins.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from random import Random

from pbm.bots.search import Reward, share
from pbm.games.cubeo import GAME, SIDES, State

DEPTH = 6
"""Plies a playout plays before it evaluates."""
STEEPNESS = 0.6
"""How sure the evaluation is per pip of difference between the two sides' best merges."""


class CubeoRules:
    """The `pbm.bots.search.Rules` of Cubeo, every option included."""

    def __init__(self, depth: int = DEPTH) -> None:
        self.depth = depth

    def seats(self, position: State) -> int:
        return 2

    def mover(self, position: State) -> int:
        return position.to_move

    def key(self, position: State) -> Hashable:
        return (position.dice, position.to_move)

    def moves(self, position: State) -> Sequence[str]:
        return position.legal

    def play(self, position: State, move: str, rng: Random) -> State:
        return GAME.apply(position, move)

    def is_chance(self, move: str) -> bool:
        return False

    def outcome(self, position: State) -> Reward | None:
        result = GAME.result(position)
        if result is None:
            return None
        return share(2, result.winners)

    def winning_move(self, position: State, moves: Sequence[str]) -> int | None:
        winning = winning_merge(position)
        return None if winning is None else list(moves).index(winning)

    def notation(self, move: str) -> str:
        return move

    def rollout(self, position: State, rng: Random) -> Reward:
        for _ in range(self.depth):
            moves = position.legal
            if not moves:
                return (0.0, 1.0) if position.to_move == 0 else (1.0, 0.0)
            winning = winning_merge(position)
            if winning is not None:
                return (1.0, 0.0) if position.to_move == 0 else (0.0, 1.0)
            position = GAME.apply(position, rng.choice(moves))
        return evaluate(position)

    def policy(self, position: State, rng: Random) -> str:
        """One move as a playout would choose it: a winning merge, else at random."""
        return winning_merge(position) or rng.choice(position.legal)


def winning_merge(position: State) -> str | None:
    """A legal merge of the mover's that makes a die above the die size (and so wins), if any."""
    board = position.board
    for move in position.legal:
        source, arrow, target = move.partition("+>")
        if arrow:
            pips = int(source.split(",", 1)[0])
            x, y = target.split(",")
            if pips + board[(int(x), int(y))].pips > position.options.dice:
                return move
    return None


def best_pair(position: State, seat: int) -> int:
    """The largest sum of two neighbouring dice of `seat`'s (0 with fewer than two)."""
    board = position.board
    best = 0
    for (x, y), die in board.items():
        if die.owner != seat:
            continue
        for dx, dy in SIDES[:1] + SIDES[2:3]:  # right and up: each pair once
            other = board.get((x + dx, y + dy))
            if other is not None and other.owner == seat:
                best = max(best, die.pips + other.pips)
    return best


def evaluate(position: State) -> Reward:
    """How likely each side is to win, from the best merge each could make."""
    lead = best_pair(position, 0) - best_pair(position, 1)
    first = 1.0 / (1.0 + math.exp(-STEEPNESS * lead))
    return (first, 1.0 - first)
