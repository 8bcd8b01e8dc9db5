"""Golden mails: the board mails of each game, compared exactly with reviewed copies.

For each game, a new-game mail, a mail about a move that carries a comment
and the mail that ends the game; for Cephalopod also the mail of a
three-player game whose move puts a player out, an illegal move's error and a
nag; for Dodeca a reroll. Each in English (``golden/``) and, for
players who chose French, in French (``golden/fr/``), side by side. The games are played by mail
on a fixed clock with fixed dice, so the mails come out the same every time,
and any change to how they look is a visible diff in ``tests/mail/golden/``.

After a deliberate change to the look, write the copies again with
``PBM_UPDATE_GOLDEN=1 make test`` (or pytest on this file) and review the
diff before committing it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from sqlalchemy import select

import pbm.games
from pbm.store.models import Board, MoveRecord
from tests.conftest import ON_SQLITE_ONLY
from tests.support import Clock, body_of, mail

pytestmark = ON_SQLITE_ONLY  # the look of mails, byte for byte

GOLDEN = Path(__file__).parent / "golden"
ADDRESSES = {"alice": "alice@example.org", "bob": "bob@example.net", "carol": "carol@example.com"}


def as_golden(message) -> str:
    return f"Subject: {message['Subject']}\n\n{body_of(message)}"


def check(name: str, message, language: str = "en") -> None:
    path = (GOLDEN if language == "en" else GOLDEN / language) / f"{name}.txt"
    text = as_golden(message)
    if os.environ.get("PBM_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"no golden copy of {name}: run with PBM_UPDATE_GOLDEN=1 to write it, then review it"
    assert text == path.read_text(), f"the {name} mail no longer looks as reviewed (PBM_UPDATE_GOLDEN=1 rewrites it)"


class Table:
    """Players at one game, by mail, on a clock that moves a few hours per move."""

    def __init__(self, room, clock: Clock, game: str, userids: list[str], seed: int) -> None:
        self.room, self.clock, self.game, self.userids = room, clock, game, userids
        self.engine = pbm.games.get(game)
        self.chooser = random.Random(seed)

    def challenge(self, options: str = "", comment: str = "") -> list:
        body = f"{self.game} challenge {options} {' '.join(self.userids)}".replace("  ", " ")
        self.room.send(mail(ADDRESSES[self.userids[0]], body + (f"\n\n{comment}" if comment else "")))
        return self.room.replies()

    def state(self):
        with self.room.database.reading() as session:
            stored = session.scalars(select(Board)).one()
            return self.engine.load(stored.state, stored.secret)

    def next_move(self) -> str:
        """A legal move, captures and merges first, so that a game ends in a few dozen moves."""
        moves = self.engine.legal_moves(self.state())
        sharp = [m for m in moves if "x" in m or "+>" in m or "=" in m and "+" in m.split("=")[1]]
        return self.chooser.choice(sharp or moves)

    def play(self, comment: str = "") -> tuple[str, list]:
        """The player to move plays; returns who moved and the mails it caused."""
        state = self.state()
        mover = self.userids[state.to_move]
        self.clock.advance(hours=7, minutes=13 * state.ply % 60)
        self.last_move = self.next_move()
        line = f"{self.game} move 101 {mover} {mover}-pw {self.last_move}"
        self.room.send(mail(ADDRESSES[mover], line + (f"\n\n{comment}" if comment else "")))
        return mover, self.room.replies()

    def last_move_put_out(self) -> bool:
        """Whether the last move put a player out, as its record says (in no language)."""
        with self.room.database.reading() as session:
            last = session.scalars(select(MoveRecord).order_by(MoveRecord.id.desc()).limit(1)).one()
            return bool((last.report or {}).get("eliminated"))

    def to(self, messages, userid: str):
        (message,) = [m for m in messages if m["To"].addresses[0].addr_spec == ADDRESSES[userid]]
        return message


@pytest.fixture
def table(make_mailroom, monkeypatch):
    monkeypatch.setattr("pbm.games.dodeca.new_seed", lambda: bytes(range(32)))

    def seat(game: str, *userids: str, seed: int = 1, language: str = "en") -> Table:
        clock = Clock()
        room = make_mailroom(clock=clock, public_url="https://games.example.org")  # the link line is reviewed too
        for userid in userids:
            room.send(mail(ADDRESSES[userid], f"signup {userid} {userid}-pw"))
            if language != "en":
                room.send(mail(ADDRESSES[userid], f"language {userid} {userid}-pw {language}"))
        room.replies()
        return Table(room, clock, game, list(userids), seed)

    return seat


LANGUAGES = ["en", "fr"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", ["cephalopod", "cubeo", "dodeca"])
def test_the_mails_of_a_game_from_its_start_to_its_end(table, game, language):
    players = table(game, "alice", "bob", language=language)
    check(f"{game}-new", players.to(players.challenge(comment="Good luck, Bob!"), "bob"), language)
    for _ in range(5):
        players.play()
    mover, mails = players.play(comment="Your move. I did not see that coming.")
    check(f"{game}-move-with-comment", players.to(mails, "bob" if mover == "alice" else "alice"), language)
    rerolled = False
    while players.engine.result(players.state()) is None:
        mover, mails = players.play()
        if game == "dodeca" and not rerolled and players.last_move.startswith("roll"):
            rerolled = True  # the first reroll: what the other player reads of it
            check("dodeca-reroll", players.to(mails, "bob" if mover == "alice" else "alice"), language)
    assert rerolled or game != "dodeca", "this game was chosen for its rerolls"
    check(f"{game}-game-over", players.to(mails, "bob" if mover == "alice" else "alice"), language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_mail_of_a_move_that_puts_a_player_out(table, language):
    players = table("cephalopod", "alice", "bob", "carol", seed=4, language=language)  # a game with an elimination
    players.challenge("-size=3")
    while True:
        mover, mails = players.play()
        if players.last_move_put_out():
            break
        assert players.engine.result(players.state()) is None, "this game was chosen for its elimination"
    check("cephalopod-elimination", players.to(mails, mover), language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_error_mail_of_an_illegal_move_and_a_nag(table, language):
    players = table("cephalopod", "alice", "bob", language=language)
    players.challenge()
    players.play()
    players.room.send(mail(ADDRESSES["bob"], "cephalopod move 101 bob bob-pw f9"))  # no such cell
    (error,) = players.room.replies()
    check("cephalopod-illegal-move", error, language)
    players.clock.advance(days=7, hours=1)
    players.room.server.processor.time_pass.run()
    (nag,) = players.room.replies()
    check("cephalopod-nag", nag, language)
