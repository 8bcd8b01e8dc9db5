"""What Cubeo tells players: each kind of turn in words, the seats, the score it does not keep, the result.

Positions are ``owner:pips@x,y ... / seat to move / moves played``, seats counted from 1.
"""

import pytest

from pbm.games import IllegalMove, cubeo

from .words import ReportWords, in_words

GAME = cubeo.GAME

MERGE = "1:3@0,0 1:2@0,1 1:1@1,1 2:1@1,0 / 1 / 6"
"""Paren's 2 on 0,1 may merge into the 3 on 0,0 below it or the 1 on 1,1 beside it."""


def reported(before, move):
    """The report of `move`, given the notation `play_notated` returns, as the executor calls it."""
    notation, after = GAME.play_notated(before, move)
    return in_words(GAME.report(before, notation, after))


def test_an_add_says_where_and_how_many_dice_are_left_in_hand():
    assert reported(GAME.new(), "+0,1") == ReportWords("played +0,1, adding a die at 0,1 (4 left in hand)")


def test_an_add_of_the_last_die_in_hand_says_none_are_left():
    before = GAME.from_position("1:1@0,0 1:1@0,1 1:1@0,2 1:1@0,3 1:1@0,4 2:1@1,0 / 1 / 10")
    assert reported(before, "+-1,0").text == "played +-1,0, adding a die at -1,0 (none left in hand)"


def test_a_plain_move_says_which_die_went_where():
    assert reported(GAME.new(), "0,0->1,1").text == "played 1,0,0->1,1, moving the 1 from 0,0 to 1,1"


def test_a_merge_says_which_dice_became_which_value():
    before = GAME.from_position(MERGE)
    report = reported(before, "0,1+>0,0")
    assert report == ReportWords("played 2,0,1+>0,0, merging the 2 on 0,1 into the 3 on 0,0 to make 5")


def test_a_winning_merge_says_what_it_made():
    before = GAME.from_position("1:4@0,0 1:3@0,1 1:1@1,1 2:1@1,0 / 1 / 6")
    assert reported(before, "0,1+>0,0").text == "played 3,0,1+>0,0, merging the 3 on 0,1 into the 4 on 0,0 to make 7"


def test_a_removal_says_which_die_went_back_to_hand():
    before = GAME.from_position("1:2@-1,0 1:1@0,0 2:1@1,0 / 1 / 2", {"remove": True})
    assert reported(before, "--1,0").text == "played --1,0, taking the 2 on -1,0 back into hand"


def test_a_move_that_is_not_canonical_notation_is_refused():
    with pytest.raises(IllegalMove, match="not a move in canonical notation"):
        GAME.report(GAME.new(), "0,0->1,1", GAME.play(GAME.new(), "0,0->1,1"))


def test_both_seats_stay_in_play_to_the_end():
    won = GAME.from_position("1:7@0,0 1:1@0,1 2:1@1,0 / 2 / 20")
    assert GAME.seats_in_play(GAME.new()) == GAME.seats_in_play(won) == (0, 1)


def test_cubeo_keeps_no_score():
    # A merge above the die size or a blockade decides the game; nothing is counted.
    assert GAME.tally(GAME.new()) is None
    assert GAME.tally_unit == ""


def test_a_winning_merge_reads_won_by_merging_to_its_sum():
    state = GAME.play(GAME.from_position("1:4@0,0 1:3@0,1 1:1@1,1 2:1@1,0 / 1 / 6"), "0,1+>0,0")
    assert GAME.result(state).reason == "won by merging to 7"


def test_a_blockade_reads_won_leaving_the_opponent_no_legal_turn():
    # Angle closes the last side of Paren's only die.
    state = GAME.play(GAME.from_position("2:1@0,0 1:1@1,0 2:1@2,0 2:1@1,1 2:1@2,-1 / 2 / 7"), "1,2,-1->1,-1")
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([1], "no-move", "won, leaving the opponent no legal turn")
