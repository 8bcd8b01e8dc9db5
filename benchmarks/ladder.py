"""The bots' ladder: a round robin between the levels of each game, fitted to Elo ratings.

    python -m benchmarks.ladder [--games N] [--cubeo-games N] [--dodeca-games N] [--workers W]
                                [--out pbm/bots/strength.json]

Every level of a game meets every other level, and a random mover ("level 0", the anchor at
0 Elo) meets level 1: neighbouring levels play `--games` games each (seats alternate), pairs
further apart `--far` times as many, since they say little the neighbours do not. Cephalopod is
played on its 5x5 board by two players.

Ratings are a Bradley-Terry fit (a draw counts half a win to each side; one drawn game between
every pair that met is added as a prior, so that a level that won every game still has a finite
rating), said in Elo (400 log10 of the strength ratio), with 95% intervals of 1.96 standard
errors from the fit's covariance; the interval of a level's lead over the one below is its own,
not the difference of two intervals. A game still going after `--plies`
plies is scored a draw (long Cubeo and Dodeca games of weak levels wander).

Seconds per move are the CPU time a level took to choose (`time.process_time` of the process
playing the game, which runs nothing else), not the wall clock's: a search is counted in
iterations, so its CPU time is what the level costs on this machine however busy it is, where
the wall clock says how busy the machine was. Level 4's first Cephalopod move took 0.65 s of
CPU with a load under 3 on two cores and 0.64 to 0.71 s with a load of 12, when the wall clock
said 10 s (a wall-clock table was found 1.7 to 2.4 times too quick on a loaded machine). CPU
time is not proof against everything: cores that share caches with busy neighbours run the
same work somewhat slower, so a figure measured on a crowded machine errs on the slow side. The
wall seconds are kept beside them (``wall_seconds_per_move``) to show the difference. The
results go to `--out`, which the help and the web show (committed after a run).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pbm.bots
import pbm.games
from pbm.elo import bradley_terry, bradley_terry_covariance

Z95 = 1.96
RANDOM = 0
"""The level number of the random mover the ladder anchors at 0 Elo."""
OUT = Path(pbm.bots.__file__).parent / "strength.json"


@dataclass(frozen=True)
class Game:
    """One game of the ladder: which levels sit in which seat, and the seeds of everything random."""

    game: str
    seats: tuple[int, int]
    number: int
    max_plies: int


@dataclass(frozen=True)
class Played:
    game: str
    seats: tuple[int, int]
    score: float
    """Seat 0's share of the win: 1, 0.5 (a tie, or the ply cap) or 0."""
    plies: int
    seconds: tuple[float, float]
    """CPU seconds each seat spent choosing its moves."""
    wall: tuple[float, float]
    """The same by the wall clock."""
    moves: tuple[int, int]
    capped: bool
    """Stopped at the ply cap (and scored a draw)."""


def play(task: Game) -> Played:
    """Play one ladder game to its end (or the ply cap)."""
    engine = pbm.games.get(task.game)
    secret = random.Random(f"{task.game} {task.seats} {task.number} dice").randbytes(32)
    state = engine.new(seed=secret) if task.game == "dodeca" else engine.new()
    movers = random.Random(f"{task.game} {task.seats} {task.number} random")
    seconds, wall, moves = [0.0, 0.0], [0.0, 0.0], [0, 0]
    plies = 0
    while engine.result(state) is None and plies < task.max_plies:
        seat = state.to_move
        level = task.seats[seat]
        started, started_wall = time.process_time(), time.perf_counter()
        if level == RANDOM:
            move = movers.choice(engine.legal_moves(state))
        else:
            move = pbm.bots.choose(task.game, state, level, seed=f"{task.number} {plies}")
        seconds[seat] += time.process_time() - started
        wall[seat] += time.perf_counter() - started_wall
        moves[seat] += 1
        state = engine.play(state, move)
        plies += 1
    result = engine.result(state)
    score = 0.5 if result is None else (1.0 / len(result.winners) if 0 in result.winners else 0.0)
    return Played(
        task.game,
        task.seats,
        score,
        plies,
        (seconds[0], seconds[1]),
        (wall[0], wall[1]),
        (moves[0], moves[1]),
        result is None,
    )


def schedule(
    game: str, games: int, max_plies: int, far: float, only: set[tuple[int, int]] | None = None, first: int = 0
) -> list[Game]:
    """Every pair of levels (and random against level 1; or the pairs `only`), seats alternating:
    `games` for neighbours, `far` times as many (rounded down, to an even number) for the others.
    Games are numbered from `first`: the number seeds the game, so a run adding games to stored
    ones starts past them instead of playing them again. The pairs take turns in the list, so a
    run stopped early has played about as many games of each."""
    levels = pbm.bots.levels(game)
    pairs = [(RANDOM, levels[0])] + [(a, b) for i, a in enumerate(levels) for b in levels[i + 1 :]]
    tasks = []
    for low, high in pairs:
        if only is not None and (low, high) not in only:
            continue
        count = games if high - low == 1 else 2 * int(games * far / 2)
        for number in range(first, first + count):
            seats = (low, high) if number % 2 == 0 else (high, low)
            tasks.append(Game(game, seats, number, max_plies))
    return sorted(tasks, key=lambda task: task.number)


