"""Move notation: what players may write, what they get back when it is wrong.

The position used by most tests has c3 empty with four neighbours: b3 shows 2,
c2 and c4 show 1, d3 shows 3.
"""

import pytest

from pbm.games import IllegalMove, InvalidOptions, StaleMove
from pbm.games.cephalopod import GAME

CROSS = "...../..a1../.b2.b3./..a1../..... b"
C3_MOVES = (
    "c3=b3+c2, c3=b3+c4, c3=b3+d3, c3=c2+c4, c3=c2+d3, c3=c4+d3, c3=b3+c2+c4, c3=b3+c2+d3, c3=b3+c4+d3, c3=c2+c4+d3"
)


@pytest.fixture
def cross():
    return GAME.from_position(CROSS)


def refusal(state, text):
    with pytest.raises(IllegalMove) as raised:
        GAME.parse_move(state, text)
    return str(raised.value)


# -- accepted input -----------------------------------------------------------------


def test_plain_placement_is_the_cell(cross):
    assert GAME.parse_move(cross, "a1") == "a1"


def test_capture_is_canonical_with_captured_cells_by_column_then_row(cross):
    assert GAME.parse_move(cross, "c3=d3+c2+b3") == "c3=b3+c2+d3"


def test_input_is_case_insensitive(cross):
    assert GAME.parse_move(cross, "C3=B3+C2") == "c3=b3+c2"


def test_spaces_inside_a_move_are_ignored(cross):
    assert GAME.parse_move(cross, " c3 = b3 + c2 ") == "c3=b3+c2"


def test_bare_cell_means_the_only_capture_there():
    state = GAME.from_position("...../...../.a1.b2./...../..... a")
    assert GAME.parse_move(state, "c3") == "c3=b3+d3"


def test_value_names_the_only_capture_making_it(cross):
    assert GAME.parse_move(cross, "c3=2") == "c3=c2+c4"


def test_value_one_is_the_plain_placement_where_nothing_can_be_captured(cross):
    assert GAME.parse_move(cross, "a1=1") == "a1"


def test_play_accepts_the_conveniences_and_plays_the_canonical_move(cross):
    assert GAME.play(cross, "C3=2") == GAME.apply(cross, "c3=c2+c4")


# -- refusals ---------------------------------------------------------------------


def test_occupied_cell_is_refused(cross):
    assert refusal(cross, "c4") == "c4 is occupied"


def test_cell_off_the_board_is_refused(cross):
    assert refusal(cross, "Z9") == "z9 is not on the board; it runs from a1 to e5"


def test_row_zero_is_off_the_board(cross):
    assert refusal(cross, "a0").startswith("a0 is not on the board")


def test_captured_cell_off_the_board_is_refused(cross):
    assert refusal(cross, "c3=b3+f3").startswith("f3 is not on the board")


def test_bare_cell_where_several_captures_exist_lists_them(cross):
    assert refusal(cross, "c3") == f"a capture is compulsory at c3: {C3_MOVES}"


def test_captured_cell_must_be_next_to_the_new_die(cross):
    assert refusal(cross, "c3=b4+c2") == f"b4 is not next to c3; the moves at c3: {C3_MOVES}"


def test_captured_cell_must_hold_a_die():
    state = GAME.from_position(CROSS)
    assert refusal(state, "d4=d5+c4") == "d5 is empty, so it cannot be captured; the moves at d4: d4=c4+d3"


def test_a_cell_named_twice_is_refused(cross):
    assert refusal(cross, "c3=b3+b3").startswith("b3 is named twice; the moves at c3: c3=b3+c2")


def test_capturing_one_die_is_refused(cross):
    assert refusal(cross, "c3=b3") == f"a capture takes at least two dice; the moves at c3: {C3_MOVES}"


def test_capture_adding_up_to_more_than_six_is_refused(cross):
    assert refusal(cross, "c3=d3+c4+c2+b3") == f"b3+c2+c4+d3 add up to 7, more than 6; the moves at c3: {C3_MOVES}"


