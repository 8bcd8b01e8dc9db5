"""What Cephalopod tells players: a move in words, who a full board puts out, the score, the result.

Every text follows names the caller writes ("alice " + text), so none names a seat.
"""

import pytest

from pbm.games import IllegalMove
from pbm.games.cephalopod import GAME

from .words import ReportWords, in_words


def position(rows, to_move):
    """A position from rows of seat letters ('.' empty), top row first, every die a six (sixes never capture)."""
    return "/".join("".join("." if c == "." else f"{c}6" for c in row) for row in rows.split()) + " " + to_move


def reported(before, move):
    """The canonical notation of `move` and its report, as a caller of `play_notated` gets them."""
    notation, after = GAME.play_notated(before, move)
    return in_words(GAME.report(before, notation, after))


# -- a move in words ---------------------------------------------------------------------


def test_a_placement_without_capture_says_only_the_cell():
    assert reported(GAME.new(), "c3") == ReportWords("played c3")


def test_a_capture_of_two_dice_names_their_pips():
    before = GAME.from_position("...../b1..../.a1.../...../..... a")
    assert reported(before, "b4").text == "played b4=a4+b3, capturing 2 dice (a 1 and a 1)"


def test_a_capture_of_three_dice_lists_them_in_notation_order():
    before = GAME.from_position("...../...../.b1.a3./..a2../..... b")
    assert reported(before, "c3=6").text == "played c3=b3+c2+d3, capturing 3 dice (a 1, a 2 and a 3)"


def test_a_capture_of_all_four_neighbours_names_each_die():
    before = GAME.from_position("...../.a1b1../.b1.a3./..a1../..... b")  # the rule sheet's Figure 3
    assert reported(before, "c3=b3+c2+c4+d3").text == "played c3=b3+c2+c4+d3, capturing 4 dice (a 1, a 1, a 1 and a 3)"


@pytest.mark.parametrize(("left", "right", "words"), [(8, 3, "an 8 and a 3"), (11, 1, "an 11 and a 1")])
def test_eight_and_eleven_take_an(left, right, words):
    before = GAME.from_position(f"...../...../.a{left}.b{right}./...../..... a", {"dice": 12})
    assert reported(before, "c3").text == f"played c3=b3+d3, capturing 2 dice ({words})"


def test_the_move_that_fills_the_board_says_so():
    before = GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aabb.", "a"))
    report = reported(before, "e1")
    assert report == ReportWords("played e1, filling the board")
    assert GAME.result(GAME.play(before, "e1")).winners == [0]


def test_a_move_that_is_not_canonical_notation_is_refused():
    with pytest.raises(IllegalMove, match="not a move in canonical notation"):
        GAME.report(GAME.new(), "C3", GAME.play(GAME.new(), "c3"))


# -- eliminations ------------------------------------------------------------------------


def test_at_9_9_7_the_report_names_the_seat_out_and_why():
    before = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    report = reported(before, "e1")
    assert report.text == "played e1, filling the board"
    assert report.eliminated == (2,)
    assert report.why == "is out, holding the fewest cells (7) when the board filled up with a tie for first place"


def test_the_report_keeps_every_seats_cells_on_the_full_board():
    before = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    notation, after = GAME.play_notated(before, "e1")
    assert GAME.report(before, notation, after).tally == (9, 9, 7)
    assert GAME.tally(after) == (9, 9, 0)


def test_two_of_four_tied_for_last_go_out_together_the_filler_among_them():
    before = GAME.from_position(position("aaaa abbb bbcc cdd.", "d"), players=4)
    report = reported(before, "d1")  # Curly fills the board: 5-5-3-3
    assert report.eliminated == (2, 3)
    assert report.why == (
        "are out, tied for the fewest cells (3 each) when the board filled up with a tie for first place"
    )
    assert report.tally == (5, 5, 3, 3)


def test_a_player_without_dice_goes_first_and_then_the_fewest_cells():
    before = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"), players=4, seats=[0, 1, 2, 3])
    report = reported(before, "e1")  # 9-9-7-0
    assert report.eliminated == (2, 3)
    assert report.why == (
        "are out: the board filled up with a tie for first place, so the player holding no cells"
        " went out first, and then the player holding the fewest cells (7)"
    )
    assert report.tally == (9, 9, 7, 0)


def test_a_player_without_dice_goes_out_alone_when_the_rest_are_level():
    before = GAME.from_position(position("aab abb cc.", "c"), players=4, seats=[0, 1, 2, 3])
    report = reported(before, "c1")  # 3-3-3-0
    assert report.eliminated == (3,)
    assert report.why == "is out, holding no cells when the board filled up with a tie for first place"


def test_a_full_board_with_a_clear_leader_eliminates_nobody():
    before = GAME.from_position(position("aaaaa aaaab bbbbb bbccc cccc.", "a"))
    report = reported(before, "e1")  # 10-8-7: Paren wins
    assert (report.eliminated, report.why, report.tally) == ((), "", None)


# -- seats in play and the score ---------------------------------------------------------------


def test_seats_in_play_drop_the_eliminated():
    before = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    assert GAME.seats_in_play(before) == (0, 1, 2)
    assert GAME.seats_in_play(GAME.play(before, "e1")) == (0, 1)


def test_seats_in_play_drop_a_player_who_resigned_from_three():
    state = GAME.resign(GAME.from_position("a1b1c1/.../... a", players=3), 1)
    assert GAME.seats_in_play(state) == (0, 2)


def test_the_tally_counts_cells_for_every_seat_of_the_game():
    state = GAME.from_position("a1b1./c1../b2.. a", players=4)
    assert GAME.tally(state) == (1, 2, 1, 0)
    assert GAME.tally_unit == "cell"


# -- results -------------------------------------------------------------------------------


def test_a_win_reads_after_the_winners_name():
    state = GAME.play(GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aabb.", "a")), "e1")
    assert GAME.result(state).reason == "won, holding 13 of the 25 cells"


def test_two_players_level_on_an_even_board_tied():
    state = GAME.play(GAME.from_position(position("aaaa bbbb aaaa bbb.", "b")), "d1")
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([0, 1], "tie", "tied, each holding 8 cells")


def test_everybody_level_tied():
    state = GAME.play(GAME.from_position(position("aaaaa bbbbb ccccc ddddd eeee.", "e")), "e1")
    assert GAME.result(state).reason == "tied, each holding 5 cells"


def test_the_last_player_left_won_as_such():
    state = GAME.resign(GAME.from_position("a1b1c1/.../... a", players=3), 2)
    result = GAME.result(GAME.resign(state, 1))
    assert (result.winners, result.reason) == ([0], "won as the last player left")
