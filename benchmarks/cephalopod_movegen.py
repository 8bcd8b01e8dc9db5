"""How fast the Cephalopod engine lists and plays moves.

    python -m benchmarks.cephalopod_movegen [--games N] [--seed S] [--size N] [--dice N]

Collects every position of seeded random games, then reports legal_moves calls
and moves listed per second over them, apply calls per second, and the time
of perft(5) from the empty board on both perft paths.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from benchmarks.timing import repeat_for
from pbm.games.cephalopod import GAME, State
from pbm.games.perft import perft


def random_game_positions(games: int, seed: int, options: dict[str, int]) -> list[State]:
    chooser = random.Random(seed)
    positions = []
    for _ in range(games):
        state = GAME.new(players=2, options=options)
        while True:
            positions.append(state)
            moves = GAME.legal_moves(state)
            if not moves:
                break
            state = GAME.apply(state, chooser.choice(moves))
    return positions




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cephalopod_movegen", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="random games to draw positions from (100)")
    parser.add_argument("--seed", type=int, default=2006, help="seed of the random games (2006)")
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--dice", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=2.0, help="time to spend on each measurement (2)")
    args = parser.parse_args(argv)
    options = {"size": args.size, "dice": args.dice}

    positions = random_game_positions(args.games, args.seed, options)
    moves = [(state, move) for state in positions for move in GAME.legal_moves(state)]
    print(f"positions: {len(positions):,} from {args.games} random games (seed {args.seed}, options {options})")

    def list_all() -> None:
        for state in positions:
            GAME.legal_moves(state)

    rounds, elapsed = repeat_for(args.seconds, list_all)
    calls = rounds * len(positions)
    print(f"legal_moves: {calls / elapsed:,.0f} calls/s, {rounds * len(moves) / elapsed:,.0f} moves listed/s")

    sample = moves[:: max(1, len(moves) // 20_000)]

    def apply_all() -> None:
        for state, move in sample:
            GAME.apply(state, move)

    rounds, elapsed = repeat_for(args.seconds, apply_all)
    print(f"apply: {rounds * len(sample) / elapsed:,.0f} moves played/s")

    for label, fast in (("fast", True), ("generic", False)):
        start = time.perf_counter()
        nodes = perft(GAME, GAME.new(options=options), 5, fast=fast)
        elapsed = time.perf_counter() - start
        print(f"perft(5) {label}: {nodes:,} nodes in {elapsed:.2f} s ({nodes / elapsed:,.0f} nodes/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
