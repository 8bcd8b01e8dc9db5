"""How fast the bots estimate a position: their playouts per second, beside the engines' own.

    python -m benchmarks.bot_playouts [--seconds T] [--seed S]

The baseline, measured in the same run, is a uniformly random playout through the engine's
public API (`legal_moves`, `play`, `result`) to the end of the game, or 300 plies. The bots'
are what their searches call once per iteration: Cephalopod's playout to the end on a mutable
board (random, and capture-greedy as levels 3 and 4 play it), Cubeo's and Dodeca's truncated
playouts with their evaluation. Then one UCT iteration as a whole, tree and table included.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

import pbm.bots
import pbm.games
from pbm.bots.cephalopod import CephalopodRules
from pbm.bots.cubeo import CubeoRules
from pbm.bots.dodeca import DodecaRules, blind
from pbm.bots.search import Search

CAP = 300


def engine_playout(game: str, rng: random.Random) -> None:
    engine = pbm.games.get(game)
    state = engine.new(seed=bytes(32)) if game == "dodeca" else engine.new()
    for _ in range(CAP):
        if engine.result(state) is not None:
            return
        state = engine.play(state, rng.choice(engine.legal_moves(state)))


def rate(job: Callable[[], object], seconds: float) -> float:
    """How many times a second `job` runs, over about `seconds`."""
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        job()
        done += 1
    return done / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bot_playouts", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement (3)")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    starts = {
        "cephalopod": pbm.games.get("cephalopod").new(),
        "cubeo": pbm.games.get("cubeo").new(),
        "dodeca": blind(pbm.games.get("dodeca").new(seed=bytes(32))),
    }
    bots = {
        "cephalopod": [("random playout", CephalopodRules(greedy=0.0)), ("greedy playout", CephalopodRules())],
        "cubeo": [("6-ply playout + evaluation", CubeoRules())],
        "dodeca": [("10-ply playout + evaluation", DodecaRules())],
    }
    print(f"{'game':<11} {'what':<36} {'per second':>11}")
    for game, start in starts.items():
        baseline = rate(lambda game=game: engine_playout(game, rng), args.seconds)
        print(f"{game:<11} {'engine random playout (baseline)':<36} {baseline:>11.1f}")
        for label, rules in bots[game]:
            speed = rate(lambda rules=rules, start=start: rules.rollout(start, rng), args.seconds)
            print(f"{game:<11} {'bot ' + label:<36} {speed:>11.1f}")
        top = pbm.bots.plan(game, pbm.bots.levels(game)[-1]).rules
        search = Search(top, rng)
        iterations = rate(lambda search=search, start=start: search.run(start, 1), args.seconds)
        print(f"{game:<11} {'UCT iteration (top level, opening)':<36} {iterations:>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
