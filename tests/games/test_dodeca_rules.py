"""Dodeca's rules, one behaviour per test: setup, roll-off, movement, faces, rerolls, winning, notation."""

from __future__ import annotations

import hashlib

import pytest

from pbm.games import IllegalMove, InvalidOptions, StaleMove, fairdice, get
from pbm.games.dodeca import GAME

from .dodeca_support import PARKED, SEED, moves_from, state_with, targets_from


def seeds():
    """Distinct fixed seeds, as many as a test needs."""
    counter = 0
    while True:
        yield hashlib.sha256(str(counter).encode()).digest()
        counter += 1


# -- the game's description -------------------------------------------------------------------


def test_dodeca_is_registered_for_two_players_south_and_north():
    game = get("Dodeca")
    assert game is GAME
    assert (game.name, game.title, game.min_players, game.max_players) == ("dodeca", "Dodeca", 2, 2)
    assert game.seat_names == ("South", "North")
    assert "Warpspawn" in game.designer


def test_dodeca_takes_no_options_and_exactly_two_players():
    with pytest.raises(InvalidOptions, match="has no option -size"):
        GAME.new(options={"size": 5}, seed=SEED)
    with pytest.raises(InvalidOptions, match="exactly 2 players"):
        GAME.new(players=3, seed=SEED)


# -- setup and who starts --------------------------------------------------------------------------

BACK_ROW = ["Cube", "Cube", "Octo", "Octo", "Dodeca", "Dodeca", "Octo", "Octo", "Cube", "Cube"]


def test_setup_places_each_sides_twenty_dice_on_its_back_two_rows():
    state = GAME.new(seed=SEED)

    def row(number):
        dice = [state.die_at(f"{column}{number}") for column in "abcdefghij"]
        return [None if die is None else (die.seat, die.kind.name) for die in dice]

    assert row(1) == [(0, kind) for kind in BACK_ROW]
    assert row(2) == [(0, "Tetra")] * 10
    assert all(row(number) == [None] * 10 for number in range(3, 9))
    assert row(9) == [(1, "Tetra")] * 10
    assert row(10) == [(1, kind) for kind in BACK_ROW]


def test_setup_faces_are_rolls_0_to_39_in_the_documented_square_order():
    state = GAME.new(seed=SEED)
    order = [f"{column}{row}" for row in (1, 2, 9, 10) for column in "abcdefghij"]
    for index, square in enumerate(order):
        die = state.die_at(square)
        assert die.face == fairdice.roll(SEED, index, die.kind.sides), square
        assert state.rolls[index].what.startswith(f"setup {square}: ")


def test_the_higher_roll_off_d10_moves_first():
    for seed in [s for s, _ in zip(seeds(), range(30))]:
        south, north = fairdice.roll(seed, 40, 10), fairdice.roll(seed, 41, 10)
        if south != north:
            assert GAME.new(seed=seed).to_move == (0 if south > north else 1)


def test_a_roll_off_tie_is_rolled_again():
    seed = next(s for s in seeds() if fairdice.roll(s, 40, 10) == fairdice.roll(s, 41, 10))
    state = GAME.new(seed=seed)
    rolls = [fairdice.roll(seed, index, 10) for index in range(40, len(state.rolls))]
    assert len(rolls) >= 4 and len(rolls) % 2 == 0
    assert all(rolls[i] == rolls[i + 1] for i in range(0, len(rolls) - 2, 2))
    south, north = rolls[-2:]
    assert south != north
    assert state.to_move == (0 if south > north else 1)


def test_either_seat_may_move_first():
    firsts = {GAME.new(seed=seed).to_move for seed, _ in zip(seeds(), range(40))}
    assert firsts == {0, 1}


def test_a_new_game_without_a_seed_draws_a_fresh_one():
    assert GAME.secret_of(GAME.new()) != GAME.secret_of(GAME.new())


# -- how each die moves and captures --------------------------------------------------------------

