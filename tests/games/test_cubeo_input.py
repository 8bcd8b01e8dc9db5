"""How Cubeo reads a player's move: lenient forms, the #N guard, and refusals that explain."""

import pytest

from pbm.games import IllegalMove, StaleMove, cubeo

GAME = cubeo.GAME
START = GAME.new()
# Paren: a 3 and a 3 side by side plus a 1 on top; Angle's 1 to the right.
MERGEABLE = GAME.from_position("1:3@0,0 1:3@1,0 1:1@1,1 2:1@2,0 / 1 / 6")


def refusal(state, text):
    with pytest.raises(IllegalMove) as raised:
        GAME.play(state, text)
    return str(raised.value)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1,0,0->1,1", "1,0,0->1,1"),
        (" 1 , 0 , 0 -> 1 , 1 ", "1,0,0->1,1"),
        ("0,0->1,1", "1,0,0->1,1"),
        ("0, 0 -> 1, -1", "1,0,0->1,-1"),
        ("+ -1 , 0", "+-1,0"),
        ("+0,1", "+0,1"),
    ],
)
def test_lenient_input_gives_the_canonical_move(text, canonical):
    assert GAME.parse_move(START, text) == canonical


def test_a_merge_may_omit_the_pips():
    assert GAME.parse_move(MERGEABLE, "0,0 +> 1,0") == "3,0,0+>1,0"


def test_every_listed_move_reads_as_itself():
    for move in GAME.legal_moves(MERGEABLE):
        assert GAME.parse_move(MERGEABLE, move) == move


def test_a_guard_naming_the_next_move_is_accepted():
    assert GAME.play(START, "+0,1 #1") == GAME.play(START, "+0,1")


def test_a_guard_naming_another_move_is_refused():
    with pytest.raises(StaleMove, match="written for move 3, but the game is at move 1"):
        GAME.play(START, "+0,1#3")


def test_garbage_is_refused_with_the_forms_of_a_move():
    assert "is not a Cubeo move: write +x,y to add" in refusal(START, "e2e4")


def test_a_move_from_an_empty_cell_is_refused():
    assert refusal(START, "1,3,3->3,4") == "there is no die of yours at 3,3"


def test_a_move_of_the_enemys_die_is_refused():
    assert refusal(START, "1,0->1,1") == "there is no die of yours at 1,0 (the die there is Angle's)"


def test_wrong_pips_are_refused():
    assert refusal(START, "3,0,0->1,1") == "the die at 0,0 shows 1, not 3"


def test_moving_a_pinned_die_is_refused():
    state = GAME.from_position("1:1@0,0 1:1@1,0 1:1@2,0 2:1@3,0 / 1 / 6")
    assert refusal(state, "1,1,0->1,1") == "the die at 1,0 is pinned: moving it would split the formation"


def test_a_move_of_the_wrong_length_lists_the_reachable_cells():
    state = GAME.from_position("1:2@0,0 2:1@1,0 / 1 / 2")
    assert refusal(state, "2,0,0->1,1") == "a 2 must move exactly 2 steps; from 0,0 it can reach: 2,0"


def test_a_move_onto_an_own_die_suggests_the_merge():
    assert refusal(MERGEABLE, "3,0,0->1,0") == "1,0 is taken; to merge into your die there write 3,0,0+>1,0"


def test_an_add_without_dice_in_hand_is_refused():
    state = GAME.from_position("1:1@0,0 1:1@0,1 1:1@0,2 1:1@0,3 1:1@0,4 1:1@0,5 2:1@1,0 / 1 / 11")
    assert refusal(state, "+-1,0") == "you have no dice left in hand (all 6 are on the board)"


def test_an_add_away_from_own_dice_is_refused():
    assert refusal(START, "+5,5") == "+5,5 does not touch your dice: a new die must lie beside one of yours"


def test_an_add_beside_an_enemy_die_is_refused():
    state = GAME.from_position("1:1@0,0 1:1@0,1 2:1@1,0 / 1 / 2")
    assert refusal(state, "+1,1") == "+1,1 touches an enemy die: a new die may touch only your own"


def test_an_add_onto_a_die_is_refused():
    assert refusal(START, "+0,0") == "+0,0 is taken: a die lies there already"


