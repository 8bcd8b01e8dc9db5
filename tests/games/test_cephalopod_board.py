"""The board as mails draw it, the position notation, and what the store keeps."""

import json

import pytest

from pbm.games import InvalidOptions, InvalidPosition
from pbm.games.cephalopod import GAME, Die

# The drawing of rules/cephalopod.md ("Board drawing"), as printed there.
RULINGS_DRAWING = """\
    A   B   C   D   E
5  ... ... ... ... ...  5
4  ... (1) ... ... ...  4
3  ... ... <2> ... ...  3
2  ... ... ... ... ...  2
1  ... ... ... ... ...  1
    A   B   C   D   E"""


# -- drawing ---------------------------------------------------------------------


def test_board_is_drawn_exactly_as_in_the_rulings():
    state = GAME.from_position("...../.a1.../..b2../...../..... a")
    assert GAME.render(state) == RULINGS_DRAWING


def test_every_viewer_sees_the_same_board():
    state = GAME.from_position("...../.a1.../..b2../...../..... a")
    assert GAME.render(state, viewer=0) == GAME.render(state, viewer=1) == GAME.render(state)


def test_each_seat_has_its_own_brackets():
    state = GAME.from_position("a1b2c3/d4e5f6/... a", {"size": 3})
    assert GAME.render(state).splitlines()[1:3] == ["3  (1) <2> [3]  3", "2  {4} /5/ |6|  2"]


def test_twelve_sided_dice_draw_four_wide_cells_that_stay_aligned():
    state = GAME.from_position("b12a3./.../a1.. b", {"dice": 12})
    assert GAME.render(state) == "\n".join(
        [
            "     A    B    C",
            "3  <12> ( 3) ....  3",
            "2  .... .... ....  2",
            "1  ( 1) .... ....  1",
            "     A    B    C",
        ]
    )


def test_largest_board_is_labelled_a_to_i_and_1_to_9():
    lines = GAME.render(GAME.new(options={"size": 9})).splitlines()
    assert lines[0] == lines[-1] == "    A   B   C   D   E   F   G   H   I"
    assert lines[1] == "9  " + " ".join(["..."] * 9) + "  9"
    assert lines[-2].startswith("1  ") and lines[-2].endswith("  1")


# -- position notation --------------------------------------------------------------


@pytest.mark.parametrize(
    "position",
    [
        "a1.b2/.../a3.. b",
        ".../.../... a",
        "...../..a1../.b2.b3./..a1../..... b",
        "a1b2c3/d4e5f6/... c",
    ],
)
def test_position_notation_reads_back_as_written(position):
    assert GAME.to_position(GAME.from_position(position, seats=[0, 1, 2, 3, 4, 5])) == position


def test_rows_are_listed_from_the_top():
    state = GAME.from_position("a1../.../..b2 a")
    assert (state.die_at("a3"), state.die_at("c1")) == ((0, 1), (1, 2))


def test_board_lists_the_dice_column_by_column():
    state = GAME.from_position("a1../.../..b2 a")
    assert state.board[:3] == (None, None, Die(seat=0, value=1))
    assert state.board[6] == Die(seat=1, value=2)


def test_seats_in_play_default_to_the_letters_present_and_the_seat_to_move():
    assert GAME.from_position("a1../.../..c2 e").in_play == (0, 2, 4)


def test_caller_may_name_the_seats_in_play():
    state = GAME.from_position("a1../.../..c2 a", players=4, seats=[0, 2, 3])
    assert (state.players, state.in_play) == (4, (0, 2, 3))


def test_caller_may_give_the_move_count():
    assert GAME.from_position("a1../.../... b", ply=7).ply == 7


def test_board_size_comes_from_the_number_of_rows():
    assert GAME.from_position("a1..../...../...../...../..... b").options == {"size": 5, "dice": 6}


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("a1.b2/.../a3.. ", "is not a position"),
        ("a1.b2/.../a3. b", "row 1 has 2 cells, but the board has 3 rows and so 3 columns"),
        ("a1/.. b", "the position has 2 rows; boards are 3 to 9 rows high"),
        ("x1../.../... a", "'x1' at a3 is not a cell"),
        ("a../.../... b", "'a' at a3 is not a cell"),
        ("a7../.../... b", "a7 at a3: a die shows 1 to 6"),
        ("a0../.../... b", "a0 at a3: a die shows 1 to 6"),
        ("a1../.../... g", "the seat to move must be a letter a-f, not 'g'"),
        ("a1../.../... a", "only Paren would be in play"),
    ],
)
def test_malformed_positions_are_refused_with_the_reason(position, message):
    with pytest.raises(InvalidPosition, match=message):
        GAME.from_position(position)


def test_position_must_agree_with_the_size_option():
    with pytest.raises(InvalidPosition, match=r"the position has 3 rows, but -size=5 was asked for"):
        GAME.from_position("a1../.../... b", {"size": 5})


def test_position_options_are_checked_like_a_challenge():
    with pytest.raises(InvalidOptions):
        GAME.from_position("a1../.../... b", {"dice": 20})


def test_dice_on_the_board_must_belong_to_seats_in_play():
    with pytest.raises(InvalidPosition, match="Square has dice on the board but is not in play"):
        GAME.from_position("a1../c1../... b", seats=[0, 1])


def test_seat_to_move_must_be_in_play():
    with pytest.raises(InvalidPosition, match="Square is to move but is not in play"):
        GAME.from_position("a1../b1../... c", seats=[0, 1])


def test_seats_must_exist_in_the_game():
    with pytest.raises(InvalidPosition, match="seat 2 does not exist in a game of 2 players"):
        GAME.from_position("a1../b1../... a", players=2, seats=[0, 1, 2])


def test_full_board_with_an_unsettled_tie_for_first_is_refused():
    with pytest.raises(InvalidPosition, match="tie for first place"):
        GAME.from_position("a6a6a6/b6b6b6/a6b6c6 a")


def test_full_board_with_a_winner_is_a_finished_game():
    state = GAME.from_position("a6a6a6/b6b6b6/a6b6a6 b")
    assert GAME.result(state).winners == [0]


# -- storage ----------------------------------------------------------------------------


def eliminated_game():
    """Three players on 5x5 after Square was eliminated at 9-9-7, with the 12-sided die."""
    rows = "a7a7a7a7a7/a7a7a7b7b7/b7b7b7b7b7/b7b7c7c7c7/c7c7c7c7. a"  # sevens: nothing to capture
    state = GAME.from_position(rows, {"dice": 12}, ply=40)
    return GAME.play(state, "e1")


def test_dump_is_json_safe():
    data = GAME.dump(eliminated_game())
    assert json.loads(json.dumps(data)) == data


def test_load_resumes_exactly_what_dump_stored():
    state = eliminated_game()
    resumed = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert resumed == state
    assert (resumed.in_play, resumed.ply, resumed.players, resumed.dice) == ((0, 1), 41, 3, 12)


def test_load_refuses_incomplete_data():
    with pytest.raises(InvalidPosition, match="needs position, players, in_play, ply and options"):
        GAME.load({"position": ".../.../... a"})


@pytest.mark.parametrize(
    ("field", "value"),
    [("in_play", ["a", "b"]), ("players", "2"), ("ply", -1), ("ply", 1.5)],
)
def test_load_refuses_corrupt_values(field, value):
    data = GAME.dump(GAME.new())
    data[field] = value
    with pytest.raises(InvalidPosition):
        GAME.load(data)
