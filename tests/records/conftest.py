"""Games played through the handlers on a real SQLite database, for their records."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pbm.commands import play
from pbm.crypto.keys import SigningKeys
from pbm.store import boards
from pbm.store.database import Database
from pbm.views import record as document
from pbm.views.live import load
from tests.commands.handlers.conftest import Desk, command, database  # noqa: F401 (the fixture)
from tests.conftest import fresh_database  # noqa: F401

USERIDS = ("alice", "bob", "carol", "dave", "erin", "frank")


@pytest.fixture
def desk(database) -> Desk:  # noqa: F811
    club = Desk(database)
    club.sign_up(*USERIDS)
    return club


@pytest.fixture
def keys(tmp_path: Path) -> SigningKeys:
    return SigningKeys(tmp_path / "signing")


def a_club(backend: str, folder: Path, sqlite_template, postgres_databases) -> Iterator[tuple[Desk, SigningKeys]]:
    """A club with the players signed up, on a database of its own on `backend` in `folder`, and its
    signing keys: for a module's fixture whose games are played once and read by many tests."""
    for url in fresh_database(backend, folder, sqlite_template, postgres_databases):
        opened = Database(url)
        desk = Desk(opened)
        desk.sign_up(*USERIDS)
        yield desk, SigningKeys(folder / "signing")
        opened.dispose()


def options_words(options: dict[str, Any]) -> str:
    return " ".join(f"-{name}" if value is True else f"-{name}={value}" for name, value in options.items())


def play_game(
    desk: Desk,
    game: str,
    players: int,
    options: dict[str, Any],
    *,
    seed: int,
    moves: int = 400,
    resign_at: int | None = None,
) -> int:
    """A game of `players` played through the handlers with random legal moves (the same for the
    same `seed`), to its end or `moves` plies; `resign_at`: the player to move resigns there.
    Returns the board number."""
    userids = USERIDS[:players]
    desk.clock.advance(hours=1)  # a new hour: alice may start as many games as a test needs
    desk.run(play.challenge, f"{game} challenge {options_words(options)} {' '.join(userids)}", sender="alice")
    number = desk.read(lambda s: max(b.board for b in boards_of(s, game)))
    chooser = random.Random(seed)
    for ply in range(moves):
        live = desk.board(game, number)
        if not live.active:
            break
        mover = live.row.seats[live.row.to_move].player.userid
        if ply == resign_at:
            desk.run(play.resign, f"{game} resign {number} {mover} {mover}-pw", sender=mover)
            continue
        legal = live.engine.legal_moves(live.state)
        desk.run(play.move, f"{game} move {number} {mover} {mover}-pw {chooser.choice(legal)}", sender=mover)
    return number


def boards_of(session, game):
    from sqlalchemy import select

    from pbm.store.models import Board

    return session.scalars(select(Board).where(Board.game_type == game)).all()


def record_of(desk: Desk, keys: SigningKeys, game: str, number: int) -> dict[str, Any]:
    """The signed record of board `number`, as the server exports it."""

    def read(session):
        live = load(session, game, number)
        assert live is not None
        record = document.build(
            live.engine,
            live.row,
            live.state,
            boards.moves_of(session, live.row),
            site="games.test",
            generated=desk.clock(),
        )
        return document.sign(record, keys)

    return desk.read(read)