def test_an_add_into_a_hole_is_refused():
    state = GAME.from_position("2:1@0,0 1:1@1,0 2:1@2,0 1:1@0,1 1:1@2,1 2:1@0,2 1:1@1,2 2:1@2,2 / 1 / 8")
    assert refusal(state, "+1,1") == "+1,1 is enclosed by the formation: a new die cannot slide in there"


def test_a_merge_with_two_dice_is_refused():
    state = GAME.from_position("1:1@0,0 1:1@0,1 2:1@1,0 / 1 / 2")
    assert refusal(state, "1,0,1+>0,0") == "merging needs at least 3 of your dice on the board; you have 2"


def test_a_merge_into_an_empty_cell_suggests_the_move():
    assert refusal(MERGEABLE, "1,1,1+>0,1") == (
        "there is no die at 0,1 to merge into; to move there write 1,1,1->0,1"
    )


def test_a_merge_into_an_enemy_die_is_refused():
    state = GAME.from_position("1:3@0,0 1:3@1,0 1:1@1,1 2:1@2,1 / 1 / 6")
    assert refusal(state, "1,1,1+>2,1") == "you can merge only into your own dice; the die at 2,1 is Angle's"


def test_a_merge_of_dice_not_side_by_side_is_refused():
    assert refusal(MERGEABLE, "3,0,0+>1,1") == "the dice at 0,0 and 1,1 are not side by side"


def test_a_merge_from_a_pinned_die_is_refused():
    state = GAME.from_position("1:1@0,0 1:1@1,0 1:1@2,0 2:1@3,0 / 1 / 6")
    assert refusal(state, "1,1,0+>0,0") == "the die at 1,0 is pinned: taking it away would split the formation"


def test_a_merge_from_an_enclosed_die_is_refused():
    state = GAME.from_position("2:1@0,0 1:1@1,0 2:1@2,0 1:1@0,1 1:1@1,1 1:1@2,1 2:1@0,2 1:1@1,2 2:1@2,2 / 1 / 9")
    assert refusal(state, "1,1,1+>1,0") == "the die at 1,1 is enclosed: it cannot slide out of the formation"


def test_samevalue_explains_a_refused_merge():
    state = GAME.from_position("1:4@0,0 1:3@1,0 1:1@1,1 2:1@2,0 / 1 / 6", {"samevalue": True})
    assert refusal(state, "4,0,0+>1,0") == "with -samevalue a merge above 6 needs two equal dice; 4 and 3 differ"


def test_strict_explains_a_refused_move():
    state = GAME.new(options={"strict": True})
    assert refusal(state, "1,0,0->1,-1") == (
        "with -strict no move may leave the formation looking as it did (the same after a rotation or reflection)"
    )


def test_a_removal_without_the_option_is_refused():
    state = GAME.from_position("1:1@-1,0 1:1@0,0 2:1@1,0 / 1 / 2")
    assert refusal(state, "--1,0") == "--1,0 takes a die off the board, which only the -remove option allows"


def test_removing_the_last_die_is_refused():
    state = GAME.new(options={"remove": True})
    assert refusal(state, "-0,0") == "you cannot remove your last die on the board"


def test_removing_a_pinned_die_is_refused():
    state = GAME.from_position("1:1@-1,0 1:1@0,0 2:1@1,0 / 1 / 2", {"remove": True})
    assert refusal(state, "-0,0") == "the die at 0,0 is pinned: taking it away would split the formation"


def test_a_refused_move_leaves_the_state_as_it_was():
    before = GAME.dump(MERGEABLE)
    refusal(MERGEABLE, "3,0,0->1,0")
    assert GAME.dump(MERGEABLE) == before


def test_apply_refuses_a_canonical_move_that_is_not_legal():
    with pytest.raises(IllegalMove, match="not a legal move"):
        GAME.apply(START, "1,0,0->2,0")


def test_a_die_named_without_a_destination_lists_what_it_can_do():
    assert refusal(MERGEABLE, "1,1") == (
        "1,1 names your die but not where it goes; it can play: 1,1,1->0,1; 1,1,1->2,1; 1,1,1+>1,0"
    )