CPU = "cpu"
"""The clock of a table's ``seconds_per_move`` (its ``clock``): the CPU time of the choosing.
A table without it was timed by the wall clock, before the ladder counted CPU time."""


def merged(stored: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A game's stored table with the games of a new run added, rated again. A level's seconds
    per move are the two runs' figures weighed by its games in each, when both were counted by
    the same clock; a stored table timed by the wall clock gives way to the new run's CPU time,
    which does not depend on what else the machine ran (the two do not average)."""
    counted = [(table, _games_per_level(table)) for table in (stored, new) if table.get("clock") == new.get("clock")]
    return rate(
        {
            **stored,
            "results": stored["results"] + new["results"],
            "clock": new.get("clock"),
            "seconds_per_move": _weighed(counted, "seconds_per_move"),
            "wall_seconds_per_move": _weighed(counted, "wall_seconds_per_move"),
        }
    )


def _weighed(tables: Sequence[tuple[dict[str, Any], dict[str, int]]], key: str) -> dict[str, float]:
    """Each level's figure under `key` over `tables`, weighed by the level's games in each."""
    sums: dict[str, float] = defaultdict(float)
    weights: dict[str, int] = defaultdict(int)
    for table, games in tables:
        for level, value in table.get(key, {}).items():
            sums[level] += value * games.get(level, 0)
            weights[level] += games.get(level, 0)
    return {level: round(sums[level] / max(1, weights[level]), 4) for level in sorted(sums)}


def _games_per_level(table: dict[str, Any]) -> dict[str, int]:
    count: dict[str, int] = defaultdict(int)
    for a, b, *_ in table["results"]:
        count[str(a)] += 1
        count[str(b)] += 1
    return count


def ladder(played: Sequence[Played]) -> dict[str, object]:
    """The table of one game: its games, each level's seconds per move, and the ratings (`rate`)."""
    seconds: dict[int, float] = defaultdict(float)
    wall: dict[int, float] = defaultdict(float)
    moves: dict[int, int] = defaultdict(int)
    for p in played:
        for seat, level in enumerate(p.seats):
            seconds[level] += p.seconds[seat]
            wall[level] += p.wall[seat]
            moves[level] += p.moves[seat]
    table: dict[str, object] = {
        "results": [[*p.seats, p.score, p.plies, p.capped] for p in played],
        "clock": CPU,
        "seconds_per_move": {str(level): round(seconds[level] / max(1, moves[level]), 4) for level in sorted(moves)},
        "wall_seconds_per_move": {str(level): round(wall[level] / max(1, moves[level]), 4) for level in sorted(moves)},
    }
    return rate(table)


def rate(table: dict[str, Any]) -> dict[str, Any]:
    """`table` with the ratings its "results" give: each level's Elo and lead over the level
    below, with 95% intervals (1.96 standard errors of the Bradley-Terry fit), and each pair's
    score. A run's table can be rated again from its results alone (``--rerate``)."""
    results = [(a, b, score) for a, b, score, _, _ in table["results"]]
    players = sorted({level for a, b, _ in results for level in (a, b)})
    ratings = bradley_terry(results, players)
    covariance = bradley_terry_covariance(results, ratings, players)
    games: dict[int, int] = defaultdict(int)
    for a, b, _ in results:
        games[a] += 1
        games[b] += 1
    rows = []
    for index, player in enumerate(players):
        spread = Z95 * math.sqrt(covariance[player, player])
        row: dict[str, object] = {
            "level": player,
            "elo": round(ratings[player]),
            "elo_95": [round(ratings[player] - spread), round(ratings[player] + spread)],
            "games": games[player],
            "seconds_per_move": table["seconds_per_move"].get(str(player), 0.0),
        }
        if str(player) in table.get("wall_seconds_per_move", {}):
            row["wall_seconds_per_move"] = table["wall_seconds_per_move"][str(player)]
        if index:
            below = players[index - 1]
            lead = ratings[player] - ratings[below]
            variance = covariance[player, player] + covariance[below, below] - 2 * covariance[player, below]
            spread = Z95 * math.sqrt(max(variance, 0.0))
            row["lead"] = round(lead)
            row["lead_95"] = [round(lead - spread), round(lead + spread)]
        rows.append(row)
    pairs: dict[tuple[int, int], list[float]] = defaultdict(list)
    for a, b, score in results:
        pairs[min(a, b), max(a, b)].append(score if a > b else 1 - score)
    plies = [entry[3] for entry in table["results"]]
    return {
        **table,
        "levels": rows,
        "pairs": [
            {"levels": [a, b], "games": len(scores), "score_of_higher": sum(scores)}
            for (a, b), scores in sorted(pairs.items())
        ],
        "games": len(results),
        "mean_plies": round(sum(plies) / max(1, len(plies)), 1),
        "draws": sum(1 for _, _, score in results if score == 0.5),
        "capped": sum(1 for entry in table["results"] if entry[4]),
    }


def show(game: str, table: dict[str, object]) -> str:
    lines = [
        f"{game}: {table['games']} games, {table['mean_plies']} plies a game on average, "
        f"{table['draws']} drawn, {table['capped']} of them stopped at the ply cap"
    ]
    lines.append(
        f"  {'level':>5} {'Elo':>6} {'95%':>13} {'lead':>6} {'95%':>13} {'games':>6} {'CPU s':>8} {'wall s':>8}"
    )
    for row in table["levels"]:  # type: ignore[attr-defined]
        level = "random" if row["level"] == RANDOM else str(row["level"])
        lead = f"{row['lead']:>6} {str(row['lead_95']):>13}" if "lead" in row else " " * 20
        lines.append(
            f"  {level:>5} {row['elo']:>6} {str(row['elo_95']):>13} {lead} {row['games']:>6}"
            f" {row['seconds_per_move']:>8} {row.get('wall_seconds_per_move', '-'):>8}"
        )
    for pair in table["pairs"]:  # type: ignore[attr-defined]
        a, b = pair["levels"]
        lines.append(f"  level {b} against {'random' if a == RANDOM else a}: {pair['score_of_higher']}/{pair['games']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ladder", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="Cephalopod games per neighbouring pair (100)")
    parser.add_argument("--cubeo-games", type=int, default=20, help="Cubeo games per neighbouring pair (20)")
    parser.add_argument("--dodeca-games", type=int, default=20, help="Dodeca games per neighbouring pair (20)")
    parser.add_argument("--plies", type=int, default=300, help="plies after which a game counts as a draw (300)")
    parser.add_argument("--far", type=float, default=0.25, help="games of pairs further apart, per neighbours' (0.25)")
    parser.add_argument("--workers", type=int, default=2, help="games played at once, one process each (2)")
    parser.add_argument("--games-only", nargs="*", default=None, help="only these games")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the results ({OUT})")
    parser.add_argument("--rerate", action="store_true", help="only rate the stored results of --out again")
    parser.add_argument("--pairs", default=None, help="only these pairs of levels, e.g. 0-1,1-2 (0: random)")
    parser.add_argument("--add", action="store_true", help="add the games to those stored in --out")
    args = parser.parse_args(argv)
    if args.rerate:
        report = json.loads(args.out.read_text(encoding="utf-8"))
        for game, table in report["games"].items():
            report["games"][game] = rate(table)
            print(show(game, report["games"][game]))
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        return 0

    counts = {"cephalopod": args.games, "cubeo": args.cubeo_games, "dodeca": args.dodeca_games}
    chosen = args.games_only or list(counts)
    only = None if args.pairs is None else {tuple(map(int, pair.split("-"))) for pair in args.pairs.split(",")}
    report = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {"games": {}}
    first = {game: len(report["games"].get(game, {}).get("results", ())) if args.add else 0 for game in chosen}
    tasks = [
        task
        for game in chosen
        for task in schedule(game, counts[game], args.plies, args.far, only, first[game])  # type: ignore[arg-type]
    ]
    tasks.sort(key=lambda task: task.number - first[task.game])  # the games take turns too, as the pairs do
    stored = json.loads(json.dumps(report))
    started = time.perf_counter()
    played: list[Played] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for done, one in enumerate(pool.map(play, tasks), 1):
            played.append(one)
            print(
                f"  {done}/{len(tasks)} {one.game} levels {one.seats}: {one.score} after {one.plies} plies,"
                f" {sum(one.seconds) / max(1, sum(one.moves)):.2f} s a move",
                file=sys.stderr,
                flush=True,
            )
            if args.add:  # a long run stopped part way keeps the games it finished
                _write(args.out, _report(stored, played, args.plies, add=True))
    elapsed = time.perf_counter() - started
    report = _report(stored, played, args.plies, add=args.add)
    for game in {p.game for p in played}:
        print(show(game, report["games"][game]))
    print(f"{len(played)} games in {elapsed:.0f} s on {args.workers} workers")
    _write(args.out, report)
    print(f"written to {args.out}")
    return 0


def _report(stored: dict[str, Any], played: Sequence[Played], plies: int, *, add: bool) -> dict[str, Any]:
    """The stored report with the tables of the games `played`: replacing those of their games,
    or added to them. A game with nothing played keeps its stored table."""
    report = {**stored, "games": dict(stored["games"])}
    for game in sorted({p.game for p in played}):
        table: dict[str, Any] = ladder([p for p in played if p.game == game])
        if add and game in stored["games"]:
            table = merged(stored["games"][game], table)
        neighbours = [pair["games"] for pair in table["pairs"] if pair["levels"][1] - pair["levels"][0] == 1]
        table.update(games_per_neighbouring_pair=min(neighbours), ply_cap=plies, measured=time.strftime("%Y-%m-%d"))
        report["games"][game] = table
    return report


def _write(out: Path, report: dict[str, Any]) -> None:
    """Write `report` whole or not at all: a run stopped while writing leaves the last report."""
    partial = out.with_suffix(".partial")
    partial.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    partial.replace(out)


if __name__ == "__main__":
    sys.exit(main())
