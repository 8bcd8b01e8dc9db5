"""Bots: a legal move for any position of pbm's games, at levels of strength from a beginner's up.

The contract (tools outside the project use it; keep it exactly)::

    >>> import pbm.bots, pbm.games
    >>> pbm.bots.levels("cephalopod")
    [1, 2, 3, 4]
    >>> game = pbm.games.get("cephalopod")
    >>> state = game.new(players=2, options={"size": 3})
    >>> move = pbm.bots.choose("cephalopod", state, 2, seed=7)
    >>> move in game.legal_moves(state), move == pbm.bots.choose("cephalopod", state, 2, seed=7)
    (True, True)

`choose` sees only what a player may see (in Dodeca it never reads the dice seed: see
`pbm.bots.dodeca`), and with a `seed` its choice is reproducible: every level's search is
counted in iterations and positions, never in seconds. `seconds` is only a safety net.

The levels, the same plan for every game, with budgets to suit each game's cost per move:

1. the playout policy alone: a capture or a winning move when one is in reach, else at random;
2. UCT with a small budget (in Cephalopod with plain random playouts);
3. UCT with a larger budget and the game's better playouts;
4. UCT with the largest budget, and in Cephalopod an exact search of the endgame once few
   cells are left empty (alpha-beta with a transposition table, or max^n with more than two
   players in play): a win or tie it proves within its budget of positions is played, a loss or
   an endgame too big for the budget is left to UCT; in every game the MCTS-solver plays out
   any win or loss the tree has proven.

   How far the exact search sees: random 5x5 endgames (``tests/bots/test_exact_endgames.py``)
   reach hundreds of thousands of positions from three empty cells, since captures empty cells
   again; within its 100 000 positions (0.8 s of one core at most) it settled 11 of 15 such
   endgames of three empty cells, 3 of 15 of four and none of 15 of five. The search is tried
   from four empty cells: from five it would spend most of a second a move for nothing.

This package is pure, like the engines it drives: it imports only `pbm.games` and `pbm.facts`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from importlib import resources
from random import Random
from typing import Any

from pbm.bots.cephalopod import CephalopodRules
from pbm.bots.cubeo import CubeoRules
from pbm.bots.dodeca import DodecaRules, blind
from pbm.bots.search import Rules, Search, best_move
from pbm.games import IllegalMove, UnknownGame, get

__all__ = ["Level", "choose", "levels", "plan", "strength"]

SAFETY_SECONDS = 60.0
"""The wall-clock cap of one choice when the caller gives none: far above any level's budget."""


@dataclass(frozen=True)
class Level:
    """How one level of one game chooses a move."""

    iterations: int
    """UCT iterations; 0 plays the playout policy alone."""
    rules: Rules
    """The game's rules for the search, with the playouts this level uses."""
    endgame_empties: int = 0
    """Cephalopod: search exactly once this many cells or fewer are empty (0: never)."""
    endgame_nodes: int = 0
    """The exact search's budget of positions; past it, UCT decides after all."""


_CEPHALOPOD, _CUBEO, _DODECA = CephalopodRules(), CubeoRules(), DodecaRules()

PLANS: dict[str, tuple[Level, ...]] = {
    "cephalopod": (
        Level(0, _CEPHALOPOD),
        Level(100, CephalopodRules(greedy=0.0)),
        Level(400, _CEPHALOPOD),
        Level(1600, _CEPHALOPOD, endgame_empties=4, endgame_nodes=100_000),
    ),
    "cubeo": (
        Level(0, _CUBEO),
        Level(30, _CUBEO),
        Level(120, _CUBEO),
        Level(480, _CUBEO),
    ),
    "dodeca": (
        Level(0, _DODECA),
        Level(40, _DODECA),
        Level(160, _DODECA),
        Level(640, _DODECA),
    ),
}
"""Each game's levels, weakest first (level N is ``PLANS[game][N - 1]``)."""


def _game_name(game: str) -> str:
    name = get(game).name  # refuses a game that is not played here
    if name not in PLANS:
        raise UnknownGame("unknown-game", name=game, games=", ".join(PLANS))
    return name


def levels(game: str) -> list[int]:
    """The levels a bot plays `game` at, weakest first: ``[1, 2, 3, 4]``."""
    return list(range(1, len(PLANS[_game_name(game)]) + 1))


def plan(game: str, level: int) -> Level:
    """How `level` plays `game` (raises `ValueError` for a level the game has not)."""
    plans = PLANS[_game_name(game)]
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(plans):
        raise ValueError(f"{game} bots have levels 1 to {len(plans)}, not {level!r}")
    return plans[level - 1]


def choose(
    game: str, state: Any, level: int, *, seed: int | str | bytes | None = None, seconds: float | None = None
) -> str:
    """A legal move for `state.to_move` at `level`, in the game's own notation (`play` takes it).

    The same `seed` gives the same move for the same public position; without one the bot
    draws its randomness from the operating system. `seconds` caps the time the search may
    take (`SAFETY_SECONDS` by default), a safety net that a level's budget does not reach on
    any machine this server runs on.
    """
    name = _game_name(game)
    chosen = plan(name, level)
    engine = get(name)
    if engine.result(state) is not None:
        raise IllegalMove("game-over")
    if name == "dodeca":
        state = blind(state)  # before anything else looks at it
    rules = chosen.rules
    rng = Random(seed)
    moves = rules.moves(state)
    if len(moves) == 1:
        return rules.notation(moves[0])
    if chosen.iterations == 0:
        return rules.notation(rules.policy(state, rng))
    if (
        chosen.endgame_empties
        and isinstance(rules, CephalopodRules)
        and rules.small_enough(state, chosen.endgame_empties)
    ):
        exact = rules.endgame(state, chosen.endgame_nodes)
        if exact is not None:
            return exact
    deadline = time.monotonic() + (SAFETY_SECONDS if seconds is None else seconds)
    search = Search(rules, rng)
    root, _ = search.run(state, chosen.iterations, deadline)
    return rules.notation(root.moves[best_move(root)])


def strength(game: str) -> dict[str, Any] | None:
    """The ladder's last measure of `game`'s levels (``make ladder``), for help and pages to show:
    per level its Elo (a random mover at 0) with a 95% interval, its lead over the level below,
    games played and seconds per move; ``None`` when the ladder has not rated the game.
    """
    name = _game_name(game)
    measured = json.loads(resources.files(__name__).joinpath("strength.json").read_text(encoding="utf-8"))
    table: dict[str, Any] | None = measured["games"].get(name)
    return table
