"""The rules engines: pure, one module per game, one API for all of them.

>>> import pbm.games
>>> game = pbm.games.get("cephalopod")
>>> state = game.play(game.new(players=2), "c3")
>>> game.legal_moves(state)[:3]
['a1', 'a2', 'a3']

The registry below is the one place that knows which games exist; the command
layer, the help pages and the web ask it instead of repeating that knowledge.
"""

from __future__ import annotations

import functools
from typing import Any

from pbm.games.base import (
    RESIGN,
    BoardCell,
    Game,
    GameError,
    IllegalMove,
    InvalidOptions,
    InvalidPosition,
    MoveReport,
    Option,
    Result,
    StaleMove,
    check_guard,
    split_guard,
)

__all__ = [
    "RESIGN",
    "BoardCell",
    "Game",
    "GameError",
    "IllegalMove",
    "InvalidOptions",
    "InvalidPosition",
    "MoveReport",
    "Option",
    "Result",
    "StaleMove",
    "UnknownGame",
    "all_games",
    "check_guard",
    "get",
    "names",
    "split_guard",
]


class UnknownGame(GameError):
    """No game of that name is played here."""


@functools.cache
def _registry() -> dict[str, Game[Any]]:
    # Imported here so that importing one engine does not import them all.
    from pbm.games import cephalopod, cubeo, dodeca

    games: tuple[Game[Any], ...] = (cephalopod.GAME, cubeo.GAME, dodeca.GAME)
    return {game.name: game for game in games}


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
        raise UnknownGame(f"there is no game called '{name}' here; the games are: {', '.join(registry)}") from None
