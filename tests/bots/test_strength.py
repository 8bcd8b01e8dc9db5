"""A short seeded match per game guards against a strength drop: each level must beat the one
below it (level 1 a random mover) in most of a few games. The ladder (``make ladder``) measures
how much stronger; this only fails when a change makes a level no better than the one below.

The games are seeded, so the match is the same on every run and machine: a failure is a change
in the bots' play, never bad luck.
"""

from __future__ import annotations

import random

import pytest

import pbm.bots
import pbm.games

RANDOM = 0


def match(game: str, low: int, high: int, games: int, options: dict | None = None, max_plies: int = 200) -> float:
    """`high`'s score over `games` seeded games against `low` (0: a random mover), seats alternating."""
    engine = pbm.games.get(game)
    score = 0.0
    for number in range(games):
        seats = (low, high) if number % 2 == 0 else (high, low)
        state = engine.new(options=options, seed=bytes([number]) * 32) if game == "dodeca" else engine.new(
            options=options
        )
        movers = random.Random(number)
        for ply in range(max_plies):
            if engine.result(state) is not None:
                break
            level = seats[state.to_move]
            if level == RANDOM:
                move = movers.choice(engine.legal_moves(state))
            else:
                move = pbm.bots.choose(game, state, level, seed=f"{number} {ply}")
            state = engine.play(state, move)
        result = engine.result(state)
        seat = seats.index(high)
        score += 0.5 if result is None else (1 / len(result.winners) if seat in result.winners else 0.0)
    return score


@pytest.mark.parametrize("game, options", [("cephalopod", {"size": 5}), ("cubeo", {}), ("dodeca", None)])
def test_level_one_beats_a_random_mover(game, options):
    assert match(game, RANDOM, 1, 10, options) >= 7


def test_level_two_beats_level_one_at_cephalopod():
    assert match("cephalopod", 1, 2, 4, {"size": 4}) >= 3
