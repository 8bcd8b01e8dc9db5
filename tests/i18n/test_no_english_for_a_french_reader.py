"""No English for a French reader, proven by rendering: every fact of every catalogue said in
French, and every kind of mail a French club's players are sent, read whole, hold no English word
outside the names and the notation `tests.i18n.english` allows (the web pages: tests/web/test_french.py).

The mails come from a French season played by mail on the server's own processing (`Mailroom`):
players who write French from their first mail, all three games, Cephalopod from two to six
players, reminders, vacations, a digest, quiet hours, a record, a bounce, votes, refusals of every
kind. Every mail the server renders is read, and every mail template must have been rendered.
"""

from __future__ import annotations

import re
import string
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

import pbm.games
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.facts import MOMENT_SPECS, Fact, Plural
from pbm.mail.compose import Composer
from pbm.resources import resource_dir
from pbm.store import boards
from pbm.store.models import OutboxMessage
from pbm.words import Words, every_catalogue
from tests.conftest import ON_SQLITE_ONLY
from tests.i18n.english import english_words
from tests.mail.test_bounces import report
from tests.support import Clock, mail

FRENCH = Words("fr")
CATALOGUE = every_catalogue()
SAMPLE_MOMENT = datetime(2026, 11, 26, 14, 30, tzinfo=timezone.utc)
SAMPLE_NAMES = {"userid": "marie", "player": "marie", "mover": "marie", "bot": "bot3", "title": "Cephalopod"}
SAMPLE_TEXTS = {"game": "cephalopod", "cell": "c3", "square": "c3", "source": "c2", "target": "c4"}


def sample(code: str) -> Fact:
    """A fact of `code` with a value for each of its placeholders that no language writes: numbers,
    a userid, a game's name, a cell; a moment where the message writes one."""
    message = CATALOGUE[code]
    templates = [message.one, message.other] if isinstance(message, Plural) else [message]
    params: dict[str, object] = {}
    for template in templates:
        for _, field, spec, conversion in string.Formatter().parse(template):
            if not field:
                continue
            name = field.split(".")[0].split("[")[0]
            if conversion:
                params[name] = "x7"
            elif spec in MOMENT_SPECS or name in ("until", "since", "expired"):
                params[name] = SAMPLE_MOMENT
            elif name in ("span",):
                params[name] = timedelta(days=2, hours=3)
            else:
                params[name] = SAMPLE_NAMES.get(name) or SAMPLE_TEXTS.get(name) or 7
    if isinstance(message, Plural):
        params[message.count] = 2
    return Fact(code, **params)


def english_in_facts() -> dict[str, list[str]]:
    found = {}
    for code in sorted(CATALOGUE):
        if code == "unconverted-words":
            continue
        words = english_words(FRENCH.say(sample(code)), {"marie", "bot3"})
        if words:
            found[code] = words
    return found


def test_every_fact_of_every_catalogue_is_said_without_english():
    assert english_in_facts() == {}


def test_the_check_finds_english_in_facts_said_in_english():
    english = Words("en")
    assert english_words(english.say(sample("not-your-turn")), {"marie"})
    assert english_words(english.say(sample("board-over")), {"marie"})


# -- a French season, by mail -------------------------------------------------------------------

pytestmark = ON_SQLITE_ONLY  # the words of mails: the same on every database

PLAYERS = ["marie", "paul", "luc", "zoe", "jean", "anne"]
ADDRESSES = {userid: f"{userid}@exemple.fr" for userid in PLAYERS}
NAMES = {*PLAYERS, "bot3", "alice", "bob"}
"""The season's players, a bot, and the players of the help's examples."""
INVITATION = re.compile(r"To read the server's mails in English, send:\n    language \w+ PASSWORD en")
"""How every welcome names English to a French reader: in English, by design (the one English
sentence a French reader is sent, so that whoever reads English finds the way)."""
MAIL_TEMPLATES = sorted(
    path.stem for path in (resource_dir("templates") / "mail").glob("*.txt") if not path.stem.startswith("_")
)


class Season:
    """French players writing to the server, every mail it renders kept with its template's name."""

    def __init__(self, room, clock: Clock, rendered: list[tuple[str, str | None, str, str]]) -> None:
        self.room, self.clock, self.rendered = room, clock, rendered

    def say(self, userid: str, text: str) -> None:
        self.room.send(mail(ADDRESSES.get(userid, userid), text))

    def bounce(self, userid: str) -> None:
        """The last mail to `userid` comes back: their address does not take mail."""
        with self.room.database.reading() as session:
            query = select(OutboxMessage.id).where(
                OutboxMessage.recipient == ADDRESSES[userid], OutboxMessage.player_id.is_not(None)
            )
            last = session.scalars(query.order_by(OutboxMessage.id.desc())).first()
        address = self.room.server.bounce_addresses.address_for(last)
        self.room.send(report("postfix", bounce=address, recipient=ADDRESSES[userid]), envelope_from="", to=address)

    def play_out(self, game: str, board: int) -> None:
        """Legal moves at `board` until its game ends."""
        engine = pbm.games.get(game)
        while True:
            with self.room.database.reading() as session:
                stored = boards.find(session, game, board)
                if stored.status != "active":
                    return
                state = engine.load(stored.state, stored.secret)
                mover = stored.seats[stored.to_move].player.userid
            move = engine.legal_moves(state)[0]
            self.say(mover, f"{game} move {board} {mover} {mover}-pw {move}")

    def later(self, **span: float) -> None:
        self.clock.advance(**span)
        self.room.server.processor.time_pass.run()


