"""Cubeo's rules on hand-made positions, one behaviour each.

Positions are written in the engine's notation: ``owner:pips@x,y ... / seat to
move / moves played [/ options]``, seats counted from 1.
"""

import pytest

from pbm.games import IllegalMove, cubeo

GAME = cubeo.GAME


def position(text, **options):
    return GAME.from_position(text, options)


def moves_from(state, x, y):
    """The legal moves (not merges) of the die at x,y."""
    return [m for m in GAME.legal_moves(state) if "->" in m and m.split(",", 1)[1].startswith(f"{x},{y}-")]


def test_the_game_is_registered_with_its_designer_and_seats():
    game = cubeo.GAME
    assert (game.name, game.title, game.designer) == ("cubeo", "Cubeo", "Marek J. Kolcun")
    assert (game.min_players, game.max_players) == (2, 2)
    assert game.seat_names == ("Paren", "Angle")
    assert [option.name for option in game.options] == ["strict", "dice", "remove", "samevalue"]


def test_start_has_paren_at_origin_and_angle_to_its_right_paren_to_move():
    state = GAME.new()
    assert [(d.owner, d.pips, d.x, d.y) for d in state.dice] == [(0, 1, 0, 0), (1, 1, 1, 0)]
    assert (state.to_move, state.ply) == (0, 0)


def test_start_position_has_exactly_five_legal_moves():
    assert len(GAME.legal_moves(GAME.new())) == 5


def test_start_position_has_three_legal_moves_with_strict():
    assert GAME.legal_moves(GAME.new(options={"strict": True})) == ["+-1,0", "+0,-1", "+0,1"]


def test_challenge_words_become_options():
    assert GAME.parse_options(["-strict", "-dice=10", "-remove", "-samevalue"]) == {
        "strict": True,
        "dice": 10,
        "remove": True,
        "samevalue": True,
    }


def test_a_die_size_outside_6_8_10_12_is_refused():
    with pytest.raises(cubeo.InvalidOptions, match="choose one of 6, 8, 10, 12"):
        GAME.new(options={"dice": 7})


def test_three_players_are_refused():
    with pytest.raises(cubeo.InvalidOptions, match="exactly 2"):
        GAME.new(players=3)


# -- adding ---------------------------------------------------------------------


def test_an_add_puts_a_new_die_showing_one():
    state = GAME.play(GAME.new(), "+-1,0")
    assert state.board[(-1, 0)] == cubeo.Die(0, 1, -1, 0)
    assert state.in_hand(0) == 4


def test_no_add_beside_an_enemy_die():
    state = position("1:1@0,0 1:1@0,1 2:1@1,0 / 1 / 2")
    assert "+1,1" not in GAME.legal_moves(state)


def test_no_add_into_an_enclosed_hole():
    # Paren's dice surround 1,1 on all four sides; Angle's sit on the corners.
    state = position("2:1@0,0 1:1@1,0 2:1@2,0 1:1@0,1 1:1@2,1 2:1@0,2 1:1@1,2 2:1@2,2 / 1 / 8")
    assert "+1,1" not in GAME.legal_moves(state)
    assert "+1,-1" in GAME.legal_moves(state)


def test_no_add_when_all_dice_are_on_the_board():
    state = position("1:1@0,0 1:1@0,1 1:1@0,2 1:1@0,3 1:1@0,4 1:1@0,5 2:1@1,0 / 1 / 11")
    assert not any(move.startswith("+") for move in GAME.legal_moves(state))


def test_the_die_size_option_gives_that_many_dice():
    assert GAME.new(options={"dice": 8}).in_hand(0) == 7


# -- moving ---------------------------------------------------------------------


def test_rounding_a_dies_outer_corner_is_one_step():
    # The 1 at 0,0 reaches 1,1 and 1,-1 diagonally around the corners of Angle's die.
    assert moves_from(GAME.new(), 0, 0) == ["1,0,0->1,-1", "1,0,0->1,1"]


