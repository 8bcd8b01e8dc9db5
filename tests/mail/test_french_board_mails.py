"""A player who chose French reads every board mail of a game in French, from the challenge to
the end: no English word left outside the notation, the commands and the names; and in a game of
players of both languages each reads their own.

The games are played by mail as in the golden mails (`test_golden_mails`), with the French
catalogues built as the lead builds them: the templates' and catalogues' messages, with every
translator's file of ``pbm/locale/fr/incoming/`` merged in.
"""

from __future__ import annotations

import random
import re
import shutil

import pytest
from sqlalchemy import select

import pbm.games
from pbm.i18n import languages
from pbm.store.models import Board
from pbm.words import translating
from tests.conftest import ON_SQLITE_ONLY
from tests.support import Clock, body_of, mail

pytestmark = ON_SQLITE_ONLY  # the French of board mails

ADDRESSES = {
    "alice": "alice@example.org",
    "bob": "bob@example.net",
    "carol": "carol@example.com",
    "dave": "dave@example.com",
}

ENGLISH = frozenset(
    """
    the and is it its their your you of to for with by on at in from this that who which what when
    game games board move moves moved turn played won tied tie each new challenged writes summary
    reply send mail first line time reminders after without forfeit forfeits forfeited clock clocks
    left yet no nothing who starts commitment seed check every roll rolled again shows captured
    capturing adding merging moving taking holding cells cell dice die hand out last warning draw
    undo resigned rating went stays provisional started ended used earlier whole list still vote
    proposes proposal accepts rejects away until stands runs back player players seat seats
    thinking most least fewest filling filled leaving opponent legal enemy both
    """.split()
)
"""Common English words of the game mails: none may be left in a French one (outside notation)."""

NOT_PROSE = [
    re.compile(r"https?://\S+"),
    re.compile(r"\b[0-9a-f]{16,}\b"),  # a hash, a seed
    re.compile(r"^[A-Za-z0-9_-]{60,}$", re.MULTILINE),  # a receipt's signature (base64)
    re.compile(r"HMAC-SHA256\([^)]*\)|SHA-256|pbm[ /][\w./-]+"),  # the fair-dice recipe's formula and files
    re.compile(r"\b(?:cephalopod|cubeo|dodeca) [a-z]+ \d+[^\n]*"),  # a command, as the server reads it
    re.compile(r"\broll [a-z]\d+\b"),  # Dodeca's notation for a reroll
    re.compile(r"^ *\d+ .*$", re.MULTILINE),  # the move list's rows: notation, pbmserv's words
]


def english_left(text: str, names: list[str]) -> list[str]:
    """The English words of `text` once notation, commands, hashes and `names` are taken out."""
    for pattern in NOT_PROSE:
        text = pattern.sub(" ", text)
    for name in names:
        text = text.replace(name, " ")
    return sorted({word for word in re.findall(r"[A-Za-z]+", text) if word.lower() in ENGLISH})


@pytest.fixture
def french(tmp_path, monkeypatch):
    """The French catalogues as the lead merges them: today's messages, every incoming translation."""
    locale = tmp_path / "locale"
    shutil.copytree(languages.LOCALE_DIR, locale)
    monkeypatch.setattr(languages, "LOCALE_DIR", locale)
    translating.update()
    for incoming in sorted((locale / "fr" / "incoming").glob("*.po")):
        translating.merge(incoming)
    for compiled in locale.glob("*/LC_MESSAGES/*.mo"):
        compiled.unlink()  # the .po just merged is what is read
    languages.translations.cache_clear()
    languages.voice.cache_clear()
    yield
    languages.translations.cache_clear()
    languages.voice.cache_clear()


class Table:
    """Players at one game, by mail, each in their language; every mail they receive is kept."""

    def __init__(self, room, clock: Clock, game: str, userids: list[str], seed: int) -> None:
        self.room, self.clock, self.game, self.userids = room, clock, game, userids
        self.engine = pbm.games.get(game)
        self.chooser = random.Random(seed)
        self.received: dict[str, list] = {userid: [] for userid in userids}

    def keep(self, messages: list) -> list:
        for message in messages:
            address = message["To"].addresses[0].addr_spec
            for userid in self.userids:
                if ADDRESSES[userid] == address:
                    self.received[userid].append(message)
        return messages

    def state(self):
        with self.room.database.reading() as session:
            stored = session.scalars(select(Board)).one()
            return self.engine.load(stored.state, stored.secret)

    def challenge(self, options: str = "") -> list:
        body = f"{self.game} challenge {options} {' '.join(self.userids)}".replace("  ", " ")
        self.room.send(mail(ADDRESSES[self.userids[0]], body + "\n\nBonne chance !"))
        return self.keep(self.room.replies())

    def play(self, comment: str = "") -> list:
        state = self.state()
        mover = self.userids[state.to_move]
        self.clock.advance(hours=7, minutes=13 * state.ply % 60)
        moves = self.engine.legal_moves(state)
        sharp = [m for m in moves if "x" in m or "+>" in m or "=" in m and "+" in m.split("=")[1]]
        line = f"{self.game} move 101 {mover} {mover}-pw {self.chooser.choice(sharp or moves)}"
        self.room.send(mail(ADDRESSES[mover], line + (f"\n\n{comment}" if comment else "")))
        return self.keep(self.room.replies())

    def to_the_end(self) -> None:
        while self.engine.result(self.state()) is None:
            self.play()

    def names(self) -> list[str]:
        """What a mail names that no language translates: userids, the game, its places and dice."""
        return [*self.userids, self.engine.title, "Paren", "Angle", "Square", "Curly", "Slash", "Bar"]


