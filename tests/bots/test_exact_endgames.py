"""The top level of Cephalopod takes a win whenever one exists in a small endgame.

What "a win exists" means is worked out here, not by the bots: a plain minimax over the
engine's own moves, every move of every position searched (no pruning, no move ordering; it only
remembers the positions it has valued, since the same position recurs by many orders of moves).
That is slow, so it gives up on an endgame past `EXACT_POSITIONS` positions, and the sample is
the endgames it can settle: random two-player 5x5 games, played from the start with a seeded
random mover until three to five cells are left empty. ``make test`` plays a bounded sample;
``ENDGAMES_SCALE=full`` (``make endgames``) the full 200 endgames, printing the score.
"""

from __future__ import annotations

import functools
import os
import random
import sys

import pytest

import pbm.bots
import pbm.bots.cephalopod
from pbm.bots.cephalopod import LOST, TIED, WON, Endgame
from pbm.bots.search import OutOfNodes
from pbm.games.cephalopod import GAME, State

TOP = pbm.bots.levels("cephalopod")[-1]
SCALE = os.environ.get("ENDGAMES_SCALE", "bounded")
ENDGAMES = {"bounded": 16, "full": 200}[SCALE]
EXACT_POSITIONS = {"bounded": 4_000, "full": 20_000}[SCALE]


MINIMAX_PLIES = 300
"""Lines deeper than this are more than Python's stack holds: the endgame is too big for minimax."""


class TooBig(Exception):
    """The endgame reaches more positions than the exact solver here is given."""


