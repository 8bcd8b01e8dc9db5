"""What Dodeca tells players: a move, a capture and a reroll in words, the seats, the result.

A position's first reroll is roll number 0 of the seed, so `fairdice.roll` says
beforehand what a reroll will show.
"""

import pytest

from pbm.games import IllegalMove, fairdice
from pbm.games.dodeca import GAME

from .dodeca_support import PARKED, SEED, state_with
from .words import ReportWords, in_words

FIRST_D4 = fairdice.roll(SEED, 0, 4)
"""What a Tetra rerolled in a position made from `SEED` shows."""


def reported(before, move):
    """The report of `move`, given the notation `play_notated` returns, as the executor calls it."""
    notation, after = GAME.play_notated(before, move)
    return in_words(GAME.report(before, notation, after))


def test_a_move_names_the_die_where_it_went_and_its_new_face():
    before = state_with(c2="at3", **PARKED)
    assert reported(before, "c2-c5=2") == ReportWords("played c2-c5=2: the Tetra moved to c5 and shows 2")


def test_a_capture_names_the_die_taken():
    before = state_with(c2="at1", d3="bc5", **PARKED)
    assert reported(before, "c2xd3").text == "played c2xd3=2: the Tetra captured the Cube on d3 and shows 2"


def test_capturing_the_first_enemy_dodeca_says_one_is_left():
    before = state_with(a1="ad2", a3="bd5", j10="bd1", j1="ad1")
    assert reported(before, "a1xa3=3").text == (
        "played a1xa3=3: the Dodeca captured the Dodeca on a3 and shows 3; one enemy Dodeca is left"
    )


def test_capturing_the_second_enemy_dodeca_says_none_is_left():
    before = state_with(a1="ad2", a3="bd5", j1="ad1", j10="bt1")
    assert reported(before, "a1xa3=1").text == (
        "played a1xa3=1: the Dodeca captured the Dodeca on a3 and shows 1; no enemy Dodeca is left"
    )


def test_a_reroll_says_which_die_rolled_what_and_what_it_showed():
    shown = FIRST_D4 % 4 + 1  # any other face
    before = state_with(c2=f"at{shown}", **PARKED)
    assert reported(before, "roll c2").text == f"played roll c2: the Tetra rolled {FIRST_D4} (it showed {shown})"


def test_a_reroll_that_comes_up_the_same_says_so():
    before = state_with(c2=f"at{FIRST_D4}", **PARKED)
    assert reported(before, "roll c2").text == f"played roll c2: the Tetra rolled {FIRST_D4} again"


def test_a_move_that_is_not_canonical_notation_is_refused():
    before = state_with(c2="at1", d3="bc5", **PARKED)
    with pytest.raises(IllegalMove, match="not in canonical notation; it would be written c2xd3=2"):
        GAME.report(before, "c2-d3", GAME.play(before, "c2xd3=2"))


def test_both_seats_stay_in_play_to_the_end():
    won = GAME.play(state_with(a1="ad2", a3="bd5", j1="ad1", j10="bt1"), "a1xa3=3")
    assert GAME.seats_in_play(GAME.new(seed=SEED)) == GAME.seats_in_play(won) == (0, 1)


def test_dodeca_keeps_no_score():
    # Capturing the second enemy Dodeca decides the game, however many dice either side has left.
    assert GAME.tally(GAME.new(seed=SEED)) is None
    assert GAME.tally_unit == ""


def test_the_win_reads_won_by_capturing_both_enemy_dodecas():
    result = GAME.result(GAME.play(state_with(a1="ad2", a3="bd5", j1="ad1", j10="bt1"), "a1xa3=3"))
    assert (result.winners, result.code) == ([0], "dodecas-captured")
    assert result.reason == "won by capturing both enemy Dodecas"