# The rulings' table: (moves, captures) per die, written out independently of the engine.
ORTHOGONAL = {(0, 2), (2, 0), (0, -2), (-2, 0)}
DIAGONAL = {(2, 2), (2, -2), (-2, -2), (-2, 2)}
GEOMETRY = {
    "t": (ORTHOGONAL, DIAGONAL),
    "c": (DIAGONAL, ORTHOGONAL),
    "o": (DIAGONAL, DIAGONAL),
    "d": (ORTHOGONAL, ORTHOGONAL),
}


def _square(offset):
    return f"{'abcdefghij'[4 + offset[0]]}{5 + offset[1]}"


@pytest.mark.parametrize("kind", "tcod")
def test_each_die_moves_exactly_its_face_along_its_move_directions(kind):
    state = state_with(e5=f"a{kind}2", **PARKED)
    assert targets_from(state, "e5") == {_square(offset) for offset in GEOMETRY[kind][0]}


@pytest.mark.parametrize("kind", "tcod")
def test_each_die_captures_only_along_its_capture_directions(kind):
    enemies = {_square(offset): "bt1" for offset in ORTHOGONAL | DIAGONAL}
    state = state_with(e5=f"a{kind}2", **enemies, **PARKED)
    captures = {m.split("x")[1].split("=")[0] for m in moves_from(state, "e5")}
    assert captures == {_square(offset) for offset in GEOMETRY[kind][1]}
    assert all("x" in m for m in moves_from(state, "e5"))


@pytest.mark.parametrize(
    ("die", "target", "message"),
    [
        ("at2", "g7", "a Tetra moves orthogonally and captures diagonally, so it cannot move diagonally"),
        ("ac2", "e7", "a Cube moves diagonally and captures orthogonally, so it cannot move orthogonally"),
        ("ao2", "c5", "an Octo moves and captures diagonally, so it cannot move orthogonally"),
        ("ad2", "c3", "a Dodeca moves and captures orthogonally, so it cannot move diagonally"),
    ],
)
def test_a_move_off_the_dies_move_directions_is_refused_with_its_rule(die, target, message):
    with pytest.raises(IllegalMove, match=f"^{message} to the empty square {target}$"):
        GAME.play(state_with(e5=die, **PARKED), f"e5-{target}=1")


@pytest.mark.parametrize(
    ("die", "target", "message"),
    [
        ("at2", "e7", "a Tetra moves orthogonally and captures diagonally, so it cannot capture orthogonally on e7"),
        ("ac2", "g7", "a Cube moves diagonally and captures orthogonally, so it cannot capture diagonally on g7"),
    ],
)
def test_a_capture_off_the_dies_capture_directions_is_refused_with_its_rule(die, target, message):
    with pytest.raises(IllegalMove, match=f"^{message}$"):
        GAME.play(state_with(e5=die, e7="bt1", g7="bt1", **PARKED), f"e5x{target}=1")


def test_a_die_must_move_exactly_as_far_as_its_face():
    state = state_with(e5="ad3", **PARKED)
    assert targets_from(state, "e5") == {"e8", "h5", "e2", "b5"}
    with pytest.raises(IllegalMove, match="^e7 is 2 squares away but the Dodeca shows 3$"):
        GAME.play(state, "e5-e7=2")
    with pytest.raises(IllegalMove, match="^d4 is 1 square away but the Cube shows 4$"):
        GAME.play(state_with(e5="ac4", **PARKED), "e5-d4=3")


def test_a_die_cannot_jump_over_any_die():
    state = state_with(e5="ad3", e6="at1", f5="bt1", e8="bt1", **PARKED)
    assert targets_from(state, "e5") == {"e2", "b5"}
    with pytest.raises(IllegalMove, match="^e8 is blocked by the die at e6$"):
        GAME.play(state, "e5xe8=2")
    with pytest.raises(IllegalMove, match="^h5 is blocked by the die at f5$"):
        GAME.play(state, "e5-h5=2")


def test_a_die_cannot_cross_the_board_edge():
    state = state_with(b2="ad3", i9="ao4", **PARKED)
    assert targets_from(state, "b2") == {"b5", "e2"}
    assert targets_from(state, "i9") == {"e5"}


def test_a_dodeca_showing_ten_cannot_move_on_a_ten_by_ten_board():
    state = state_with(a1="ad10", **PARKED)
    assert moves_from(state, "a1") == []
    assert "roll a1" in GAME.legal_moves(state)


