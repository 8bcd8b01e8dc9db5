"""The rules engines: pure, one module per game, one API for all of them.

>>> import pbm.games
>>> game = pbm.games.get("cephalopod")
>>> state = game.play(game.new(players=2), "c3")
>>> game.legal_moves(state)[:3]
['a1', 'a2', 'a3']

The registry below is the one place that knows which games exist; the command
layer, the help pages and the web ask it instead of repeating that knowledge.
It is filled from the ``pbm.games`` entry-point group, where pbm registers its
own three games (``pyproject.toml``), so a club adds a game by installing a
package that registers one::

    [project.entry-points."pbm.games"]
    stones = "stones_game:GAME"

A new game
----------

A game is one module with a `Game` subclass (`pbm.games.base`: its name and title, its seats,
its options, and the pure functions of its rules: a new state, the legal moves, playing one,
the result, the board drawn in ASCII, its help text) and one entry point naming its instance.
``tests/plugins/stones.py`` is one, in under a hundred lines, installed by the tests as a club
would install a package. Everything else reads the registry: the command language knows the
game's name (``stones challenge alice bob``), the help lists it, ``help stones`` mails its
rules, the web gives it a page, its boards and standings. An engine decides facts (what a move
did, why it is illegal) with codes of its own catalogue (`pbm.games.messages`); its French rules are a file of
``pbm/locale/fr/rules/``, its options' French in ``pbm/locale/fr/options.txt``.
``pbm perft GAME DEPTH`` counts its move sequences, to check an engine against another.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any

from pbm.games.base import (
    DIE,
    FORFEIT,
    LEAVING,
    MARKER,
    RESIGN,
    STONE,
    UNDO,
    BoardCell,
    Game,
    GameError,
    IllegalMove,
    InvalidOptions,
    InvalidPosition,
    MoveExample,
    MoveReport,
    Option,
    Result,
    StaleMove,
    check_guard,
    split_guard,
)

__all__ = [
    "BadGame",
    "DIE",
    "FORFEIT",
    "LEAVING",
    "MARKER",
    "RESIGN",
    "STONE",
    "UNDO",
    "BoardCell",
    "Game",
    "GameError",
    "IllegalMove",
    "InvalidOptions",
    "InvalidPosition",
    "MoveExample",
    "MoveReport",
    "Option",
    "Result",
    "StaleMove",
    "UnknownGame",
    "all_games",
    "check_guard",
    "get",
    "names",
    "refresh",
    "split_guard",
]


class UnknownGame(GameError):
    """No game of that name is played here."""


ENTRY_POINTS = "pbm.games"
BUILT_IN = ("cephalopod", "cubeo", "dodeca")
"""pbm's own games, listed first and in this order; installed ones follow by name."""


class BadGame(Exception):
    """An installed game package registers something that is not a game, or a name taken twice."""


@functools.cache
def _registry() -> dict[str, Game[Any]]:
    found: dict[str, Game[Any]] = {}
    for entry in entry_points(group=ENTRY_POINTS):
        game = entry.load()
        if not isinstance(game, Game) or game.name != entry.name:
            raise BadGame(f"the {ENTRY_POINTS} entry point {entry.name!r} ({entry.value}) is no game by that name")
        if entry.name in found and found[entry.name] is not game:
            raise BadGame(f"two packages register a game called {entry.name!r}")
        found[entry.name] = game
    order = sorted(found, key=lambda name: (BUILT_IN.index(name) if name in BUILT_IN else len(BUILT_IN), name))
    return {name: found[name] for name in order}


def refresh() -> None:
    """Look for installed games again (after a game package was installed while running)."""
    _registry.cache_clear()


def all_games() -> list[Game[Any]]:
    """Every game this server plays, in the order help pages list them."""
    return list(_registry().values())


def names() -> list[str]:
    return list(_registry())


def get(name: str) -> Game[Any]:
    """The engine for `name` (case-insensitive); raises `UnknownGame`."""
    registry = _registry()
    try:
        return registry[name.lower()]
    except KeyError:
        raise UnknownGame("unknown-game", name=name, games=", ".join(registry)) from None
