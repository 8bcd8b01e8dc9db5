"""The rules of Cephalopod, one behaviour per test, set up through position notation.

The rule sheet's figures show 3x3 corners of the 5x5 board; here they sit where
the text puts them (Figures 2 and 3 around the centre c3, Figure 4 around the
top centre c5, Figure 5 around the right centre e3).
"""

import pytest

from pbm.games import IllegalMove
from pbm.games.cephalopod import GAME, Die


def position(rows, to_move, value=6):
    """A position from rows of seat letters ('.' empty), top row first, every die showing `value`.

    Sixes are the default because no two of them can ever be captured, so these
    boards isolate the end-of-game rules from captures.
    """
    return "/".join("".join("." if c == "." else f"{c}{value}" for c in row) for row in rows.split()) + " " + to_move


def moves_at(state, cell):
    return set(GAME.moves_at(state, cell))


# -- the rule sheet's figures ---------------------------------------------------


def test_figure_2_paren_plays_a_two_in_the_centre_capturing_two_ones():
    before = GAME.from_position("...../..a1../...b1./...../..... a")
    after = GAME.play(before, "c3=c4+d3")
    assert GAME.to_position(after) == "...../...../..a2../...../..... b"


def test_figure_3_angle_plays_a_six_in_the_centre_capturing_all_four_neighbours():
    before = GAME.from_position("...../.a1b1../.b1.a3./..a1../..... b")
    after = GAME.play(before, "c3=b3+c2+c4+d3")
    assert GAME.to_position(after) == "...../.a1.../..b6../...../..... a"


def test_figure_4_angle_captures_just_the_two_ones_with_a_two():
    before = GAME.from_position(".a1.b4./..a1../..a5../...../..... b")
    after = GAME.play(before, "c5=b5+c4")
    assert GAME.to_position(after) == "..b2b4./...../..a5../...../..... a"


def test_figure_4_angle_could_instead_take_three_dice_with_a_six():
    before = GAME.from_position(".a1.b4./..a1../..a5../...../..... b")
    assert moves_at(before, "c5") == {"c5=b5+c4", "c5=b5+d5", "c5=c4+d5", "c5=b5+c4+d5"}


def test_figure_5_a_five_and_a_two_cannot_be_captured_so_the_new_die_shows_one():
    before = GAME.from_position("...../..a1../..b3a2./...a1b5/..... b")
    assert GAME.moves_at(before, "e3") == ["e3"]
    assert GAME.play(before, "e3").die_at("e3") == Die(seat=1, value=1)


# -- captures -------------------------------------------------------------------


def test_four_neighbouring_ones_give_eleven_distinct_captures():
    state = GAME.from_position("...../..a1../.b1.a1./..b1../..... a")
    captures = GAME.moves_at(state, "c3")
    assert len(captures) == len(set(captures)) == 11  # 6 pairs, 4 triples, all four


def test_neighbours_showing_one_two_and_three_give_four_captures():
    state = GAME.from_position("...../...../.a1.b3./..a2../..... b")
    assert moves_at(state, "c3") == {"c3=b3+c2", "c3=b3+d3", "c3=c2+d3", "c3=b3+c2+d3"}


def test_new_die_shows_the_sum_of_the_captured_dice():
    state = GAME.from_position("...../...../.a1.b3./..a2../..... b")
    assert GAME.play(state, "c3=c2+d3").die_at("c3") == Die(seat=1, value=5)


def test_captured_dice_leave_the_board():
    state = GAME.from_position("...../...../.a1.b3./..a2../..... b")
    after = GAME.play(state, "c3=c2+d3")
    assert after.die_at("c2") is None and after.die_at("d3") is None
    assert after.die_at("b3") == Die(seat=0, value=1)


def test_a_player_may_capture_own_dice():
    state = GAME.from_position("...../...../.a1.a2./...../..... a", seats=[0, 1])
    assert GAME.play(state, "c3=b3+d3").die_at("c3") == Die(seat=0, value=3)


