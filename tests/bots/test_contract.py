"""The bots' contract: levels weakest first, and a legal move for any position of any game and option.

`pbm.bots.choose(game, state, level, seed=...)` returns a move in the game's own notation that
its engine's `play` accepts for the seat to move, at every level, in every game, with every
option and (Cephalopod) with two to six players.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbm.bots
import pbm.games
from pbm.games import IllegalMove, UnknownGame

from .positions import positions

GAMES = ("cephalopod", "cubeo", "dodeca")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_at_least_four_levels_numbered_from_one(game):
    levels = pbm.bots.levels(game)
    assert len(levels) >= 4
    assert levels == list(range(1, len(levels) + 1))


@pytest.mark.parametrize("game", GAMES)
def test_levels_are_named_case_insensitively_like_the_games(game):
    assert pbm.bots.levels(game.upper()) == pbm.bots.levels(game)


def test_a_game_not_played_here_has_no_bots():
    with pytest.raises(UnknownGame):
        pbm.bots.levels("chess")


@pytest.mark.parametrize("level", [0, 5, 99, True, "2"])
def test_a_level_the_game_has_not_is_refused(level):
    state = pbm.games.get("cephalopod").new()
    with pytest.raises(ValueError):
        pbm.bots.choose("cephalopod", state, level)


def test_a_finished_game_has_no_move_to_choose():
    game = pbm.games.get("cephalopod")
    full = game.from_position("a1a1b1/b1a1b1/a1b1a1 b")
    with pytest.raises(IllegalMove):
        pbm.bots.choose("cephalopod", full, 1)


def _legal(game: str, state, move: str) -> bool:
    engine = pbm.games.get(game)
    engine.play(state, move)  # raises IllegalMove otherwise
    return move in engine.legal_moves(state)


LOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HIGH = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game", GAMES)
@LOW
@given(data=st.data())
def test_the_weaker_levels_choose_a_legal_move_in_any_position(game, data):
    state = data.draw(positions(game))
    level = data.draw(st.sampled_from(pbm.bots.levels(game)[:2]))
    assert _legal(game, state, pbm.bots.choose(game, state, level, seed=data.draw(st.integers(0, 2**32))))


@pytest.mark.parametrize("game", GAMES)
@HIGH
@given(data=st.data())
def test_the_stronger_levels_choose_a_legal_move_in_any_position(game, data):
    state = data.draw(positions(game, max_plies=30))
    if game == "cephalopod":  # the searches of larger boards take seconds a move: 3x3 and 4x4 here
        state = data.draw(positions(game).filter(lambda s: s.size <= 4))
    for level in pbm.bots.levels(game)[2:]:
        assert _legal(game, state, pbm.bots.choose(game, state, level, seed=data.draw(st.integers(0, 2**32))))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_with_a_seed_the_choice_is_the_same_every_time(game, data):
    state = data.draw(positions(game, max_plies=20))
    if game == "cephalopod":
        state = data.draw(positions(game).filter(lambda s: s.size <= 4))
    level = data.draw(st.sampled_from(pbm.bots.levels(game)[:3]))
    seed = data.draw(st.integers(0, 2**32))
    assert pbm.bots.choose(game, state, level, seed=seed) == pbm.bots.choose(game, state, level, seed=seed)


def test_the_safety_net_still_answers_with_a_legal_move():
    game = pbm.games.get("cephalopod")
    state = game.play(game.new(), "c3")
    move = pbm.bots.choose("cephalopod", state, 4, seed=1, seconds=0.0)
    assert move in game.legal_moves(state)


@pytest.mark.parametrize("game", GAMES)
def test_the_ladder_has_rated_every_level_of_every_game(game):
    table = pbm.bots.strength(game)
    rated = [row["level"] for row in table["levels"]]
    assert rated == [0, *pbm.bots.levels(game)]  # 0: the random mover the ratings start from
    for row in table["levels"]:
        low, high = row["elo_95"]
        assert low <= row["elo"] <= high
        assert row["games"] > 0 and row["seconds_per_move"] >= 0


@pytest.mark.parametrize("game", GAMES)
def test_the_ladders_seconds_are_cpu_time_which_a_busy_machine_does_not_inflate(game):
    table = pbm.bots.strength(game)
    assert table["clock"] == "cpu", "seconds by the wall clock say how busy the machine was, not what a level costs"
    for row in table["levels"][1:]:
        assert 0 <= row["seconds_per_move"] <= row["wall_seconds_per_move"] * 1.05 + 0.001
