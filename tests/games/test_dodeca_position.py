"""Dodeca's position notation, board drawing, public notes, storage, and keeping the seed secret."""

from __future__ import annotations

import json
import random

import pytest

from pbm.games import InvalidPosition, dodeca, fairdice
from pbm.games.dodeca import GAME, OPENING_ROLLS

from .dodeca_support import PARKED, SEED, position, random_game, state_with

# -- position notation -----------------------------------------------------------------------


def test_position_lists_rows_from_ten_down_with_seat_type_and_face():
    rows = ["bt3.........", "..........", "..........", "........ad10."] + [".........."] * 6
    state = GAME.from_position("/".join(rows) + " b a")
    north_tetra, south_dodeca = state.die_at("a10"), state.die_at("i7")
    assert (north_tetra.seat, north_tetra.kind.name, north_tetra.face) == (1, "Tetra", 3)
    assert (south_dodeca.seat, south_dodeca.kind.name, south_dodeca.face) == (0, "Dodeca", 10)
    assert (state.to_move, state.rerolled, state.ply) == (1, (True, False), 0)


def test_position_of_a_new_game_round_trips():
    state = GAME.new(seed=SEED)
    again = GAME.from_position(GAME.to_position(state), seed=SEED)
    assert GAME.to_position(again) == GAME.to_position(state)
    assert (again.board, again.to_move, again.rerolled) == (state.board, state.to_move, state.rerolled)


@pytest.mark.parametrize(
    ("flags", "rerolled"), [("-", (False, False)), ("a", (True, False)), ("b", (False, True)), ("ab", (True, True))]
)
def test_the_rerolled_field_lists_the_seats_whose_last_turn_was_a_reroll(flags, rerolled):
    state = state_with(rerolled=flags, **PARKED)
    assert state.rerolled == rerolled
    assert GAME.to_position(state).endswith(f" a {flags}")


def test_a_position_rolls_from_the_seed_it_is_given_starting_at_roll_0():
    other = bytes(reversed(SEED))
    state = GAME.from_position(position(e5="ad4", j10="bd1"), seed=other)
    assert state.next_roll == 0
    assert GAME.play(state, "roll e5").die_at("e5").face == fairdice.roll(other, 0, 10)


def test_a_position_without_a_seed_gets_a_fresh_one():
    text = position(**PARKED)
    assert GAME.secret_of(GAME.from_position(text)) != GAME.secret_of(GAME.from_position(text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (position(**PARKED) + " extra", "is not a Dodeca position: write '<rows> <to-move> <rerolled>'"),
        ("/".join(["......ad1..."] * 9) + " a -", "has 10 rows separated by /, not 9"),
        (position(**PARKED).replace("/", "/.", 1), "row 9 '...........' has 11 cells, not 10"),
        (position(a5="at9", **PARKED), "at9 on a5: a Tetra shows 1 to 4"),
        (position(a5="ax1", **PARKED), "row 5 'ax1.........' has a cell that is neither . nor seat+type+face"),
        (position(a5="ad1", b5="ad1", **PARKED), "South has 3 Dodecas, but a set holds only 2"),
        (position(a5="bt1"), "neither side has a Dodeca"),
        (position(to_move="c", **PARKED), "the side to move is a (South) or b (North), not 'c'"),
        (position(rerolled="aa", **PARKED), "listed as a, b, ab or -, not 'aa'"),
    ],
)
def test_a_malformed_position_is_refused_with_the_reason(text, message):
    with pytest.raises(InvalidPosition) as refused:
        GAME.from_position(text, seed=SEED)
    assert message in str(refused.value)


def test_a_position_where_one_side_lost_its_dodecas_is_a_finished_game():
    state = state_with(a1="ad1", h8="bt1")
    assert GAME.result(state).winners == [0]


# -- the board -------------------------------------------------------------------------------------


