"""Dodeca for the searches: blind to the game's dice seed, with truncated playouts and a material count.

**Blindness.** A player cannot know the next roll, and neither may a bot: the game's secret seed
decides it. `blind` copies the public position into a state whose seed is a constant known to
everyone and whose roll log is empty, before the search sees anything, and every reroll in the
search is drawn from the bot's own random source (`play`). So the same public position gets the
same move whatever the secret, and nothing the search does can reveal the secret either.

**Evaluation.** Games are long and rerolls are chance, so playouts stop after `DEPTH` plies and
count material: a side that loses both Dodecas loses the game, so a Dodeca weighs most; an Octo
moves and captures diagonally as far as eight, a Tetra at most four. The playout itself prefers
captures of the most valuable die in reach, and never misses the capture that wins.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from random import Random

from pbm.bots.search import Reward, share
from pbm.games.dodeca import CUBE, DODECA, GAME, OCTO, TETRA, Kind, State, _Action, _moves, _own_squares

DEPTH = 10
"""Plies a playout plays before it counts material."""
GREEDY = 0.7
"""How often a playout move is the best capture in reach, when there is one."""
WORTH: dict[Kind, float] = {TETRA: 1.0, CUBE: 2.0, OCTO: 3.0, DODECA: 8.0}
SCALE = 6.0
"""Material lead (in Tetras) at which the evaluation gives the leader about three chances in four."""
BLIND_SEED = bytes(32)
"""The seed of every state a bot searches: public, so it tells nothing of the game's own."""

Move = _Action


def blind(state: State) -> State:
    """The public part of `state`: its board, turn and reroll flags, with no seed and no rolls."""
    return State(state.board, state.to_move, state.ply, state.rerolled, (), BLIND_SEED)


class DodecaRules:
    """The `pbm.bots.search.Rules` of Dodeca, on blind states (see `blind`)."""

    def __init__(self, depth: int = DEPTH, greedy: float = GREEDY) -> None:
        self.depth = depth
        self.greedy = greedy

    def seats(self, position: State) -> int:
        return 2

    def mover(self, position: State) -> int:
        return position.to_move

    def key(self, position: State) -> Hashable:
        return (position.board, position.to_move, position.rerolled)

    def moves(self, position: State) -> Sequence[Move]:
        moves = list(_moves(position))
        if not moves or not position.rerolled[position.to_move]:
            moves.extend(_Action(square) for square in _own_squares(position))
        return moves

    def play(self, position: State, move: Move, rng: Random) -> State:
        board = list(position.board)
        die = board[move.origin]
        assert die is not None
        seat = position.to_move
        if move.target is None:
            board[move.origin] = die._replace(face=rng.randint(1, die.kind.sides))
        else:
            assert move.face is not None
            board[move.origin] = None
            board[move.target] = die._replace(face=move.face)
        rolled = move.target is None
        rerolled = (rolled, position.rerolled[1]) if seat == 0 else (position.rerolled[0], rolled)
        return State(tuple(board), 1 - seat, position.ply + 1, rerolled, (), BLIND_SEED)

    def is_chance(self, move: Move) -> bool:
        return move.target is None

    def outcome(self, position: State) -> Reward | None:
        result = GAME.result(position)  # the rules say when a game is won, not the bot
        return None if result is None else share(2, result.winners)

    def winning_move(self, position: State, moves: Sequence[Move]) -> int | None:
        """A capture of the other side's last Dodeca, if one is in reach."""
        board = position.board
        dodecas = sum(1 for die in board if die is not None and die.kind is DODECA and die.seat != position.to_move)
        if dodecas != 1:
            return None
        for index, move in enumerate(moves):
            if move.capture and move.target is not None:
                taken = board[move.target]
                if taken is not None and taken.kind is DODECA:
                    return index
        return None

    def notation(self, move: Move) -> str:
        return move.notation

    def rollout(self, position: State, rng: Random) -> Reward:
        for _ in range(self.depth):
            position = self.play(position, self.policy(position, rng), rng)
            finished = self.outcome(position)
            if finished is not None:
                return finished
        return evaluate(position)

    def policy(self, position: State, rng: Random) -> Move:
        """One move as a playout would choose it: a capture of the most valuable die in reach
        (always when it takes a Dodeca), else at random."""
        moves = self.moves(position)
        board = position.board
        worth = {move: WORTH[taken.kind] for move in moves if move.capture and (taken := board[move.target or 0])}
        if worth and (max(worth.values()) >= WORTH[DODECA] or rng.random() < self.greedy):
            best = max(worth.values())
            return rng.choice([move for move in moves if worth.get(move) == best])
        return rng.choice(moves)


def evaluate(position: State) -> Reward:
    """How likely each side is to win, from the material on the board."""
    lead = 0.0
    for die in position.board:
        if die is not None:
            lead += WORTH[die.kind] if die.seat == 0 else -WORTH[die.kind]
    first = 1.0 / (1.0 + math.exp(-lead * math.log(3) / SCALE))
    return (first, 1.0 - first)