@pytest.fixture
def table(make_mailroom, french, monkeypatch):
    monkeypatch.setattr("pbm.games.dodeca.new_seed", lambda: bytes(range(32)))

    def seat(game: str, languages_of: dict[str, str], seed: int = 1) -> Table:
        clock = Clock()
        room = make_mailroom(clock=clock, public_url="https://games.example.org")
        for userid, language in languages_of.items():
            room.send(mail(ADDRESSES[userid], f"signup {userid} {userid}-pw"))
            room.send(mail(ADDRESSES[userid], f"language {userid} {userid}-pw {language}"))
        room.replies()
        return Table(room, clock, game, list(languages_of), seed)

    return seat


def _said(message) -> str:
    return f"{message['Subject']}\n\n{body_of(message)}"


def assert_french(players: Table, userid: str) -> None:
    mails = players.received[userid]
    assert mails, f"{userid} received no mail"
    for message in mails:
        left = english_left(_said(message), players.names())
        assert not left, f"English words {left} in a French mail to {userid}:\n{_said(message)}"


@pytest.mark.parametrize(
    ("game", "userids", "options", "seed"),
    [
        ("cephalopod", ["alice", "bob"], "", 1),
        ("cephalopod", ["alice", "bob", "carol", "dave"], "-size=3", 4),
        ("cubeo", ["alice", "bob"], "", 1),
        ("dodeca", ["alice", "bob"], "", 1),
    ],
    ids=["cephalopod", "cephalopod-4-players", "cubeo", "dodeca"],
)
def test_a_french_player_reads_every_board_mail_of_a_game_in_french(table, game, userids, options, seed):
    players = table(game, {userid: "fr" for userid in userids}, seed=seed)
    players.challenge(options)
    for _ in range(3):
        players.play()
    players.play(comment="Je n'avais pas vu venir ce coup.")
    players.to_the_end()
    for userid in userids:
        assert_french(players, userid)
    bodies = [_said(message) for message in players.received["alice"]]
    assert any("À vous de jouer" in body for body in bodies), "the player to move is told so, in French"
    assert any("Résumé de" in body for body in bodies)


def test_in_a_mixed_game_each_player_reads_their_own_language(table):
    players = table("cephalopod", {"alice": "fr", "bob": "en", "carol": "fr"}, seed=4)
    players.challenge("-size=3")
    players.to_the_end()
    assert_french(players, "alice")
    assert_french(players, "carol")
    english = [_said(message) for message in players.received["bob"]]
    assert english and all("Summary of Cephalopod Board 101" in body for body in english)
    assert not any("Résumé" in body or "\u202f" in body for body in english)
    french = [_said(message) for message in players.received["alice"]]
    assert all("Résumé de la partie 101 de Cephalopod" in body for body in french)
    # The subjects keep the game, the board number and the player to move where English has them.
    # (" **": the challenge carried a comment.)
    first_subjects = [players.received[userid][0]["Subject"] for userid in ("alice", "bob")]
    assert first_subjects == ["Nouvelle partie : Cephalopod, partie 101 alice **", "New Cephalopod Board 101 alice **"]


def test_the_check_finds_english_words_outside_notation_and_names():
    assert english_left("Résumé de Cephalopod partie 101\nIt is bob's turn (Angle).", ["bob", "Cephalopod"]) == [
        "It",
        "is",
        "turn",
    ]
    notation = "     1 c3          2 b2=a2+c2 (Auto)\nenvoyez :  cephalopod move 101 bob MOTDEPASSE COUP"
    assert english_left(notation, []) == []


def test_a_french_players_lists_are_french_and_their_columns_line_up(table):
    players = table("cephalopod", {"alice": "fr", "bob": "fr"})
    players.challenge()
    for _ in range(3):  # past the first round: a resignation then counts
        players.play()
    players.room.send(mail(ADDRESSES["carol"], "signup carol carol-pw"))
    players.room.send(mail(ADDRESSES["bob"], "cephalopod resign 101 bob bob-pw"))
    players.room.send(mail(ADDRESSES["carol"], "cephalopod challenge carol bob"))
    players.room.replies()
    lists = {}
    for command in ("cephalopod games all", "cephalopod history", "cephalopod standings", "all show alice all"):
        players.room.send(mail(ADDRESSES["alice"], command))
        (answer,) = players.room.replies()
        lists[command] = body_of(answer)
        assert not english_left(_said(answer), players.names()), _said(answer)
    # Each heading starts where the values under it do (numbers end under theirs).
    games = lists["cephalopod games all"].splitlines()
    heading = next(line for line in games if "Joueurs" in line)
    rows = [line for line in games if "alice, bob" in line or "carol, bob" in line]
    assert len(rows) == 2
    assert sorted(row[heading.index("Au trait") :].split()[0] for row in rows) == ["-", "carol"]
    assert sorted(row[heading.index("Joueurs") :] for row in rows) == ["alice, bob", "carol, bob"]
    assert sorted(row[heading.index("État") :].split()[0] for row in rows) == ["en", "terminée"]
    history = lists["cephalopod history"].splitlines()
    heading = next(line for line in history if "Résultat" in line)
    (row,) = [line for line in history if "alice, bob" in line]
    assert row.index("alice, bob") == heading.index("Joueurs")
    assert row[heading.index("Résultat") :].startswith("alice a gagné quand bob a abandonné")
    standings = lists["cephalopod standings"].splitlines()
    heading = next(line for line in standings if "Joueur" in line)
    ranked = [line for line in standings if line.strip().startswith(("1  ", "2  "))]
    assert [line.index(userid) for line, userid in zip(ranked, ["alice", "bob"])] == [heading.index("Joueur")] * 2
    assert {len(line.rstrip()) for line in ranked} == {len(heading)}, "the last column ends under its heading"