def test_the_board_is_labelled_on_all_four_sides_with_row_ten_first():
    lines = GAME.render(state_with(**PARKED)).splitlines()
    letters = "     a    b    c    d    e    f    g    h    i    j"
    assert lines[0] == letters and lines[11] == letters
    assert [line[:2] for line in lines[1:11]] == [f"{n:>2}" for n in range(10, 0, -1)]
    assert [line.split()[-1] for line in lines[1:11]] == [str(n) for n in range(10, 0, -1)]


def test_each_cell_is_five_characters_with_south_in_parentheses_and_north_in_angles():
    assert GAME.render(state_with(a5="at3", b5="bc6", c5="ad9", d5="bd9", j1="ad1", j10="bd1")) == (
        "     a    b    c    d    e    f    g    h    i    j\n"
        "10  ...  ...  ...  ...  ...  ...  ...  ...  ... <D1>  10\n"
        " 9  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   9\n"
        " 8  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   8\n"
        " 7  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   7\n"
        " 6  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   6\n"
        " 5 (T3) <C6> (D9) <D9>  ...  ...  ...  ...  ...  ...   5\n"
        " 4  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   4\n"
        " 3  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   3\n"
        " 2  ...  ...  ...  ...  ...  ...  ...  ...  ...  ...   2\n"
        " 1  ...  ...  ...  ...  ...  ...  ...  ...  ... (D1)   1\n"
        "     a    b    c    d    e    f    g    h    i    j\n"
        "T = Tetra d4, C = Cube d6, O = Octo d8, D = Dodeca d10"
    )


def test_a_board_where_a_dodeca_shows_ten_gives_every_cell_six_characters():
    assert GAME.render(state_with(a5="at3", b5="bc6", c5="ad10", d5="bd10", j1="ad1", j10="bd1")) == (
        "     a     b     c     d     e     f     g     h     i     j\n"
        "10  ...   ...   ...   ...   ...   ...   ...   ...   ...  <D1>   10\n"
        " 9  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    9\n"
        " 8  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    8\n"
        " 7  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    7\n"
        " 6  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    6\n"
        " 5 (T3)  <C6>  (D10) <D10>  ...   ...   ...   ...   ...   ...    5\n"
        " 4  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    4\n"
        " 3  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    3\n"
        " 2  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    2\n"
        " 1  ...   ...   ...   ...   ...   ...   ...   ...   ...  (D1)    1\n"
        "     a     b     c     d     e     f     g     h     i     j\n"
        "T = Tetra d4, C = Cube d6, O = Octo d8, D = Dodeca d10"
    )


def test_a_ten_never_touches_its_neighbour_and_every_column_stays_in_line():
    lines = GAME.render(state_with(a5="ad10", b5="bd10", c5="at3", i5="bd10", j5="ad10")).splitlines()
    row5 = lines[6]
    assert row5.split() == ["5", "(D10)", "<D10>", "(T3)", *["..."] * 5, "<D10>", "(D10)", "5"]
    assert len({len(line) for line in lines[1:11]}) == 1
    for letter in "abcdefghij":
        # Under each column letter every row has its cell's middle character, never a gap.
        centre = lines[0].index(letter)
        assert all(line[centre] != " " for line in lines[1:11]), f"column {letter} drifts"


def test_the_key_is_printed_below_the_board():
    key = GAME.render(state_with(**PARKED)).splitlines()[-1]
    assert key == "T = Tetra d4, C = Cube d6, O = Octo d8, D = Dodeca d10"


def test_every_viewer_sees_the_same_board():
    state = GAME.new(seed=SEED)
    assert GAME.render(state, viewer=0) == GAME.render(state, viewer=1) == GAME.render(state)


# -- public notes and the secret seed ----------------------------------------------------------------


def test_the_first_board_carries_the_commitment_and_the_roll_off():
    state = GAME.new(seed=SEED)
    rolloff = [r.face for r in state.rolls[40:]]
    notes = GAME.public_notes(state)
    assert notes[0] == f"Dice commitment: SHA-256 of the secret dice seed is {fairdice.commitment(SEED)}"
    assert notes[1].startswith(f"Who starts (a d10 each): South {rolloff[0]}, North {rolloff[1]}")
    assert notes[1].endswith(f"{GAME.seat_names[state.to_move]} moves first.")