def test_a_lone_neighbour_is_never_captured():
    state = GAME.from_position("...../...../.b1.../...../..... a")
    assert GAME.moves_at(state, "c3") == ["c3"]


def test_a_five_next_to_a_two_is_not_a_capture():
    state = GAME.from_position("...../...../.b5.a2./...../..... a")
    assert GAME.moves_at(state, "c3") == ["c3"]
    assert GAME.play(state, "c3").die_at("c3") == Die(seat=0, value=1)


def test_capture_is_compulsory_on_a_cell_where_one_is_possible():
    state = GAME.from_position("...../...../.b1.a2./...../..... a")
    assert "c3" not in GAME.legal_moves(state)
    with pytest.raises(IllegalMove):
        GAME.apply(state, "c3")


def test_capture_is_not_compulsory_elsewhere_on_the_board():
    state = GAME.from_position("...../...../.b1.a2./...../..... a")
    assert {"a1", "e5", "b4"} <= set(GAME.legal_moves(state))


def test_diagonal_dice_are_not_neighbours():
    state = GAME.from_position("...../.a1.b1./...../.b1.a1./..... a")
    assert GAME.moves_at(state, "c3") == ["c3"]


def test_each_cell_and_capture_set_is_listed_once_in_canonical_order():
    state = GAME.from_position("...../..a1../.b1.a1./..b1../..... a")
    captures = GAME.moves_at(state, "c3")
    assert captures[:3] == ["c3=b3+c2", "c3=b3+c4", "c3=b3+d3"]
    assert captures[-1] == "c3=b3+c2+c4+d3"


def test_legal_moves_run_through_the_cells_column_by_column():
    state = GAME.new(options={"size": 3})
    assert GAME.legal_moves(state) == ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]


def test_twelve_sided_dice_allow_captures_up_to_twelve():
    rows = "...../...../.a6.b6./...../..... a"
    assert GAME.moves_at(GAME.from_position(rows, {"dice": 12}), "c3") == ["c3=b3+d3"]
    assert GAME.moves_at(GAME.from_position(rows), "c3") == ["c3"]


def test_twelve_sided_dice_show_the_sum_of_the_capture():
    state = GAME.from_position("...../..b4../.a6.b5./..a2../..... a", {"dice": 12})
    assert GAME.play(state, "c3=b3+d3").die_at("c3") == Die(seat=0, value=11)


# -- turns and the end of a two-player game --------------------------------------


def test_paren_moves_first_and_the_players_alternate():
    state = GAME.new()
    assert state.to_move == 0
    state = GAME.play(state, "a1")
    assert state.to_move == 1
    assert GAME.play(state, "a2").to_move == 0


def test_ply_counts_the_moves_played():
    state = GAME.play(GAME.play(GAME.new(), "c3"), "d4")
    assert state.ply == 2


def test_game_goes_on_while_a_cell_is_empty():
    state = GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aaaa.", "b"))
    assert GAME.result(state) is None


def test_full_board_is_won_by_the_majority():
    state = GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aaaa.", "b"))
    finished = GAME.play(state, "e1")
    result = GAME.result(finished)
    assert result is not None and result.winners == [0]


