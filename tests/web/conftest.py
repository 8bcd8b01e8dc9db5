"""The web app on a real database, with games made as mail makes them.

`Club` runs commands through the same verbs the mail processor runs (no
mail, no network), so the pages are tested on the rows real play leaves.
`client` is Starlette's test client on the app `pbm serve` builds.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator

import pytest
from sqlalchemy import select

import pbm.games
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Sender
from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.store import boards, players
from pbm.store.database import Database
from pbm.store.models import Board, utcnow
from pbm.web.app import create_app
from pbm.web.live import GameChanges
from pbm.words.templating import Templates
from tests.e2e.conftest import server, sink  # noqa: F401  (a real server on loopback, as the e2e tests use)

with warnings.catch_warnings():
    # Starlette 1.x prefers a successor of httpx for its test client; httpx is what we have and it works.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


class Club:
    """Players and games on a database, made by running commands."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.passwords = fast_passwords()
        self.limits = Settings().limits

    def run(self, command: lang.Command, userid: str | None = None, comment: str = "") -> list[OutgoingMail]:
        with self.database.transaction() as session:
            seated = [players.find(session, userid)] if userid else []
            address = f"{userid}@example.org" if userid else None
            sender = Sender(address, seated)
            context = Context(session, self.passwords, self.limits, sender, comment=comment, now=utcnow)
            return verbs.run(context, command)

    def signup(self, *userids: str) -> None:
        """Sign up `userids`, each confirming the address, as a reply to the welcome mail would."""
        for userid in userids:
            (welcome,) = self.run(lang.Signup(userid, f"{userid}-pw", (f"{userid}@example.org",)))
            assert welcome.reply_token is not None
            self.run(lang.ConfirmAddress(userid, welcome.reply_token), userid)

    def challenge(self, game: str, *userids: str, options: dict | None = None) -> int:
        self.run(lang.Challenge(game, tuple(userids), options or {}), userids[0])
        with self.database.reading() as session:
            return session.scalar(select(Board.board).where(Board.game_type == game).order_by(Board.board.desc()))

    def move(self, game: str, board: int, userid: str, move: str, comment: str = "") -> None:
        self.run(lang.Move(game, board, userid, f"{userid}-pw", move), userid, comment)

    def resign(self, game: str, board: int, userid: str) -> None:
        self.run(lang.Resign(game, board, userid, f"{userid}-pw"), userid)

    def game(self, game: str, board: int) -> Board:
        with self.database.reading() as session:
            found = boards.find(session, game, board)
            assert found is not None
            return found

    def play(self, game: str, board: int, moves: int, *, seed: int = 1) -> list[str]:
        """Play `moves` random legal moves (fewer if the game ends); returns them."""
        engine = pbm.games.get(game)
        chooser = random.Random(seed)
        played = []
        for _ in range(moves):
            stored = self.game(game, board)
            if stored.status != "active":
                break
            state = engine.load(stored.state, stored.secret)
            move = chooser.choice(engine.legal_moves(state))
            self.move(game, board, stored.seats[stored.to_move].player.userid, move)
            played.append(move)
        return played

    def play_out(self, game: str, board: int, *, seed: int = 1) -> None:
        while self.game(game, board).status == "active":
            self.play(game, board, 50, seed=seed)


@pytest.fixture
def club(database: Database) -> Club:
    return Club(database)


@pytest.fixture
def changes(database: Database) -> GameChanges:
    return GameChanges(database)


@pytest.fixture
def client(database: Database, changes: GameChanges) -> Iterator[TestClient]:
    app = create_app(database, Templates(), changes, address="pbm@games.test")
    with TestClient(app) as client:
        yield client
