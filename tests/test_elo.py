"""Elo as pbmserv kept it: start 1600, K = 32, provisional under 20 games."""

import pytest

from pbm.elo import is_provisional, rate


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