def test_a_die_moves_exactly_its_pips_in_steps():
    # Two corner roundings take a 2 to the far side of a lone die, and nowhere else.
    state = position("1:2@0,0 2:1@1,0 / 1 / 2")
    assert moves_from(state, 0, 0) == ["2,0,0->2,0"]


def test_a_walk_may_not_end_where_it_started():
    # A 2 could go around a corner and back; the list never names its own cell.
    state = position("1:2@0,0 2:1@1,0 / 1 / 2")
    assert "2,0,0->0,0" not in GAME.legal_moves(state)


def test_a_pinned_die_cannot_move():
    # The middle 1 of Paren's row holds the formation together.
    state = position("1:1@0,0 1:1@1,0 1:1@2,0 2:1@3,0 / 1 / 6")
    assert moves_from(state, 1, 0) == []
    assert moves_from(state, 0, 0) != []


def test_no_squeezing_between_two_dice_touching_at_a_corner():
    # The 1 at 1,0 sits in a ring; its only way out, to 0,1, passes between
    # the dice at 0,0 and 1,1, which touch only at a corner.
    state = position("1:1@1,0 1:1@0,0 1:1@0,-1 1:1@1,-1 2:1@2,-1 2:1@2,0 2:1@2,1 2:1@1,1 / 1 / 8")
    assert (1, 0) not in state.formation.pinned
    assert moves_from(state, 1, 0) == []


def test_the_cell_a_die_left_does_not_block_a_diagonal_step():
    # The 2 at 0,0 steps into 1,0 and on to 0,1, passing between its own
    # starting cell and the die at 1,1; jumping straight up would cross a gap.
    state = position("1:2@0,0 1:1@0,-1 1:1@1,-1 1:1@2,-1 2:1@2,0 2:1@2,1 2:1@1,1 / 1 / 8")
    assert "2,0,0->0,1" in moves_from(state, 0, 0)


def test_no_jumping_across_a_gap():
    # A U open at the top: the 2 on the left arm rounds into the mouth at 1,2
    # but cannot step across the open mouth to 2,2, beside the right arm.
    state = position("1:2@0,3 1:1@0,2 1:1@0,1 1:1@0,0 2:1@1,0 2:1@2,0 2:1@3,0 2:1@3,1 2:1@3,2 / 1 / 9")
    assert moves_from(state, 0, 3) == ["2,0,3->-1,1", "2,0,3->1,1"]


def test_a_move_may_end_next_to_enemy_dice():
    state = GAME.play(GAME.new(), "1,0,0->1,1")
    assert state.board[(1, 1)].owner == 0
    assert (1, 0) in state.board


# -- merging --------------------------------------------------------------------

MERGE = "1:{a}@0,0 1:{b}@1,0 1:1@1,1 2:1@2,0 / 1 / 6"


def test_a_merge_to_exactly_the_die_size_is_ordinary():
    state = GAME.play(position(MERGE.format(a=3, b=3)), "3,0,0+>1,0")
    assert state.board[(1, 0)].pips == 6
    assert (0, 0) not in state.board
    assert GAME.result(state) is None
    assert state.in_hand(0) == 4


def test_a_merge_above_the_die_size_wins():
    state = GAME.play(position(MERGE.format(a=4, b=3)), "4,0,0+>1,0")
    assert state.board[(1, 0)].pips == 7
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([0], "merged", "won by merging to 7")
    assert GAME.legal_moves(state) == []


def test_a_merge_wins_above_the_chosen_die_size():
    state = GAME.play(position(MERGE.format(a=4, b=3), dice=8), "4,0,0+>1,0")
    assert GAME.result(state) is None


def test_merging_needs_three_own_dice():
    state = position("1:1@0,0 1:1@0,1 2:1@1,0 / 1 / 2")
    assert not any("+>" in move for move in GAME.legal_moves(state))


