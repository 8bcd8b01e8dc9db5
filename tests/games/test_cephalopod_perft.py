"""Perft from the empty 5x5 board, and the perft command line."""

from pbm.cli import main as pbm_main
from pbm.games.cephalopod import GAME
from pbm.games.perft import divide, perft

# The number of five-move sequences from the empty 5x5 board, as published with
# the reference counts for depths 1-4 (see the oracle file).
PERFT_5 = 6_505_928


def test_perft_5_from_the_empty_board():
    assert GAME.perft(GAME.new(), 5) == PERFT_5


def test_generic_perft_5_from_the_empty_board_agrees():
    assert perft(GAME, GAME.new(), 5, fast=False) == PERFT_5


def test_perft_0_counts_the_position_itself():
    assert perft(GAME, GAME.new(), 0) == 1


def test_perft_of_a_finished_game_is_zero():
    finished = GAME.from_position("a6a6a6/b6b6b6/a6b6a6 b")
    assert perft(GAME, finished, 1) == perft(GAME, finished, 1, fast=False) == 0


def test_perft_carries_on_through_a_multi_player_elimination():
    # Paren fills the board at 9-9-7; Square's seven dice leave and play goes on.
    state = GAME.from_position("a6a6a6a6a6/a6a6a6b6b6/b6b6b6b6b6/b6b6c6c6c6/c6c6c6c6. a")
    assert GAME.perft(state, 3) == perft(GAME, state, 3, fast=False) == 1 * 7 * 6


def test_divide_splits_the_count_by_first_move():
    split = divide(GAME, GAME.new(options={"size": 3}), 2)
    assert list(split) == GAME.legal_moves(GAME.new(options={"size": 3}))
    assert sum(split.values()) == perft(GAME, GAME.new(options={"size": 3}), 2)


def test_command_prints_each_depth_with_nodes_per_second(capsys):
    assert pbm_main(["perft", "cephalopod", "--size", "3", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["depth", "nodes", "seconds", "nodes/s"]
    assert [line.split()[:2] for line in lines[1:]] == [["1", "9"], ["2", "72"]]


def test_command_starts_from_a_given_position(capsys):
    assert pbm_main(["perft", "cephalopod", "--position", "a1../.../b1.. a", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["1", "7"]


def test_command_refuses_options_the_game_does_not_have(capsys):
    assert pbm_main(["perft", "cephalopod", "--size", "12", "1"]) == 2
    assert "out of range" in capsys.readouterr().err
