"""Resigning in Cephalopod: two players end the game, more players play on."""

import pytest

from pbm.games import IllegalMove
from pbm.games.cephalopod import GAME


def test_a_two_player_resignation_ends_the_game_as_it_stands():
    assert GAME.resign(GAME.new(players=2), 0) is None


def test_a_resigning_player_of_three_leaves_with_their_dice():
    state = GAME.from_position("a1b1c1/.../... b", players=3)
    after = GAME.resign(state, 1)
    assert GAME.to_position(after) == "a1.c1/.../... c"
    assert after.in_play == (0, 2) and after.ply == state.ply + 1
    assert GAME.result(after) is None


def test_a_resignation_out_of_turn_leaves_the_turn_where_it_was():
    state = GAME.from_position("a1b1c1/.../... a", players=3)
    assert GAME.resign(state, 2).to_move == 0


def test_the_last_player_left_wins():
    state = GAME.resign(GAME.from_position("a1b1c1/.../... a", players=3), 2)
    final = GAME.resign(state, 1)
    assert GAME.result(final).winners == [0]
    assert (GAME.result(final).code, GAME.result(final).reason) == ("last-player", "won as the last player left")


def test_a_player_already_out_cannot_resign_again():
    state = GAME.resign(GAME.from_position("a1b1c1/.../... a", players=3), 2)
    with pytest.raises(IllegalMove, match="no longer in the game"):
        GAME.resign(state, 2)
