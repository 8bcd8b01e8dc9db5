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

From the command line (the ``pbm perft`` command runs the same `main`)::

    python -m pbm.games.perft cephalopod [--size N] [--dice N] [--players N] [--position P] DEPTH
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from pbm.games import GameError, get
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pbm perft",
        description="Count the legal move sequences of each length up to DEPTH and time the count.",
    )
    parser.add_argument("game", help="the game, e.g. cephalopod")
    parser.add_argument("depth", type=int, help="the longest sequence to count (0 or more)")
    parser.add_argument("--size", type=int, help="board size option (-size=N)")
    parser.add_argument("--dice", type=int, help="dice option (-dice=N)")
    parser.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    parser.add_argument("--position", help="start from this position instead of the initial one")
    parser.add_argument(
        "--generic",
        action="store_true",
        help="walk legal_moves/apply even where the game has a faster counter",
    )
    parser.add_argument("--divide", action="store_true", help="also print the count at DEPTH for each first move")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.depth < 0:
        parser.error("DEPTH must be 0 or more")
    options = {name: value for name in ("size", "dice") if (value := getattr(args, name)) is not None}
    try:
        game = get(args.game)
        if args.position is not None:
            state = game.from_position(args.position, options)
        else:
            state = game.new(players=args.players, options=options)
    except GameError as error:
        print(f"pbm perft: {error}", file=sys.stderr)
        return 2
    fast = not args.generic
    print(f"{'depth':>5} {'nodes':>14} {'seconds':>10} {'nodes/s':>12}")
    for depth in range(min(args.depth, 1), args.depth + 1):
        start = time.perf_counter()
        nodes = perft(game, state, depth, fast=fast)
        seconds = time.perf_counter() - start
        print(f"{depth:>5} {nodes:>14,} {seconds:>10.3f} {nodes / max(seconds, 1e-9):>12,.0f}")
    if args.divide and args.depth > 0:
        for move, nodes in divide(game, state, args.depth, fast=fast).items():
            print(f"{move} {nodes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
