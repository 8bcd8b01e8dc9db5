"""A question crosses to the thinking process and back unchanged (`pbm.bots.answers.encoded`):
every position random legal play reaches, in every game, with any options and players, the
game over included, comes back with the same moves, result and player to move. And whatever
the thinking finds, the answer crosses back as plain data (`thought`)."""

from __future__ import annotations

import pickle
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbm.games
from pbm.bots.answers import Question, decoded, encoded, thought
from pbm.games import IllegalMove

GAMES = ("cephalopod", "cubeo", "dodeca")


@st.composite
def options_of(draw: Any, engine: Any) -> dict[str, Any]:
    """Random options of a game: each of its flags on or off, each number one of its choices."""
    options: dict[str, Any] = {}
    for option in engine.options:
        if option.is_flag:
            if draw(st.booleans()):
                options[option.name] = True
        elif draw(st.booleans()):
            options[option.name] = draw(st.sampled_from(option.choices))
    return options


@st.composite
def reachable(draw: Any) -> tuple[str, Any]:
    """A game, and a position of it as a bot sees it: random legal moves from a new game with random
    options and players, sometimes ended by a resignation."""
    game = draw(st.sampled_from(GAMES))
    engine = pbm.games.get(game)
    players = draw(st.integers(engine.min_players, engine.max_players))
    seed = draw(st.binary(min_size=32, max_size=32)) if game == "dodeca" else None  # the dice too
    state = engine.new(players=players, options=draw(options_of(engine)), seed=seed)
    chooser = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(0, 40))):
        if engine.result(state) is not None:
            break
        state = engine.play(state, chooser.choice(engine.legal_moves(state)))
    if draw(st.booleans()) and engine.result(state) is None:
        state = engine.resign(state, state.to_move) or state
    return game, engine.with_stand_in_secret(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(reachable())
def test_a_position_comes_back_from_crossing_with_the_same_moves_result_and_player(drawn):
    game, state = drawn
    engine = pbm.games.get(game)
    question = Question(game, state, 4, state.to_move, "seed")
    crossed = decoded(encoded(question))
    assert crossed == question
    back = crossed.state
    assert engine.result(back) == engine.result(state)
    assert back.to_move == state.to_move
    assert engine.seats_in_play(back) == engine.seats_in_play(state)
    moves = engine.legal_moves(state) if engine.result(state) is None else []
    assert (engine.legal_moves(back) if engine.result(back) is None else []) == moves
    if moves:  # and it plays on alike
        assert engine.to_position(engine.play(back, moves[-1])) == engine.to_position(engine.play(state, moves[-1]))


def test_a_new_dodeca_game_is_not_over_once_crossed():
    """The dice kinds come back as the rules' own, not copies that the rules' ``is`` tells apart."""
    dodeca = pbm.games.get("dodeca")
    state = dodeca.with_stand_in_secret(dodeca.new())
    crossed = decoded(encoded(Question("dodeca", state, 1, state.to_move, "1")))
    assert dodeca.result(crossed.state) is None


def test_an_illegal_move_and_its_fact_survive_pickling():
    error = IllegalMove("dodeca-off-board", text="z9")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is IllegalMove
    assert back.fact == error.fact
    assert str(back) == str(error)


def test_the_thinking_answers_a_move_as_plain_data():
    dodeca = pbm.games.get("dodeca")
    state = dodeca.with_stand_in_secret(dodeca.new())
    status, move = thought(encoded(Question("dodeca", state, 1, state.to_move, "7")), 5.0)
    assert status == "ok"
    assert move in dodeca.legal_moves(state)


def test_a_position_with_no_move_comes_back_as_an_error_code_and_words_not_an_exception():
    cephalopod = pbm.games.get("cephalopod")
    over = cephalopod.from_position("a6a6b6/a6a6b6/a6b6b1 a")
    outcome = thought(encoded(Question("cephalopod", over, 2, 0, "7")), 5.0)
    assert outcome[:2] == ("error", "game-over")
    assert "IllegalMove" in outcome[2]


def test_bytes_that_are_no_question_come_back_as_an_error():
    assert thought(pickle.dumps(["not", "a question"]), 1.0)[:2] == ("error", "TypeError")
