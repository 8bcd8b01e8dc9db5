"""The worked example each Cubeo board mail shows: a legal turn of the position, taken apart."""

from hypothesis import given

from pbm.games import cubeo
from tests.games.test_cubeo_properties import SETTINGS, games

GAME = cubeo.GAME
KINDS = {"move": "->", "merge": "+>"}


def test_the_example_of_the_start_is_a_move_with_its_parts():
    example = GAME.example_move(GAME.new())
    assert example is not None
    assert (example.notation, example.kind) == ("1,0,0->1,-1", "move")
    assert (example.pips, example.source, example.target, example.shortest) == (1, "0,0", "1,-1", "0,0->1,-1")


def test_a_merge_example_says_what_it_makes():
    state = GAME.from_position("1:3@0,0 1:2@0,1 1:1@1,1 2:1@1,0 / 1 / 6")
    merges = [GAME.taken_apart(state, move) for move in GAME.legal_moves(state) if "+>" in move]
    assert merges[0].notation == "1,1,1+>0,1"
    assert (merges[0].source, merges[0].target, merges[0].pips, merges[0].makes) == ("1,1", "0,1", 1, 3)
    assert merges[0].shortest == "1,1+>0,1"


def test_no_example_once_the_game_is_over():
    assert GAME.example_move(GAME.from_position("1:7@0,0 1:1@0,1 2:1@1,0 / 2 / 20")) is None


@SETTINGS
@given(games())
def test_every_example_is_a_legal_turn_whose_parts_write_it(states):
    for state in states:
        example = GAME.example_move(state)
        legal = GAME.legal_moves(state)
        if not legal:
            assert example is None
            continue
        assert example is not None and example.notation in legal
        assert GAME.example_move(GAME.from_position(GAME.to_position(state))) == example, "the same every time"
        if any("->" in move for move in legal):
            assert example.kind == "move", "a move is shown when there is one"
        if example.kind in KINDS:
            assert example.notation == f"{example.pips},{example.source}{KINDS[example.kind]}{example.target}"
            assert GAME.parse_move(state, example.shortest) == example.notation
        if example.kind == "merge":
            board = {cubeo.cell_text(die.cell): die.pips for die in state.dice}
            assert example.makes == example.pips + board[example.target]
        if example.kind == "add":
            assert example.notation == f"+{example.target}"