def test_later_boards_carry_the_commitment_and_a_reroll_reminder_when_it_applies():
    state = GAME.play(state_with(rerolled="b", e5="ao3", **PARKED), "e5-h8=2")
    assert GAME.public_notes(state) == [
        f"Dice commitment: SHA-256 of the secret dice seed is {fairdice.commitment(SEED)}",
        "North rerolled last turn, so may reroll now only if no die of theirs can move.",
    ]


def test_the_seed_is_revealed_once_the_game_is_over():
    moves, state = random_game(SEED, random.Random(1))
    notes = GAME.public_notes(state)
    assert notes[1] == f"Dice seed (revealed): {SEED.hex()}"
    assert "pbm verify-dice" in notes[2]


def _shown(state) -> str:
    return "\n".join(
        [
            GAME.render(state),
            GAME.to_position(state),
            json.dumps(GAME.dump(state)),
            *GAME.public_notes(state),
            repr(state),
            str(state),
        ]
    )


def test_nothing_shows_the_seed_before_the_game_ends():
    moves, finished = random_game(SEED, random.Random(1))
    states = [GAME.new(seed=SEED)]
    for move in moves[:-1]:
        states.append(GAME.play(states[-1], move))
    for state in states[:: max(1, len(states) // 25)] + [states[-1]]:
        shown = _shown(state)
        assert SEED.hex() not in shown
        assert repr(SEED) not in shown
    assert SEED.hex() in _shown(finished)


def test_secret_of_is_the_seed():
    assert GAME.secret_of(GAME.new(seed=SEED)) == SEED


# -- storage ------------------------------------------------------------------------------------------


def test_dump_and_load_round_trip_through_json():
    moves, state = random_game(SEED, random.Random(2), max_plies=60)
    data = json.loads(json.dumps(GAME.dump(state)))
    assert GAME.load(data, GAME.secret_of(state)) == state


def test_load_needs_the_seed_back():
    with pytest.raises(ValueError, match="without its dice seed"):
        GAME.load(GAME.dump(GAME.new(seed=SEED)))


def test_load_refuses_a_seed_that_does_not_match_the_stored_rolls():
    with pytest.raises(ValueError, match="does not match the seed"):
        GAME.load(GAME.dump(GAME.new(seed=SEED)), bytes(32))


def test_resuming_a_stored_game_refuses_a_wrong_seed_too():
    _, state = random_game(SEED, random.Random(4), max_plies=40)
    with pytest.raises(ValueError, match="does not match the seed"):
        GAME.resume(GAME.dump(state), bytes(32))
    with pytest.raises(ValueError, match="without its dice seed"):
        GAME.resume(GAME.dump(state))


def test_load_checks_every_roll_and_resume_the_same_few_however_long_the_game(monkeypatch):
    # The store resumes its own games at every move: its check must not grow with the game.
    _, state = random_game(SEED, random.Random(5), max_plies=400)
    assert len(state.rolls) > OPENING_ROLLS + 20
    checked = []
    real_roll = dodeca.roll
    monkeypatch.setattr(
        dodeca, "roll", lambda seed, index, sides: checked.append(index) or real_roll(seed, index, sides)
    )
    data = GAME.dump(state)

    assert GAME.load(data, SEED) == state
    assert checked == list(range(len(state.rolls)))
    checked.clear()
    assert GAME.resume(data, SEED) == state
    assert checked == [*range(OPENING_ROLLS), len(state.rolls) - 1]


def test_a_stored_roll_that_was_changed_is_refused_by_load():
    _, state = random_game(SEED, random.Random(5), max_plies=200)
    data = json.loads(json.dumps(GAME.dump(state)))
    middle = data["rolls"][len(data["rolls"]) // 2]
    middle["face"] = middle["face"] % middle["sides"] + 1
    with pytest.raises(ValueError, match="does not match the seed"):
        GAME.load(data, SEED)