def test_a_pinned_die_cannot_be_a_merge_source():
    state = position("1:1@0,0 1:1@1,0 1:1@2,0 2:1@3,0 / 1 / 6")
    merges = [move for move in GAME.legal_moves(state) if "+>" in move]
    assert merges == ["1,0,0+>1,0"]


def test_an_enclosed_die_cannot_be_a_merge_source():
    # The 1 at 1,1 fills the hole of a ring and cannot slide out.
    state = position("2:1@0,0 1:1@1,0 2:1@2,0 1:1@0,1 1:1@1,1 1:1@2,1 2:1@0,2 1:1@1,2 2:1@2,2 / 1 / 9")
    assert "1,1,1+>1,0" not in GAME.legal_moves(state)
    assert "1,1,0+>1,1" in GAME.legal_moves(state)


# -- the end --------------------------------------------------------------------


def test_a_player_with_no_legal_turn_loses():
    # Angle closes the last side of Paren's only die: Paren can neither add,
    # move (the die is pinned) nor merge.
    state = position("2:1@0,0 1:1@1,0 2:1@2,0 2:1@1,1 2:1@2,-1 / 2 / 7")
    state = GAME.play(state, "1,2,-1->1,-1")
    assert GAME.legal_moves(state) == []
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([1], "no-move", "won, leaving the opponent no legal turn")


def test_no_moves_after_the_game_is_over():
    state = GAME.play(position(MERGE.format(a=4, b=3)), "4,0,0+>1,0")
    with pytest.raises(IllegalMove, match="the game is over"):
        GAME.play(state, "+-1,0")


# -- options --------------------------------------------------------------------


def test_strict_refuses_a_move_that_leaves_the_formation_looking_the_same():
    # Turning the start domino upright is a rotation of it.
    state = GAME.new(options={"strict": True})
    with pytest.raises(IllegalMove, match="with -strict"):
        GAME.play(state, "1,0,0->1,1")


def test_strict_allows_a_move_that_changes_the_formation():
    state = position("1:1@0,0 1:1@-1,0 2:1@1,0 / 1 / 2", strict=True)
    assert "1,-1,0->0,1" in GAME.legal_moves(state)


def test_remove_takes_an_own_die_back_to_the_hand():
    state = position("1:1@-1,0 1:1@0,0 2:1@1,0 / 1 / 2", remove=True)
    state = GAME.play(state, "--1,0")
    assert (-1, 0) not in state.board
    assert state.in_hand(0) == 5


def test_remove_never_takes_the_last_die():
    state = GAME.new(options={"remove": True})
    assert not any(move.startswith("-") for move in GAME.legal_moves(state))


def test_remove_follows_the_merge_source_conditions():
    # The middle die is pinned, so only the end die may be taken off.
    state = position("1:1@-1,0 1:1@0,0 2:1@1,0 / 1 / 2", remove=True)
    assert [move for move in GAME.legal_moves(state) if move.startswith("-")] == ["--1,0"]


def test_remove_is_not_a_move_without_the_option():
    state = position("1:1@-1,0 1:1@0,0 2:1@1,0 / 1 / 2")
    assert not any(move.startswith("-") for move in GAME.legal_moves(state))


def test_samevalue_refuses_a_winning_merge_of_unequal_dice():
    state = position(MERGE.format(a=4, b=3), samevalue=True)
    assert "4,0,0+>1,0" not in GAME.legal_moves(state)


def test_samevalue_allows_a_winning_merge_of_equal_dice():
    state = GAME.play(position(MERGE.format(a=4, b=4), samevalue=True), "4,0,0+>1,0")
    result = GAME.result(state)
    assert (result.winners, result.code, result.reason) == ([0], "merged", "won by merging to 8")


def test_samevalue_allows_an_ordinary_merge_of_unequal_dice():
    state = position(MERGE.format(a=2, b=3), samevalue=True)
    assert "2,0,0+>1,0" in GAME.legal_moves(state)
