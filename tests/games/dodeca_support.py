"""Helpers shared by the Dodeca and fair-dice tests: small positions and whole random games."""

from __future__ import annotations

import random

from pbm.games.dodeca import COLUMNS, GAME, State

SEED = bytes(range(32))
"""A fixed dice seed, as the rulings say tests inject one."""

PARKED = {"j1": "ad1", "j10": "bd1"}
"""A Dodeca for each side, out of the way, for positions that are about other dice."""


def position(to_move: str = "a", rerolled: str = "-", **dice: str) -> str:
    """A position string with `dice` placed by square: ``position(c2="at3", j1="ad1")``."""
    rows = []
    for row in range(10, 0, -1):
        rows.append("".join(dice.get(f"{column}{row}", ".") for column in COLUMNS))
    return f"{'/'.join(rows)} {to_move} {rerolled}"


def state_with(to_move: str = "a", rerolled: str = "-", seed: bytes = SEED, **dice: str) -> State:
    """The state of `position(...)`, rolling from `seed`."""
    return GAME.from_position(position(to_move, rerolled, **dice), seed=seed)


def moves_from(state: State, square: str) -> list[str]:
    """The legal moves and captures of the die on `square` (not rerolls)."""
    return [m for m in GAME.legal_moves(state) if m.startswith(square) and m[len(square)] in "-x"]


def targets_from(state: State, square: str) -> set[str]:
    """The squares the die on `square` can move to or capture on."""
    return {m[len(square) + 1 :].split("=")[0] for m in moves_from(state, square)}


def random_game(seed: bytes, rng: random.Random, max_plies: int | None = None) -> tuple[list[str], State]:
    """Play uniformly random legal moves from a new game until it ends (or `max_plies`)."""
    state = GAME.new(seed=seed)
    moves: list[str] = []
    while GAME.result(state) is None and (max_plies is None or state.ply < max_plies):
        move = rng.choice(GAME.legal_moves(state))
        state = GAME.play(state, move)
        moves.append(move)
    return moves, state
