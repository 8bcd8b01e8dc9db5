"""``pbm perft``, ``pbm verify-dice`` and ``pbm dice-record``: the engines counted, and their dice checked."""

from __future__ import annotations

import argparse
import sys

from pbm.commandline import UsageError, opening, subcommand
from pbm.config import load_settings


def _perft_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game, e.g. cephalopod")
    parser.add_argument("depth", type=int, help="the longest sequence to count (0 or more)")
    parser.add_argument("--size", type=int, help="board size option (-size=N)")
    parser.add_argument("--dice", type=int, help="dice option (-dice=N)")
    parser.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    parser.add_argument("--position", help="start from this position instead of the initial one")
    parser.add_argument(
        "--generic", action="store_true", help="walk legal_moves/apply even where the game has a faster counter"
    )
    parser.add_argument("--divide", action="store_true", help="also print the count at DEPTH for each first move")


@subcommand(
    "count move sequences of a game (engine validation)",
    description="Count the legal move sequences of each length up to DEPTH and time the count.",
    arguments=_perft_arguments,
)
def perft(args: argparse.Namespace) -> int:
    """``pbm perft``: each depth's count of move sequences, with the time it took."""
    import time

    import pbm.games
    from pbm.games import perft as counting

    if args.depth < 0:
        raise UsageError("perft: DEPTH must be 0 or more")
    options = {name: value for name in ("size", "dice") if (value := getattr(args, name)) is not None}
    try:
        game = pbm.games.get(args.game)
        if args.position is not None:
            state = game.from_position(args.position, options)
        else:
            state = game.new(players=args.players, options=options)
    except pbm.games.GameError as error:
        print(f"pbm perft: {error}", file=sys.stderr)
        return 2
    fast = not args.generic
    print(f"{'depth':>5} {'nodes':>14} {'seconds':>10} {'nodes/s':>12}")
    for depth in range(min(args.depth, 1), args.depth + 1):
        start = time.perf_counter()
        nodes = counting.perft(game, state, depth, fast=fast)
        seconds = time.perf_counter() - start
        print(f"{depth:>5} {nodes:>14,} {seconds:>10.3f} {nodes / max(seconds, 1e-9):>12,.0f}")
    if args.divide and args.depth > 0:
        for move, nodes in counting.divide(game, state, args.depth, fast=fast).items():
            print(f"{move} {nodes}")
    return 0


def _verify_dice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", nargs="?", default="-", help="the game record (JSON); - for standard input")
    parser.add_argument("--list", action="store_true", help="print every recomputed roll")


@subcommand(
    "recompute every dice roll of a finished game from its revealed seed",
    description="Recompute every dice roll of a finished game from its revealed seed.",
    epilog=(
        'RECORD is a JSON file {"game", "players", "options", "commitment", "seed", "moves", "rolls"}'
        " as the server exports it; - or nothing reads standard input."
    ),
    arguments=_verify_dice_arguments,
)
def verify_dice(args: argparse.Namespace) -> int:
    """``pbm verify-dice``: 0 when every roll matches, 1 on a mismatch, 2 on a record that cannot be read."""
    from pbm.games import fairdice
    from pbm.records.reading import Unreadable, read_json
    from pbm.words import Words

    try:
        record = read_json(args.record)
    except Unreadable as unreadable:
        print("verify-dice: " + Words().say(unreadable.fact), file=sys.stderr)
        return 2
    try:
        if not isinstance(record, dict):
            raise fairdice.RecordError("the record must be a JSON object")
        result = fairdice.verify(record)
    except fairdice.RecordError as error:
        print(f"verify-dice: {error}", file=sys.stderr)
        return 2
    if args.list:
        for r in result.rolls:
            print(f"{r.index:5}  d{r.sides:<3} {r.face:3}  {r.what}")
    for problem in result.problems:
        print(problem)
    if result.ok:
        checked = "compared with the published faces" if "rolls" in record else "listed (no published faces given)"
        print(f"OK: the commitment matches the seed; {len(result.rolls)} rolls recomputed and {checked}")
        return 0
    print(f"FAILED: {len(result.problems)} problem(s)")
    return 1


def _dice_record_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game type, e.g. dodeca")
    parser.add_argument("board", type=int, help="the board number")


@subcommand("print the dice record of a finished game (for verify-dice)", arguments=_dice_record_arguments)
def dice_record(args: argparse.Namespace) -> int:
    """``pbm dice-record``: a finished game's dice record, read from the database alone."""
    import json

    import pbm.games
    from pbm.store import boards
    from pbm.views.board import dice_record

    game_type, board = args.game, args.board
    engine = pbm.games.get(game_type)
    database = opening.database(load_settings())
    with opening.disposed(database), database.reading() as session:
        game = boards.find(session, engine.name, board)
        if game is None:
            print(f"pbm: there is no {engine.title} board {board}", file=sys.stderr)
            return 1
        state = engine.load(game.state, game.secret)
        record = dice_record(engine, game, state, boards.moves_of(session, game))
        rolled = game.secret is not None and engine.published_rolls(state) is not None
    if record is None:
        why = "the seed stays secret until the end" if rolled else f"{engine.title} is played without dice"
        print(f"pbm: {engine.title} board {board} has no dice record to show: {why}", file=sys.stderr)
        return 1
    print(json.dumps(record, indent=2))
    return 0