@pytest.fixture
def season(make_mailroom, monkeypatch) -> Season:
    rendered: list[tuple[str, str | None, str, str]] = []
    render = Composer.render

    def keep(self, template, context, language=None, zone=None):
        subject, body = render(self, template, context, language, zone)
        rendered.append((template, language, subject, body))
        return subject, body

    monkeypatch.setattr(Composer, "render", keep)
    clock = Clock()
    room = make_mailroom(clock=clock, admins="marie", max_error_replies_per_sender_per_hour=1000)
    return Season(room, clock, rendered)


def play_season(s: Season, monkeypatch) -> None:
    """What French players write in a season: every verb, every game, time passing."""
    s.say("marie", "inscription marie marie-pw")  # French from her first mail
    for userid in PLAYERS[1:]:
        s.say(userid, f"inscription {userid} {userid}-pw")
    s.say("paul", "language paul paul-pw fr")
    for line in ["aide", "help tutorial", "help ratings", "help queue", "help time", "help bots", "liste"]:
        s.say("marie", line)
    for game in ["cephalopod", "cubeo", "dodeca"]:
        s.say("marie", f"{game} help")
    s.say("marie", "timezone marie marie-pw Europe/Paris")
    s.say("paul", "digest paul paul-pw 07:30")
    # The three games, and Cephalopod from two to six players (boards 101 to 105).
    s.say("marie", "cephalopod challenge -size=3 marie paul")
    s.say("marie", "cubeo challenge marie paul")
    s.say("marie", "dodeca challenge marie paul")
    for count in range(3, 7):
        s.say("marie", f"cephalopod challenge {' '.join(PLAYERS[:count])}")
    s.say("marie", "cephalopod preview 101 c3 a1")
    s.say("marie", "cephalopod move 101 marie marie-pw c3")
    s.say("paul", "cephalopod queue 101 paul paul-pw if a1 then b2")  # refused: it is paul's turn
    s.say("paul", "cephalopod move 101 paul paul-pw a1")
    s.say("paul", "cephalopod queue 101 paul paul-pw b2")
    s.say("paul", "cephalopod queue 101 paul paul-pw")
    s.say("marie", "cephalopod move 101 marie marie-pw b2")  # the queued move's cell: it is dropped
    s.say("marie", "cubeo move 101 marie marie-pw +0,1")
    s.say("paul", "cubeo move 101 paul paul-pw 1,0,0->1,-1")
    s.say("marie", "dodeca move 101 marie marie-pw nonsense")
    s.say("marie", "cephalopod move 104 marie marie-pw c3")
    s.say("paul", "cephalopod move 104 paul paul-pw propose")
    s.say("marie", "cephalopod chat 104 marie marie-pw\n\nBonne chance à tous.")
    s.say("marie", "cephalopod record 104")
    s.say("marie", "cephalopod history marie")
    s.say("marie", "cephalopod standings")
    s.say("marie", "cephalopod games marie")
    s.say("marie", "all show marie")
    s.say("marie", "deadlines marie")
    s.say("luc", "cephalopod challenge luc open")
    s.say("luc", "cephalopod games open")
    s.say("zoe", "cephalopod join 106 zoe zoe-pw")
    s.say("anne", "cephalopod challenge anne open")
    s.say("anne", "cephalopod seek anne anne-pw 1")
    s.say("jean", "cephalopod notify jean jean-pw 101")
    s.say("jean", "cephalopod subscribe 101 jean jean-pw")
    s.say("jean", "cephalopod limit jean jean-pw 3")
    s.say("zoe", "message zoe zoe-pw luc\n\nOn joue ce soir ?")
    s.say("marie", "broadcast marie marie-pw\n\nLe serveur s’arrête dimanche matin.")
    s.say("luc", "vacation luc luc-pw now 2026-12-01")
    s.say("paul", "cubeo move 101 paul paul-pw propose")
    s.say("anne", "change password anne anne-pw anne-new")
    s.say("anne", "add anne anne-new anne@ailleurs.fr")
    s.say("zoe", "password reset anne")  # a friend asks for anne
    s.say("anne", "cephalopod move 999 anne anne-new c3")
    s.say("anne", "bonjour")
    with monkeypatch.context() as failing:
        failing.setitem(verbs._HANDLERS, lang.History, lambda ctx, command: 1 / 0)
        s.say("zoe", "cephalopod history zoe")
    s.play_out("cephalopod", 101)
    s.bounce("anne")
    s.say("marie", "quiet marie marie-pw 07:00-23:59")
    s.say("paul", "cephalopod challenge paul marie")
    s.later(days=8)
    s.later(days=2)
    s.later(hours=20)
    s.say("jean", "signoff jean jean-pw")


def test_every_mail_of_a_french_season_is_french(season, monkeypatch):
    play_season(season, monkeypatch)
    missing = set(MAIL_TEMPLATES) - {template for template, *_ in season.rendered}
    found = {}
    for template, _language, subject, body in season.rendered:
        english = english_words(INVITATION.sub("", f"{subject}\n{body}"), NAMES)
        if english:
            found.setdefault(template, set()).update(english)
    assert not missing, sorted(missing)
    assert found == {}