def test_a_die_never_lands_on_a_friendly_die():
    state = state_with(e5="ad2", e7="at1", **PARKED)
    assert "e7" not in targets_from(state, "e5")
    with pytest.raises(IllegalMove, match="^e7 holds one of your own dice, and a die never lands on a friendly die$"):
        GAME.play(state, "e5-e7=1")


def test_a_capture_removes_the_enemy_die_and_puts_the_capturer_there():
    state = GAME.play(state_with(e5="at2", g7="bc3", **PARKED), "e5xg7=3")
    assert state.die_at("e5") is None
    assert (state.die_at("g7").seat, state.die_at("g7").kind.name, state.die_at("g7").face) == (0, "Tetra", 3)
    assert len([d for d in state.board if d is not None]) == 3


# -- the face change after moving ------------------------------------------------------------------


def test_the_mover_chooses_one_face_up_or_down():
    state = state_with(e5="ao3", **PARKED)
    assert set(moves_from(state, "e5")) == {f"e5-{t}={f}" for t in ("h8", "h2", "b2", "b8") for f in (2, 4)}
    assert GAME.play(state, "e5-h8=2").die_at("h8").face == 2
    assert GAME.play(state, "e5-h8=4").die_at("h8").face == 4


def test_the_face_may_be_omitted_only_when_one_new_face_is_possible():
    with pytest.raises(IllegalMove, match="^say which face the Octo shows after the move: e5-h8=2 or e5-h8=4$"):
        GAME.play(state_with(e5="ao3", **PARKED), "e5-h8")
    assert GAME.parse_move(state_with(e5="ao1", **PARKED), "e5-f6") == "e5-f6=2"


def test_a_die_showing_one_turns_to_two():
    state = state_with(e5="at1", **PARKED)
    assert {m.split("=")[1] for m in moves_from(state, "e5")} == {"2"}
    with pytest.raises(IllegalMove, match="^the new face must be 2: a Tetra showing 1 turns one face up or down$"):
        GAME.play(state, "e5-e6=0")


@pytest.mark.parametrize(("die", "move", "down"), [("at4", "a1-a5", 3), ("ac6", "a1-g7", 5), ("ao8", "a1-i9", 7)])
def test_a_die_showing_its_top_face_turns_down(die, move, down):
    state = state_with(a1=die, **PARKED)
    assert {m.split("=")[1] for m in moves_from(state, "a1")} == {str(down)}
    assert GAME.parse_move(state, move) == f"{move}={down}"
    with pytest.raises(IllegalMove, match=f"^the new face must be {down}: "):
        GAME.play(state, f"{move}={down + 2}")


def test_the_new_face_must_differ_from_the_old_by_one():
    with pytest.raises(IllegalMove, match="^the new face must be 2 or 4: a Cube showing 3 turns one face up or down$"):
        GAME.play(state_with(e5="ac3", **PARKED), "e5-h8=3")


# -- rerolls ---------------------------------------------------------------------------------------


def test_a_reroll_rolls_the_die_in_place_with_the_games_next_roll():
    state = GAME.new(seed=SEED)
    square = "a1" if state.to_move == 0 else "a10"
    after = GAME.play(state, f"roll {square}")
    expected = fairdice.roll(SEED, len(state.rolls), 6)
    assert after.die_at(square) == state.die_at(square)._replace(face=expected)
    assert after.rolls[-1] == fairdice.Roll(
        len(state.rolls), 6, expected, 1, f"move 1: roll {square} ({GAME.seat_names[state.to_move]} Cube)"
    )


def test_a_reroll_may_come_up_the_same():
    face = fairdice.roll(SEED, 0, 8)
    after = GAME.play(state_with(e5=f"ao{face}", **PARKED), "roll e5")
    assert after.die_at("e5").face == face
    assert after.ply == 1 and after.to_move == 1


def test_a_player_may_not_reroll_on_two_turns_in_a_row():
    state = state_with(rerolled="a", e5="ao3", **PARKED)
    assert not any(m.startswith("roll") for m in GAME.legal_moves(state))
    with pytest.raises(IllegalMove, match="^you rerolled last turn; you may reroll twice in a row only when"):
        GAME.play(state, "roll e5")