class Minimax:
    """Seat 0's exact share of the win (1, 0.5 or 0) from two-player positions, by plain minimax."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.known: dict[tuple, float] = {}

    def value(self, state: State, depth: int = 0) -> float:
        key = (state.values, state.owners, state.to_move)
        known = self.known.get(key)
        if known is not None:
            return known
        if len(self.known) >= self.limit or depth > MINIMAX_PLIES:
            raise TooBig
        result = GAME.result(state)
        if result is not None:
            value = 1 / len(result.winners) if 0 in result.winners else 0.0
        else:
            shares = [self.value(GAME.apply(state, move), depth + 1) for move in GAME.legal_moves(state)]
            value = max(shares) if state.to_move == 0 else min(shares)
        self.known[key] = value
        return value

    def share(self, state: State, seat: int) -> float:
        value = self.value(state)
        return value if seat == 0 else 1 - value


def random_endgame(rng: random.Random, size: int, empties: int) -> State | None:
    """A random game from the start, stopped once `empties` cells or fewer are empty; ``None`` when
    it ended first or leaves a single move."""
    state = GAME.new(options={"size": size})
    while GAME.result(state) is None and state.values.count(0) > empties:
        state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    if GAME.result(state) is not None or len(GAME.legal_moves(state)) < 2:
        return None
    return state


@functools.cache
def settled_endgames(count: int, limit: int, seed: int = 41) -> tuple[list[tuple[State, Minimax]], int]:
    """`count` random 5x5 endgames of three to five empty cells that minimax settles within `limit`
    positions, each with its solver; and how many drawn endgames were too big to settle."""
    rng = random.Random(seed)
    found: list[tuple[State, Minimax]] = []
    too_big = 0
    while len(found) < count:
        state = random_endgame(rng, 5, rng.choice((3, 4, 5)))
        if state is None:
            continue
        solver = Minimax(limit)
        try:
            solver.value(state)
        except TooBig:
            too_big += 1
            continue
        found.append((state, solver))
    return found, too_big


def wins_taken(endgames: list[tuple[State, Minimax]]) -> tuple[int, int, list[str]]:
    """How many of the endgames with a win the top level won, of how many; and those it missed."""
    available = taken = 0
    missed = []
    for state, solver in endgames:
        seat = state.to_move
        if solver.share(state, seat) < 1:
            continue
        available += 1
        move = pbm.bots.choose("cephalopod", state, TOP, seed=3)
        if solver.share(GAME.apply(state, move), seat) == 1:
            taken += 1
        else:
            missed.append(f"{GAME.to_position(state)}: {move}")
    return taken, available, missed


def test_the_top_level_takes_every_win_in_small_5x5_endgames():
    endgames, too_big = settled_endgames(ENDGAMES, EXACT_POSITIONS)
    taken, available, missed = wins_taken(endgames)
    print(
        f"\n{SCALE}: {taken}/{available} wins taken in {len(endgames)} endgames ({too_big} too big to settle)",
        file=sys.stderr,
    )
    assert available >= len(endgames) // 4  # the sample has wins to take
    assert not missed, missed


def test_the_sample_holds_wins_that_a_wrong_move_throws_away():
    """The test above means something: in some won endgames, some move does not win."""
    thrown = 0
    for state, solver in settled_endgames(ENDGAMES, EXACT_POSITIONS)[0]:
        seat = state.to_move
        if solver.share(state, seat) == 1:
            thrown += any(solver.share(GAME.apply(state, move), seat) < 1 for move in GAME.legal_moves(state))
    assert thrown >= 2


def test_the_endgame_search_finds_the_exact_value_and_a_move_keeping_it():
    for state, solver in settled_endgames(ENDGAMES, EXACT_POSITIONS)[0]:
        seat = state.to_move
        score, move = Endgame(state, 1_000_000).solve()
        assert {WON: 1.0, TIED: 0.5, LOST: 0.0}[score] == solver.share(state, seat)
        assert solver.share(GAME.apply(state, move), seat) == solver.share(state, seat)


def test_the_issues_endgame_is_a_tie_whatever_is_played_and_the_top_level_keeps_it():
    """The position the issue gives as a missed win (``b2`` played where ``d2=c2+d1`` would win):
    on this 4x4 board every move leads to a tie with best play, so ``b2`` threw nothing away."""
    state = GAME.from_position("a1a1a6a1/a1b6.b6/b6.a1./b1b6b1b1 b")
    solver = Minimax(100_000)
    assert {move: solver.share(GAME.apply(state, move), 1) for move in GAME.legal_moves(state)} == {
        "b2": 0.5,
        "c3": 0.5,
        "d2=c2+d1": 0.5,
    }
    assert Endgame(state, 100_000).solve()[0] == TIED
    assert solver.share(GAME.apply(state, pbm.bots.choose("cephalopod", state, TOP, seed=3)), 1) == 0.5


@pytest.mark.parametrize("game", range(3))
def test_the_top_level_takes_every_win_of_a_3x3_game_from_the_start(game):
    """3x3 games from the empty board against a random mover: on every turn of the top level that
    minimax can settle, a win is taken whenever one exists."""
    rng = random.Random(game)
    state = GAME.new(options={"size": 3})
    top, checked = game % 2, 0
    while GAME.result(state) is None:
        if state.to_move == top:
            move = pbm.bots.choose("cephalopod", state, TOP, seed=game)
            solver = Minimax(EXACT_POSITIONS)
            try:
                if solver.share(state, top) == 1:
                    assert solver.share(GAME.apply(state, move), top) == 1, GAME.to_position(state)
                    checked += 1
            except TooBig:
                pass
        else:
            move = rng.choice(GAME.legal_moves(state))
        state = GAME.apply(state, move)
    assert checked


def test_an_endgame_deeper_than_the_search_goes_is_left_to_the_tree_search(monkeypatch):
    """Captures can keep an endgame going for hundreds of moves, past what Python's stack holds:
    the exact search gives up at its depth, as at its budget, and the bot still answers."""
    monkeypatch.setattr(pbm.bots.cephalopod, "ENDGAME_PLIES", 1)
    state = GAME.from_position("a1a1a6a1/a1b6.b6/b6.a1./b1b6b1b1 b")
    with pytest.raises(OutOfNodes):
        Endgame(state, 100_000).solve()
    assert pbm.bots.choose("cephalopod", state, TOP, seed=3) in GAME.legal_moves(state)
