"""How fast the Cubeo engine works out legal moves.

    python -m benchmarks.cubeo_movegen [--games N] [--seed S] [--seconds T]

Collects every position of seeded random games (capped at 60 plies, like the
reference games) for a few option sets, then reports legal-move generation in
positions per second and moves listed per second. `Cubeo.legal_moves` keeps
its answer on the state, so the timing calls the uncached generator.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from benchmarks.timing import repeat_for
from pbm.games.cubeo import GAME, State, generate_legal_moves

OPTION_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "-strict": {"strict": True},
    "-dice=12": {"dice": 12},
    "-remove -samevalue": {"remove": True, "samevalue": True},
}
PLY_CAP = 60


def random_game_positions(games: int, seed: int, options: dict[str, Any]) -> list[State]:
    chooser = random.Random(seed)
    positions = []
    for _ in range(games):
        state = GAME.new(options=options)
        for _ in range(PLY_CAP):
            moves = GAME.legal_moves(state)
            if not moves:
                break
            positions.append(state)
            state = GAME.apply(state, chooser.choice(moves))
    return positions




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cubeo_movegen", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50, help="random games per option set (50)")
    parser.add_argument("--seed", type=int, default=2016, help="seed of the random games (2016)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time to spend on each measurement (2)")
    args = parser.parse_args(argv)

    print(f"{'options':<20} {'positions':>9} {'moves/pos':>9} {'positions/s':>12} {'moves/s':>10}")
    for label, options in OPTION_SETS.items():
        positions = random_game_positions(args.games, args.seed, options)
        listed = sum(len(GAME.legal_moves(state)) for state in positions)

        def generate_all(positions: list[State] = positions) -> None:
            for state in positions:
                generate_legal_moves(state)

        rounds, elapsed = repeat_for(args.seconds, generate_all)
        per_second = rounds * len(positions) / elapsed
        print(
            f"{label:<20} {len(positions):>9,} {listed / len(positions):>9.1f}"
            f" {per_second:>12,.0f} {rounds * listed / elapsed:>10,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