def test_no_moves_remain_once_the_board_is_full():
    finished = GAME.play(GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aaaa.", "b")), "e1")
    assert GAME.legal_moves(finished) == []


def test_no_move_is_accepted_once_the_game_is_over():
    finished = GAME.play(GAME.from_position(position("aaaaa bbbbb aaaaa bbbbb aaaa.", "b")), "e1")
    with pytest.raises(IllegalMove, match="the game is over"):
        GAME.play(finished, "a1")


def test_two_players_level_on_an_even_board_tie():
    state = GAME.from_position(position("aaaa bbbb aaaa bbb.", "b"))
    result = GAME.result(GAME.play(state, "d1"))
    assert result is not None and result.winners == [0, 1]


# -- more than two players ---------------------------------------------------------


def test_three_players_take_turns_in_seat_order():
    state = GAME.new(players=3)
    seats = []
    for move in ("a1", "a3", "a5", "c1"):
        seats.append(state.to_move)
        state = GAME.play(state, move)
    assert seats == [0, 1, 2, 0]


def test_a_clear_leader_among_three_wins_on_a_full_board():
    state = GAME.from_position(position("aaaaa aaaab bbbbb bbccc cccc.", "a"))
    result = GAME.result(GAME.play(state, "e1"))  # 10-8-7
    assert result is not None and result.winners == [0]


def test_at_9_9_7_the_player_with_seven_is_eliminated():
    state = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    after = GAME.play(state, "e1")  # Paren fills the board: 9-9-7
    assert after.in_play == (0, 1)
    assert GAME.result(after) is None


def test_eliminated_players_dice_leave_the_board():
    state = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    after = GAME.play(state, "e1")
    assert after.values.count(0) == 7
    assert 2 not in after.owners


def test_after_an_elimination_the_next_remaining_player_after_the_filler_moves():
    state = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    assert GAME.play(state, "e1").to_move == 1


def test_an_eliminated_filler_is_followed_by_the_next_remaining_seat():
    state = GAME.from_position(position("aaaaa aaaab bbbbb bbbcc cccc.", "c"))
    after = GAME.play(state, "e1")  # Square fills the board but is last at 9-9-7
    assert after.in_play == (0, 1)
    assert after.to_move == 0


def test_turns_skip_eliminated_players():
    state = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"))
    after = GAME.play(state, "e1")
    movers = []
    for move in ("c2", "d2", "a1"):
        movers.append(after.to_move)
        after = GAME.play(after, move)
    assert movers == [1, 0, 1]


def test_at_6_6_5_4_4_both_players_with_four_are_eliminated():
    state = GAME.from_position(position("aaaaa bbbbb bcccc cdddd eeee.", "a"))
    after = GAME.play(state, "e1")  # Paren fills the board: 6-6-5-4-4
    assert after.in_play == (0, 1, 2)
    assert after.values.count(0) == 8
    assert after.to_move == 1


def test_everybody_tied_ends_the_game_as_a_tie_among_them_all():
    state = GAME.from_position(position("aaaaa bbbbb ccccc ddddd eeee.", "e"))
    after = GAME.play(state, "e1")  # 5-5-5-5-5
    result = GAME.result(after)
    assert result is not None and result.winners == [0, 1, 2, 3, 4]
    assert after.in_play == (0, 1, 2, 3, 4)


def test_a_player_without_dice_is_last_and_is_eliminated_first():
    state = GAME.from_position(position("aaaaa aaabb bbbbb bbccc cccc.", "a"), players=4, seats=[0, 1, 2, 3])
    after = GAME.play(state, "e1")  # 9-9-7-0: Curly and then Square go
    assert after.in_play == (0, 1)


def test_eliminating_only_empty_handed_players_can_leave_everyone_tied():
    state = GAME.from_position(position("aab abb cc.", "c"), players=4, seats=[0, 1, 2, 3])
    after = GAME.play(state, "c1")  # 3-3-3-0 on 3x3: Curly goes, then all are level
    result = GAME.result(after)
    assert after.in_play == (0, 1, 2)
    assert result is not None and result.winners == [0, 1, 2]


# -- board sizes -----------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8, 9])
def test_size_option_sets_the_board_size(size):
    state = GAME.new(options={"size": size})
    assert len(GAME.legal_moves(state)) == size * size


def test_largest_board_reaches_column_i_and_row_9():
    state = GAME.new(options={"size": 9})
    assert GAME.legal_moves(state)[-1] == "i9"
    assert GAME.play(state, "I9").die_at("i9") == Die(seat=0, value=1)


def test_a_corner_captures_its_two_neighbours():
    state = GAME.from_position(".../a2../.b3. a", {"size": 3})
    assert GAME.moves_at(state, "a1") == ["a1=a2+b1"]
