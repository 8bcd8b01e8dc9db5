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

The bots on the server
----------------------

`pbm.bots.levels("cephalopod")` lists a game's bot levels, weakest first, and
`pbm.bots.choose("cephalopod", state, level, seed=7)` returns a legal move for the
seat to move, in the notation `play` takes. Level 1 plays its playout policy
alone (a capture or a win in reach, else at random); levels 2 to 4 search with
UCT on a transposition table (max^n with three to six players), in budgets counted
in iterations, so a seeded choice is the same on any machine; the top level
proves what it can (MCTS-solver) and in Cephalopod searches the last empty cells
exactly. A Dodeca bot never sees the dice seed: it searches a copy of the public
position and draws rerolls from its own random source. `make ladder` plays the
levels against each other and a random mover and fits Elo ratings with 95%
intervals into `pbm/bots/strength.json`; `make ladder LADDER="--add --games 10"`
adds games to those stored (the pairs take turns, and the file is written after
every game, so a run of hours can be stopped and resumed; the bounded default
adds too). A level's seconds a move there are CPU time, which a busy machine does
not inflate (level 4's first Cephalopod move: 0.65 s of CPU at a load under 3
and of 12 on two cores, when the wall clock said 10 s); the wall clock's are kept
beside them. `python -m benchmarks.uct_match` plays the top level against a
plain UCT with random playouts given the same CPU time a move, and `python -m
benchmarks.served_match` does the same with the bot as a player of a running
club, by mail, printing what a player waits for its moves; `python -m
benchmarks.bot_playouts` measures the playouts beside the engines' own.

What players see of that file is one read model, `pbm.views.ladders.bot_ladders()`:
`help bots` (`aide bots`) mails it, the page `/bots` shows it (linked from every
page's navigation) and `GET /api/bots` gives it as JSON. For each game and level:
the bot (`bot1`, ...), its Elo counted from the random mover at 0 with its 95%
interval, the ladder games it played, its typical seconds a move, and the day of
the measure. Where an interval is wider than 200 Elo, the table says that too few
games were played, and how many; a level whose lead over the one below has an
interval reaching 0 is named as not yet shown stronger.

The bots play as players `bot1` to `bot4` (`pbm.store.bot_players`: signed up
when first named, with no address and a password hash no password matches).
`pbm serve` plays their turns (`pbm.mail.bot_turns`): after each batch of mail
it looks for boards where a bot is to move or has a vote to cast, claims each
for a lease in `bot_turns`, so that several workers on one database think about
a turn once, and thinks in a process of its own at a lower priority, within
`PBM_BOT_SECONDS`, outside any transaction and outside the mail workers: a bot
thinking holds up no mail. The decision goes into the inbox as the bot's reply
to its board at that move (`pbm.mail.pipeline.read.BotDecision`), with the
keys that reply would have, and the mail workers apply it as they apply a
reply: ordered after any mail about the board received before it, refused as
stale (`#N`) if the board moved on, exactly once after a crash, then the
queues, the withdrawn proposals and the mails to the others as for any move.
`python -m benchmarks.bot_turns` (in `make bench`) times a bot's turn by mail
and the mail answered meanwhile: on a 2-core machine, from alice's move
applied to bot1's about 0.1 s (the first after a start about 3 s, the thinking
process starting), to bot4's about 2.3 s in Cephalopod 5x5; a `help` mail
answered in a median 20 ms while bot4 thinks, 11 ms while none does.

The thinking process cannot silently die. A question crosses to it as
`pbm.bots.answers.encoded` bytes (a property test proves every reachable
position of every game, option and player count comes back with the same moves,
result and player to move) and its outcome comes back as plain data, a move or
an error's code and words, never an exception. The server waits on the pipe and
on the process together: a process that dies (SIGKILL, a crash) or overruns its
seconds is replaced at once and the turn thought again with what is left of
them (the new process's start included). Killed mid-turn, bot4's answer in
Cephalopod came 4 to 7 s after the kill on a 2-core machine at a load of 7: the
new process's start, 3 to 5 s there (1.1 s of CPU), and bot4's search. A bot that still
gets no answer plays level 1's move,
and that is an incident (`pbm.health.bot_health`): logged as an error with its game and
board, counted in `pbm_bot_unthought_answers_total`, and shown on `/healthz` and
`/bots` until a bot searches again.
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
