"""Taking a move back: the position before it, counted as a ply, and in Dodeca no roll un-rolled."""

from __future__ import annotations

import random

import pytest

import pbm.games
from pbm.games import UNDO, IllegalMove, fairdice
from pbm.games.dodeca import GAME as DODECA

from .dodeca_support import SEED


@pytest.mark.parametrize("name", ["cephalopod", "cubeo", "dodeca"])
def test_an_undone_move_leaves_the_position_before_it_and_counts_as_a_ply(name):
    game = pbm.games.get(name)
    state = game.new(players=2, seed=SEED)
    chooser = random.Random(1)
    for _ in range(4):
        state = game.play(state, chooser.choice(game.legal_moves(state)))
    after = game.play(state, chooser.choice(game.legal_moves(state)))
    undone = game.undo(state, after)
    assert game.cells(undone) == game.cells(state)  # the board (a position string may also count plies)
    assert undone.to_move == state.to_move
    assert undone.ply == after.ply + 1
    assert game.legal_moves(undone) == game.legal_moves(state)


@pytest.mark.parametrize("name", ["cephalopod", "cubeo", "dodeca"])
def test_a_replay_takes_back_each_undone_move(name):
    game = pbm.games.get(name)
    start = game.new(players=2, seed=SEED)
    first = game.legal_moves(start)[0]
    second = game.legal_moves(game.play(start, first))[-1]
    plays = [(0, first), (1, second), (1, UNDO), (0, UNDO)]
    replayed = game.replay(start, plays)
    assert game.cells(replayed) == game.cells(start)
    assert (replayed.to_move, replayed.ply) == (start.to_move, 4)


def test_a_game_that_cannot_take_moves_back_says_so():
    class NoUndo(type(pbm.games.get("cephalopod"))):  # type: ignore[misc]
        def undo(self, before, after):
            return pbm.games.Game.undo(self, before, after)

    with pytest.raises(IllegalMove, match="cannot take a move back"):
        NoUndo().undo(None, None)


def _reroll_then(state, chooser):
    """A reroll by the player to move, and the state after it."""
    reroll = next(move for move in DODECA.legal_moves(state) if move.startswith("roll"))
    return reroll, DODECA.play(state, reroll)


def test_a_dodeca_reroll_taken_back_stays_rolled_and_the_next_roll_is_the_next_number():
    state = DODECA.new(seed=SEED)
    reroll, after = _reroll_then(state, random.Random(2))
    undone = DODECA.undo(state, after)
    assert undone.rolls == after.rolls and len(after.rolls) == len(state.rolls) + 1
    _, again = _reroll_then(undone, random.Random(2))
    assert again.rolls[-1].index == len(after.rolls)
    assert again.rolls[:-1] == after.rolls


def test_the_dice_record_of_a_game_with_an_undone_reroll_still_verifies():
    state = DODECA.new(seed=SEED)
    reroll, after = _reroll_then(state, random.Random(2))
    undone = DODECA.undo(state, after)
    reroll_again, final = _reroll_then(undone, random.Random(2))
    moves = [reroll, UNDO, reroll_again]
    record = fairdice.make_record(game="dodeca", seed=SEED, moves=moves, rolls=final.rolls)
    verification = fairdice.verify(record)
    assert verification.ok, verification.problems
    assert len(verification.rolls) == len(final.rolls)


def test_a_record_that_undoes_a_move_never_made_is_reported():
    record = fairdice.make_record(game="dodeca", seed=SEED, moves=[UNDO], rolls=DODECA.new(seed=SEED).rolls)
    verification = fairdice.verify(record)
    assert not verification.ok
    assert "there is no move to take back" in verification.problems[0]
