"""The strongest level plays endgames perfectly, and every level takes a win that is there.

The exact value of a small position is worked out here by a plain minimax over the engine's own
moves (nothing of the bots'), and the top level's move must keep that value.
"""

from __future__ import annotations

import functools
import random

import pytest

import pbm.bots
from pbm.games.cephalopod import GAME as CEPHALOPOD
from pbm.games.cubeo import GAME as CUBEO

TOP = pbm.bots.levels("cephalopod")[-1]


class TooDeep(Exception):
    pass


def value(state, seat: int, depth: int = 14) -> float:
    """`seat`'s exact share of the win from `state` in two-player Cephalopod (1, 0.5 or 0)."""
    return _value(state.values, state.owners, state.to_move, seat, depth)


@functools.cache
def _value(values: tuple, owners: tuple, to_move: int, seat: int, depth: int) -> float:
    state = CEPHALOPOD.from_position(_position(values, owners, to_move))
    result = CEPHALOPOD.result(state)
    if result is not None:
        return 1 / len(result.winners) if seat in result.winners else 0.0
    if depth == 0:
        raise TooDeep
    shares = [value(CEPHALOPOD.apply(state, move), seat, depth - 1) for move in CEPHALOPOD.legal_moves(state)]
    return max(shares) if state.to_move == seat else min(shares)


def _position(values: tuple, owners: tuple, to_move: int) -> str:
    """The position notation of a two-player 3x3 board (cells column by column, rows from the top)."""
    rows = []
    for row in (2, 1, 0):
        rows.append("".join(f"{'ab'[owners[3 * column + row]]}{values[3 * column + row]}" if values[3 * column + row]
                            else "." for column in range(3)))
    return "/".join(rows) + " " + "ab"[to_move]


@functools.cache
def small_endgames(count: int) -> list:
    """Two-player 3x3 positions a few plies from the end whose value minimax can work out."""
    rng = random.Random(31)
    found = []
    while len(found) < count:
        state = CEPHALOPOD.new(options={"size": 3})
        while CEPHALOPOD.result(state) is None and state.values.count(0) > rng.choice((2, 3, 4)):
            state = CEPHALOPOD.apply(state, rng.choice(CEPHALOPOD.legal_moves(state)))
        if CEPHALOPOD.result(state) is not None or len(CEPHALOPOD.legal_moves(state)) < 2:
            continue
        try:
            best = value(state, state.to_move)
        except TooDeep:
            continue
        found.append((state, best))
    return found


@pytest.mark.parametrize("state, best", small_endgames(10), ids=lambda p: str(p)[:40])
def test_the_top_level_keeps_the_exact_value_of_an_endgame(state, best):
    move = pbm.bots.choose("cephalopod", state, TOP, seed=2)
    assert value(CEPHALOPOD.apply(state, move), state.to_move) == best


def test_the_endgames_include_wins_that_a_wrong_move_throws_away():
    """The test above means something: in some of its positions, some move does not keep the value."""
    thrown = 0
    for state, best in small_endgames(10):
        shares = [value(CEPHALOPOD.apply(state, move), state.to_move) for move in CEPHALOPOD.legal_moves(state)]
        thrown += min(shares) < best
    assert thrown >= 3


@pytest.mark.parametrize("level", [1, 2, 3, 4])
@pytest.mark.parametrize("options", [{}, {"strict": True}, {"remove": True}])
def test_every_level_merges_to_win_at_cubeo_when_it_can(level, options):
    # Paren's 4 at 0,1 sits on its 3 at 0,0 and can merge into it: 7, above 6, wins at once.
    state = CUBEO.from_position("1:3@0,0 1:4@0,1 1:1@-1,0 2:1@1,0 / 1 / 10", options)
    move = pbm.bots.choose("cubeo", state, level, seed=4)
    assert CUBEO.result(CUBEO.play(state, move)).winners == [0]