def test_ambiguous_value_lists_the_captures_that_make_it(cross):
    assert refusal(cross, "c3=4") == "c3=4 could be c3=c2+d3 or c3=c4+d3 or c3=b3+c2+c4; say which dice to capture"


def test_value_no_capture_makes_is_refused(cross):
    assert refusal(cross, "c3=1") == f"no capture at c3 makes 1; the moves at c3: {C3_MOVES}"


def test_value_where_nothing_can_be_captured_is_refused(cross):
    assert refusal(cross, "a1=3") == "nothing can be captured at a1, so a die placed there shows 1: play a1"


def test_text_that_is_not_a_move_is_refused(cross):
    assert refusal(cross, "pass") == (
        "'pass' is not a move: name a cell, such as c3, or a capture, such as c3=b3+c2 or c3=5"
    )


def test_malformed_capture_is_refused(cross):
    assert refusal(cross, "c3=b3+").startswith("'c3=b3+' is not a move: after '=' name the captured cells")


def test_empty_move_is_refused(cross):
    assert refusal(cross, "  ").startswith("no move given")


def test_refused_move_leaves_the_state_as_it_was(cross):
    before = GAME.dump(cross)
    with pytest.raises(IllegalMove):
        GAME.play(cross, "c3")
    assert GAME.dump(cross) == before


def test_apply_takes_only_canonical_notation(cross):
    with pytest.raises(IllegalMove, match="not a move in canonical notation"):
        GAME.apply(cross, "c3=c2+b3")


def test_apply_refuses_an_illegal_canonical_move(cross):
    with pytest.raises(IllegalMove, match="c3 is not legal here"):
        GAME.apply(cross, "c3")


# -- the #N guard ---------------------------------------------------------------------


def test_guard_naming_the_next_move_number_is_accepted():
    state = GAME.play(GAME.new(), "a1")
    assert GAME.play(state, "b2#2") == GAME.play(state, "b2")


def test_stale_guard_is_refused():
    state = GAME.play(GAME.new(), "a1")
    with pytest.raises(StaleMove, match="written for move 1, but the game is at move 2"):
        GAME.play(state, "b2#1")


def test_guard_is_checked_before_the_move_itself():
    state = GAME.play(GAME.new(), "a1")
    with pytest.raises(StaleMove):
        GAME.play(state, "a1#7")


def test_guard_that_is_not_a_number_is_refused():
    with pytest.raises(IllegalMove, match="is not a move number"):
        GAME.play(GAME.new(), "a1#x")


# -- challenge options ------------------------------------------------------------------


def test_options_parse_from_challenge_words():
    assert GAME.parse_options(["-size=7", "-dice=12"]) == {"size": 7, "dice": 12}


def test_options_default_to_a_5x5_board_and_six_sided_dice():
    assert GAME.new().options == {"size": 5, "dice": 6}


def test_options_combine():
    state = GAME.new(options=GAME.parse_options(["-size=3", "-dice=12"]))
    assert (state.size, state.dice) == (3, 12)


def test_unknown_option_is_refused():
    with pytest.raises(InvalidOptions, match="Cephalopod has no option -colour"):
        GAME.parse_options(["-colour=red"])


@pytest.mark.parametrize("word", ["-size=2", "-size=10", "-dice=8"])
def test_option_value_out_of_range_is_refused(word):
    with pytest.raises(InvalidOptions, match="out of range"):
        GAME.parse_options([word])


def test_size_option_needs_a_number():
    with pytest.raises(InvalidOptions, match="-size needs a number"):
        GAME.parse_options(["-size"])


def test_new_refuses_options_out_of_range():
    with pytest.raises(InvalidOptions):
        GAME.new(options={"size": 10})


@pytest.mark.parametrize("players", [1, 7])
def test_two_to_six_players_only(players):
    with pytest.raises(InvalidOptions, match="2 to 6 players"):
        GAME.new(players=players)
