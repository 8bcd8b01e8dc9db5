"""Properties of Dodeca over random games: legality, round trips, immutability, parser and generator agree."""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.games import IllegalMove, fairdice
from pbm.games.dodeca import COLUMNS, GAME, State

from .words import in_words

SQUARES = [f"{column}{row}" for row in range(1, 11) for column in COLUMNS]


@st.composite
def games(draw, max_plies: int = 600) -> list[State]:
    """The states of a random game: a random seed, then random legal moves."""
    state = GAME.new(seed=draw(st.binary(min_size=32, max_size=32)))
    rng = draw(st.randoms(use_true_random=False))
    states = [state]
    for _ in range(draw(st.integers(0, max_plies))):
        if GAME.result(state) is not None:
            break
        state = GAME.play(state, rng.choice(GAME.legal_moves(state)))
        states.append(state)
    return states


def positions(max_plies: int = 600):
    return games(max_plies).map(lambda states: states[-1])


@settings(max_examples=20, deadline=None)
@given(games())
def test_random_games_stay_legal(states):
    for before, after in zip(states, states[1:]):
        assert after.ply == before.ply + 1
        assert after.to_move == 1 - before.to_move
        assert after.rolls[: len(before.rolls)] == before.rolls
    final = states[-1]
    counts = Counter((die.seat, die.kind) for die in final.board if die is not None)
    for (_, kind), count in counts.items():
        assert count <= kind.count
    assert all(1 <= die.face <= die.kind.sides for die in final.board if die is not None)
    for roll in final.rolls:
        assert roll.face == fairdice.roll(final.seed, roll.index, roll.sides)
    assert [r.index for r in final.rolls] == list(range(len(final.rolls)))
    if GAME.result(final) is None:
        assert GAME.legal_moves(final), "a turn is always possible until the game ends"


@settings(max_examples=25, deadline=None)
@given(positions())
def test_position_notation_round_trips(state):
    text = GAME.to_position(state)
    again = GAME.from_position(text, seed=state.seed)
    assert GAME.to_position(again) == text
    assert (again.board, again.to_move, again.rerolled) == (state.board, state.to_move, state.rerolled)
    assert GAME.legal_moves(again) == GAME.legal_moves(state)


@settings(max_examples=25, deadline=None)
@given(positions())
def test_dump_and_load_round_trip(state):
    data = json.loads(json.dumps(GAME.dump(state)))
    assert GAME.load(data, GAME.secret_of(state)) == state
    assert GAME.resume(data, GAME.secret_of(state)) == state


@settings(max_examples=15, deadline=None)
@given(positions())
def test_every_listed_move_is_canonical_and_accepted_by_play_without_touching_the_state(state):
    snapshot = copy.deepcopy(state)
    for move in GAME.legal_moves(state):
        assert GAME.parse_move(state, move) == move
        after = GAME.play(state, move)
        assert after.ply == state.ply + 1
    assert state == snapshot


@settings(max_examples=10, deadline=None)
@given(positions())
def test_play_accepts_exactly_the_listed_moves(state):
    listed = set(GAME.legal_moves(state))
    accepted = set()
    for origin in SQUARES:
        die = state.die_at(origin)
        if die is None or die.seat != state.to_move:
            continue
        candidates = [f"roll {origin}"] + [
            f"{origin}-{target}={face}" for target in SQUARES for face in (die.face - 1, die.face + 1)
        ]
        for text in candidates:
            with contextlib.suppress(IllegalMove):
                accepted.add(GAME.parse_move(state, text))
    assert accepted == listed


MOVE_LIKE = st.text(alphabet="abcdefghijkCX -x=#0123456789rol", max_size=14)


@settings(max_examples=200, deadline=None)
@given(positions(max_plies=30), st.one_of(MOVE_LIKE, st.text(max_size=20)))
def test_any_text_is_either_played_or_refused_with_a_reason(state, text):
    try:
        after = GAME.play(state, text)
    except IllegalMove as refusal:
        assert str(refusal)
    else:
        assert after.ply == state.ply + 1


@settings(max_examples=15, deadline=None)
@given(positions())
def test_every_listed_move_reports_its_notation_and_the_die_that_played(state):
    for move in GAME.legal_moves(state):
        origin = re.split("[-x]", move.removeprefix("roll "))[0]
        report = in_words(GAME.report(state, move, GAME.play(state, move)))
        assert report.text.startswith(f"played {move}: the {state.die_at(origin).kind.name} ")
        assert report.eliminated == ()
