"""Replay the reference games recorded from an independent implementation.

At every ply the set of legal moves must be the recorded one (capture sets
compared as sets: the recording lists captured cells in no particular order),
the recorded move must be accepted as written, and the final score must match.
"""

import json
from pathlib import Path

import pytest

from pbm.games.cephalopod import GAME
from pbm.games.perft import perft

ORACLE = "ceph_reference_games.json"
RECORDED = json.loads((Path(__file__).parents[1] / "data" / "oracles" / ORACLE).read_text())
VARIANT_OPTIONS = {"size-3": {"size": 3}, "dodeca": {"dice": 12}}


def as_sets(moves):
    """{(cell, frozenset(captured cells))} from moves in cell=a+b notation."""
    normalised = set()
    for move in moves:
        cell, _, captured = move.partition("=")
        normalised.add((cell, frozenset(captured.split("+")) if captured else frozenset()))
    return normalised


def options_for(variants):
    options = {}
    for variant in variants:
        options.update(VARIANT_OPTIONS[variant])
    return options


def game_id(recorded):
    return "+".join(recorded["variants"]) or "standard"


recorded_games = pytest.mark.parametrize("recorded", RECORDED["games"], ids=game_id)


@recorded_games
def test_every_ply_offers_exactly_the_recorded_legal_moves(recorded):
    state = GAME.new(players=2, options=options_for(recorded["variants"]))
    for ply, step in enumerate(recorded["plies"]):
        legal = GAME.legal_moves(state)
        assert state.to_move == step["player"] - 1, f"ply {ply}"
        assert len(legal) == len(set(legal)), f"ply {ply}: a move is listed twice"
        assert as_sets(legal) == as_sets(step["legal"]), f"ply {ply} of {GAME.to_position(state)}"
        state = GAME.play(state, step["move"])


@recorded_games
def test_recorded_game_ends_with_the_recorded_winner_and_scores(recorded):
    state = GAME.new(players=2, options=options_for(recorded["variants"]))
    for step in recorded["plies"]:
        state = GAME.play(state, step["move"])
    result = GAME.result(state)
    assert result is not None
    assert result.winners == [player - 1 for player in recorded["winner"]]
    held = state.cells_held()
    assert [held[seat] for seat in range(2)] == recorded["scores"]


@recorded_games
def test_game_is_not_over_before_the_last_recorded_move(recorded):
    state = GAME.new(players=2, options=options_for(recorded["variants"]))
    for step in recorded["plies"]:
        assert GAME.result(state) is None
        state = GAME.play(state, step["move"])


def test_perft_from_the_empty_board_matches_the_recorded_counts():
    expected = RECORDED["perft5x5_plies_1_to_4"]
    start = GAME.new()
    assert [GAME.perft(start, depth) for depth in range(1, len(expected) + 1)] == expected


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_generic_perft_matches_the_recorded_counts(depth):
    expected = RECORDED["perft5x5_plies_1_to_4"][depth - 1]
    assert perft(GAME, GAME.new(), depth, fast=False) == expected
