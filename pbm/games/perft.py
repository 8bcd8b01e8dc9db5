"""Perft: count every sequence of legal moves of a given length from a position.

The counts are known for some games (Cephalopod from the empty 5x5 board: 25,
600, 13 800, 304 840, 6 505 928), so perft checks a move generator against
another implementation, and timing it measures the generator's speed.

>>> from pbm.games import get
>>> game = get("cephalopod")
>>> perft(game, game.new(), 2)
600
>>> perft(game, game.new(), 2, fast=False)
600

From the command line: ``pbm perft cephalopod [--size N] [--dice N] [--players N] [--position P] DEPTH``.
"""

from __future__ import annotations

from typing import Any

from pbm.games.base import Game


def perft(game: Game[Any], state: Any, depth: int, *, fast: bool = True) -> int:
    """The number of legal move sequences of length `depth` from `state`.

    A game may offer its own, faster counter as a method ``perft(state, depth)``;
    it is used unless `fast` is false. The generic walk lists the moves of the
    last ply without playing them ("bulk counting").
    """
    if fast:
        own = getattr(game, "perft", None)
        if callable(own):
            return int(own(state, depth))
    return _walk(game, state, depth)


def _walk(game: Game[Any], state: Any, depth: int) -> int:
    if depth == 0:
        return 1
    moves = game.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(_walk(game, game.apply(state, move), depth - 1) for move in moves)


def divide(game: Game[Any], state: Any, depth: int, *, fast: bool = True) -> dict[str, int]:
    """Perft split by first move: where two generators disagree, this says where."""
    return {move: perft(game, game.apply(state, move), depth - 1, fast=fast) for move in game.legal_moves(state)}