def test_a_player_who_cannot_move_may_reroll_again():
    state = state_with(rerolled="a", a1="ad10", b1="bd1", j10="bd1")
    assert GAME.legal_moves(state) == ["roll a1"]
    assert GAME.play(state, "roll a1").rerolled == (True, False)


def test_the_reroll_restriction_is_per_seat_and_lifts_after_a_move():
    state = state_with(rerolled="b", e5="ao3", **PARKED)
    assert "roll e5" in GAME.legal_moves(state)
    rerolled = GAME.play(state, "roll e5")
    assert rerolled.rerolled == (True, True)
    moved = GAME.play(state, "e5-h8=2")
    assert moved.rerolled == (False, True)


def test_only_your_own_dice_can_be_rerolled():
    state = state_with(e5="ao3", e6="bt2", **PARKED)
    with pytest.raises(IllegalMove, match="^there is no die of yours on e6: the Tetra there is North's$"):
        GAME.play(state, "roll e6")
    with pytest.raises(IllegalMove, match="^there is no die of yours on e7: the square is empty$"):
        GAME.play(state, "roll e7")


# -- winning -----------------------------------------------------------------------------------------


def test_capturing_the_first_enemy_dodeca_does_not_end_the_game():
    state = GAME.play(state_with(a1="ad2", a3="bd5", j10="bd1", j1="ad1"), "a1xa3=3")
    assert GAME.result(state) is None


def test_capturing_the_second_enemy_dodeca_wins_at_once():
    state = GAME.play(state_with(a1="ad2", a3="bd5", j1="ad1", j10="bt1"), "a1xa3=3")
    result = GAME.result(state)
    assert result.winners == [0]
    assert result.reason == "won by capturing both enemy Dodecas"
    assert GAME.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="the game is over"):
        GAME.play(state, "j10-j9=2")


# -- notation ------------------------------------------------------------------------------------


def test_input_is_case_insensitive_and_spaced_freely():
    state = state_with(c2="at3", **PARKED)
    assert GAME.parse_move(state, "  C2 - F2 = 4 ") == "c2-f2=4"
    assert GAME.parse_move(state, "ROLL C2") == "roll c2"


def test_dash_and_x_are_interchangeable_and_canonical_form_follows_the_board():
    state = state_with(c2="at3", f5="bt1", **PARKED)
    assert GAME.parse_move(state, "c2xf2=2") == "c2-f2=2"
    assert GAME.parse_move(state, "c2-f5=2") == "c2xf5=2"


def test_apply_takes_only_canonical_notation():
    state = state_with(c2="at3", **PARKED)
    assert GAME.apply(state, "c2-f2=2").die_at("f2").face == 2
    with pytest.raises(IllegalMove, match="^'C2xf2=2' is not in canonical notation; it would be written c2-f2=2$"):
        GAME.apply(state, "C2xf2=2")


def test_the_move_number_guard_refuses_a_stale_move():
    state = state_with(c2="at3", **PARKED)
    assert GAME.play(state, "c2-f2=2 #1").ply == 1
    with pytest.raises(StaleMove):
        GAME.play(state, "c2-f2=2#2")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("castle", "'castle' is not a Dodeca move: write a move as c2-c6=3, a capture as c2xd3=5, a reroll as roll c2"),
        ("roll", "say which die to reroll, e.g. roll c2"),
        ("k2-k4", "k2 is not on the board: columns run a to j and rows 1 to 10"),
        ("c2-c11", "c11 is not on the board: columns run a to j and rows 1 to 10"),
        ("c2-c2", "c2-c2 does not move the die; to reroll it, write roll c2"),
        ("c2-d4", "d4 is not in a straight line from c2: dice move along rows, columns or diagonals"),
        ("d2-d5", "there is no die of yours on d2: the square is empty"),
        ("c2-f2=x", "the new face must be 2 or 4: a Tetra showing 3 turns one face up or down"),
    ],
)
def test_a_misunderstood_move_is_explained(text, message):
    with pytest.raises(IllegalMove) as refused:
        GAME.play(state_with(c2="at3", **PARKED), text)
    assert str(refused.value) == message
