"""Elo as pbmserv kept it: start 1600, K = 32, provisional under 20 games."""

import math

import pytest

from pbm.elo import bradley_terry, is_provisional, rate


def test_equal_players_move_sixteen_points():
    assert rate([1600.0, 1600.0], winners={1}) == pytest.approx([1584.0, 1616.0])


def test_an_upset_moves_more_than_an_expected_win():
    upset = rate([1400.0, 1800.0], winners={0})[0] - 1400.0
    expected = rate([1800.0, 1400.0], winners={0})[0] - 1800.0
    assert upset > 16 > expected > 0


def test_a_shared_result_between_equals_changes_nothing():
    assert rate([1600.0, 1600.0], winners={0, 1}) == pytest.approx([1600.0, 1600.0])


def test_ratings_are_conserved_in_a_multi_player_game():
    before = [1500.0, 1600.0, 1700.0, 1650.0]
    after = rate(before, winners={1})
    assert sum(after) == pytest.approx(sum(before))
    assert after[1] > before[1] and all(after[i] < before[i] for i in (0, 2, 3))


def test_a_multi_player_win_moves_no_more_than_a_two_player_win():
    assert rate([1600.0] * 6, winners={0})[0] - 1600.0 <= 16.0 + 1e-9


def test_a_rating_is_provisional_until_twenty_games():
    assert is_provisional(19) and not is_provisional(20)


def test_a_ladder_fit_of_equal_scores_rates_everyone_alike():
    games = [("a", "b", 1.0), ("b", "a", 1.0), ("b", "c", 0.5), ("c", "a", 1.0), ("a", "c", 1.0)]
    assert bradley_terry(games, ["a", "b", "c"]) == pytest.approx({"a": 0.0, "b": 0.0, "c": 0.0}, abs=1e-6)


def test_a_ladder_fit_chains_through_players_who_never_met():
    """Three to one against the next, each step: about 190 Elo a step, 380 for two."""
    games = [("b", "a", 1.0)] * 75 + [("b", "a", 0.0)] * 25 + [("c", "b", 1.0)] * 75 + [("c", "b", 0.0)] * 25
    ratings = bradley_terry(games, ["a", "b", "c"])
    step = 400 * math.log10(75.5 / 25.5)  # the prior adds half a win to each side
    assert ratings["b"] == pytest.approx(step, abs=0.5)
    assert ratings["c"] == pytest.approx(2 * step, abs=1.0)


def test_a_ladder_fit_keeps_a_player_who_won_everything_finite():
    ratings = bradley_terry([("b", "a", 1.0)] * 10, ["a", "b"])
    assert ratings["b"] == pytest.approx(400 * math.log10(10.5 / 0.5))
