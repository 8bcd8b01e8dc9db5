"""How fast the Dodeca engine lists and plays moves: ``python -m benchmarks.dodeca_movegen [--games N]``.

Plays seeded random games and reports legal_moves calls per second, plays per
second (each play parses, checks and applies one move) and the time of a whole
game. Numbers only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time

from pbm.games.dodeca import GAME, State


def _random_game(number: int) -> list[State]:
    rng = random.Random(number)
    state = GAME.new(seed=hashlib.sha256(f"bench {number}".encode()).digest())
    states = [state]
    while GAME.result(state) is None:
        state = GAME.play(state, rng.choice(GAME.legal_moves(state)))
        states.append(state)
    return states


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Dodeca move generation speed")
    parser.add_argument("--games", type=int, default=20)
    games = parser.parse_args(argv).games
    started = time.perf_counter()
    positions = [state for number in range(games) for state in _random_game(number)]
    whole_games = time.perf_counter() - started

    started = time.perf_counter()
    moves = [GAME.legal_moves(state) for state in positions]
    listing = time.perf_counter() - started

    pairs = [(state, move) for state, listed in zip(positions, moves) for move in listed[:3]]
    started = time.perf_counter()
    for state, move in pairs:
        GAME.play(state, move)
    playing = time.perf_counter() - started

    print(f"{games} random games, {len(positions)} positions, {len(positions) / games:.0f} plies a game")
    print(f"legal_moves: {len(positions) / listing:,.0f} calls/s ({sum(map(len, moves)) / len(moves):.1f} moves each)")
    print(f"play:        {len(pairs) / playing:,.0f} moves/s")
    print(f"whole game:  {whole_games / games * 1000:.0f} ms (list + pick + play every ply)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
