"""Cubeo's position notation, storage and ASCII drawing."""

import re

import pytest

from pbm.games import InvalidPosition, cubeo

GAME = cubeo.GAME


# -- position notation ------------------------------------------------------------


def test_start_position_notation():
    assert GAME.to_position(GAME.new()) == "1:1@0,0 2:1@1,0 / 1 / 0"


def test_position_notation_carries_the_options():
    state = GAME.new(options={"dice": 10, "strict": True, "samevalue": True})
    assert GAME.to_position(state) == "1:1@0,0 2:1@1,0 / 1 / 0 / -strict -dice=10 -samevalue"
    assert GAME.from_position(GAME.to_position(state)) == state


def test_position_dice_may_come_in_any_order():
    one = GAME.from_position("2:1@1,0 1:3@0,0 1:1@0,1 / 2 / 5")
    other = GAME.from_position("1:1@0,1 1:3@0,0 2:1@1,0 / 2 / 5")
    assert one == other


def test_options_may_be_given_beside_the_position():
    state = GAME.from_position("1:1@0,0 2:1@1,0 / 1 / 0", {"dice": 8})
    assert state.options.dice == 8


def test_options_in_and_beside_the_position_must_agree():
    with pytest.raises(InvalidPosition, match="-dice=8"):
        GAME.from_position("1:1@0,0 2:1@1,0 / 1 / 0 / -dice=8", {"dice": 10})


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("1:1@0,0 2:1@1,0", "three or four parts"),
        ("1:1@0,0 2:1@2,0 / 1 / 0", "one formation"),
        ("1:1@0,0 2:1@0,0 / 1 / 0", "two dice lie at 0,0"),
        ("1:1@0,0 3:1@1,0 / 1 / 0", "'3:1@1,0' is not a die"),
        ("1:0@0,0 2:1@1,0 / 1 / 0", "shows 0"),
        ("1:1@0,0 1:1@1,0 / 1 / 0", "Angle has 0 dice"),
        ("1:1@0,0 2:1@1,0 / 3 / 0", "'3' is not a seat"),
        ("1:1@0,0 2:1@1,0 / 1 / -2", "not a number of moves"),
        ("1:1@0,0 2:1@1,0 / 1 / 0 / -dice=7", "out of range"),
        ("1:7@0,0 2:9@1,0 / 1 / 0", "only one merge can win"),
    ],
)
def test_a_broken_position_is_refused_with_the_reason(text, complaint):
    with pytest.raises(InvalidPosition, match=complaint):
        GAME.from_position(text)


def test_too_many_dice_for_the_die_size_are_refused():
    line = " ".join(f"1:1@{x},0" for x in range(7))
    with pytest.raises(InvalidPosition, match="Paren has 7 dice"):
        GAME.from_position(f"{line} 2:1@7,0 / 1 / 0")


def test_a_won_position_reads_back_as_won():
    state = GAME.from_position("1:7@0,0 1:1@0,1 2:1@1,0 / 2 / 20")
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([0], "merged", "won by merging to 7")


# -- storage ----------------------------------------------------------------------


def test_dump_is_plain_json_data():
    state = GAME.new(options={"remove": True})
    assert GAME.dump(state) == {
        "dice": [[0, 1, 0, 0], [1, 1, 1, 0]],
        "to_move": 0,
        "ply": 0,
        "options": {"remove": True},
    }


def test_load_refuses_damaged_data():
    with pytest.raises(InvalidPosition, match="damaged"):
        GAME.load({"dice": [[0, 1, 0]], "to_move": 0, "ply": 0})


# -- drawing ----------------------------------------------------------------------


def test_start_drawing():
    assert GAME.render(GAME.new()) == "\n".join(
        [
            "   -1   0   1   2",
            " 1 ... ... ... ... 1",
            " 0 ... (1) <1> ... 0",
            "-1 ... ... ... ... -1",
            "   -1   0   1   2",
            "In hand: Paren (n) 5, Angle <n> 5 (of 6 each)",
        ]
    )


def test_drawing_shows_the_bounding_box_plus_a_margin_with_absolute_labels():
    state = GAME.from_position("1:2@-3,-2 1:1@-3,-1 2:1@-2,-1 / 1 / 4")
    lines = GAME.render(state).splitlines()
    assert lines[0].split() == ["-4", "-3", "-2", "-1"]
    assert [line.split()[0] for line in lines[1:5]] == ["0", "-1", "-2", "-3"]
    assert lines[3].split() == ["-2", "...", "(2)", "...", "...", "-2"]


def test_drawing_the_same_die_is_independent_of_the_viewer():
    state = GAME.play(GAME.new(), "+0,1")
    assert GAME.render(state, viewer=0) == GAME.render(state, viewer=1) == GAME.render(state)


def grid_lines(drawing):
    return [line for line in drawing.splitlines() if re.match(r"^\s*-?\d+ ", line) and "..." in line]


def test_two_digit_pips_keep_the_columns_aligned():
    state = GAME.from_position("1:12@0,0 2:3@1,0 1:1@2,0 2:10@3,0 / 1 / 30 / -dice=12", {})
    drawing = GAME.render(state)
    rows = grid_lines(drawing)
    assert "(12)" in drawing and "<10>" in drawing and " <3>" in drawing
    # Every cell ends in the same column on every row.
    ends = {tuple(m.end() for m in re.finditer(r"\.\.\.|\(\d+\)|<\d+>", row)) for row in rows}
    assert len(ends) == 1


def test_a_wide_formation_is_drawn_in_bands_within_mail_width():
    # Twenty-four dice in a row, as far as a -dice=12 game can stretch.
    line = " ".join(f"{1 + i % 2}:{1 + i % 12}@{i - 12},0" for i in range(24))
    state = GAME.from_position(f"{line} / 1 / 60 / -dice=12")
    drawing = GAME.render(state)
    assert max(len(line) for line in drawing.splitlines()) <= cubeo.MAIL_WIDTH
    assert drawing.count("\n\n") >= 1  # more than one band
    assert len(re.findall(r"\(\d+\)|<\d+>", drawing)) == 24
    columns = [int(label) for band in drawing.split("\n\n") for label in band.splitlines()[0].split()]
    assert columns == list(range(-13, 13))


def test_load_refuses_stored_options_it_does_not_know():
    with pytest.raises(InvalidPosition, match="damaged"):
        GAME.load({"dice": [[0, 1, 0, 0], [1, 1, 1, 0]], "to_move": 0, "ply": 0, "options": {"size": 5}})
