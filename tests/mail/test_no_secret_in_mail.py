"""No mail the server sends holds a password, a password hash, the server's key or an unrevealed seed.

Two properties. The first throws command lines at the server as players
write them, right and wrong: every verb of the pbmserv language (those built
and those not yet), near misses and unknown verbs, with and without the
game's name and a board, alone, under a greeting or in a comment, in the body
or the subject; the password a line carries never comes back. The second
plays random traffic through every kind of mail the server sends (welcomes,
boards of all three games up to their end and its ratings, errors, lists,
help, standings, history, goodbyes, reminders, forfeits and vacation news as
days pass) and searches every mail for every secret the run made; on a server
with a public URL, every link a mail carries must be one of the public pages.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbm.commands.verbs import ACCOUNT_VERBS, GAME_VERBS
from pbm.store.models import Board, OpenChallenge, Player
from tests.support import Clock, body_of, mail

SECRET_KEY = "k" * 40  # the Mailroom's PBM_SECRET_KEY
SITE = "https://games.example.org"
PUBLIC_PAGE = re.compile(
    re.escape(SITE)
    + r"/(|bots|help(/[a-z]+)?|[a-z]+/[0-9]+|(GAME|[a-z]+)/rules|players/(USERID|[a-z0-9._-]+)/deadlines\.ics)"
)
"""The pages a mail may link to: the front page, the bots' table, the help topics, a game, a game's rules,
a calendar feed;
no token, no query."""
PASSWORD_VERBS = {
    name.split()[0] for verb in (*ACCOUNT_VERBS, *GAME_VERBS) if verb.passwords for name in (verb.name, *verb.aliases)
}
BOARD_VERBS = {
    name
    for verb in GAME_VERBS
    if verb.passwords and "BOARD USERID" in verb.arguments
    for name in (verb.name, *verb.aliases)
}
PLAYERS = itertools.count()

PASSWORD = st.text("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789", min_size=6, max_size=12).map(
    lambda s: "Zq" + s  # never a word the server writes by chance
)
VERBS = st.one_of(
    st.sampled_from(sorted(PASSWORD_VERBS)),
    st.sampled_from(["mvoe", "reisgn", "chta", "subscirbe", "frobnicate", "twiddle", "passwd", "login"]),
)
GAME_NAMES = st.sampled_from(["", "cephalopod ", "Cubeo ", "DODECA ", "cephalopd ", "cubo "])
AROUND = st.sampled_from(
    ["{line}", "Hi!\n\n{line}", "{line}\n\nThanks, that was fun.", "{line}\n{line}", "Re:\n{line}"]
)


@st.composite
def command_lines(draw, userid: str, password: str) -> str:
    """A line as a player writes one that carries their password, in a verb's usual shape."""
    shape = draw(st.sampled_from(["board", "plain", "change password", "change address"]))
    if shape == "change password":
        return f"change password {userid} {password} other-{password}"
    if shape == "change address":
        return f"change address {userid} {password} {userid}@new.example"
    game, verb = draw(GAME_NAMES), draw(VERBS)
    number = draw(st.integers(101, 110))
    # The board of a verb that takes one may be written wrongly too.
    written = draw(st.sampled_from(["{}", "x{}", "#{}", "board {}", "{},"])) if verb in BOARD_VERBS else "{}"
    board = written.format(number) + " " if shape == "board" else ""
    tail = draw(st.sampled_from(["", " c3", " a1=b2+c3", " all", " 3", " inf"]))
    return f"{game}{verb} {board}{userid} {password}{tail}"


def everything_sent(room) -> str:
    return "\n".join(f"{message}\n{body_of(message)}" for message in room.replies())


def test_the_password_a_command_line_carries_never_comes_back(make_mailroom):
    # One server for every example; each signs up a new player with a new password.
    room = make_mailroom(
        max_signups_per_sender_per_day=10_000, max_mails_per_address_per_hour=100_000, max_confirmations_per_hour=10_000
    )
    room.send(mail("bob@example.net", "signup bob bob-password"))
    room.replies()

    @settings(max_examples=60, deadline=None)
    @given(data=st.data())
    def check(data):
        password = data.draw(PASSWORD)
        userid = f"player{next(PLAYERS)}"
        address = f"{userid}@example.org"
        room.send(mail(address, f"signup {userid} {password}"))
        room.send(mail(address, f"cephalopod challenge {userid} bob"))
        room.replies()
        line = data.draw(command_lines(userid, password))
        body = data.draw(AROUND).format(line=line)
        in_subject = data.draw(st.booleans())
        room.send(mail(address, "" if in_subject else body, subject=line if in_subject else "my move"))
        sent = everything_sent(room)
        assert sent, "every such mail is answered"
        assert password not in sent

    check()


TRAFFIC = st.lists(
    st.sampled_from(
        [
            "move",
            "wrong-move",
            "wrong-password",
            "show",
            "show-old",
            "games",
            "history",
            "standings",
            "help",
            "game-help",
            "list",
            "garbage",
            "resign",
            "change-password",
            "change-address",
            "dodeca",
            "cubeo",
            "signoff",
            "propose",
            "undo",
            "accept",
            "reject",
            "chat",
            "message",
            "subscribe",
            "notify",
            "policy",
            "limit",
            "add",
            "all-show",
            "submit",
            "confirm",
            "preview",
            "queue",
            "seek",
            "open",
            "broadcast",
            "reset",
            "reset-wrongly",
            "time-rules",
            "vacation",
            "days-pass",
        ]
    ),
    min_size=4,
    max_size=14,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(traffic=TRAFFIC, passwords=st.lists(PASSWORD, min_size=3, max_size=3, unique=True))
def test_no_mail_of_any_kind_holds_a_secret(make_mailroom, traffic, passwords):
    clock = Clock()
    room = make_mailroom(admins="alice", clock=clock, public_url=SITE, admin_contact="ops@example.org")
    alice, bob, carol = "alice@example.org", "bob@example.net", "carol@example.com"
    sent: list = []
    known = {"alice": passwords[0], "bob": passwords[1], "carol": passwords[2]}
    used = set(known.values())
    room.send(mail(alice, f"signup alice {known['alice']}"))
    room.send(mail(bob, f"signup bob {known['bob']}"))
    room.send(mail(carol, f"signup carol {known['carol']}"))
    room.send(mail(alice, "cephalopod challenge alice bob"))
    room.send(mail(alice, "dodeca challenge alice bob"))
    for step in traffic:
        line = {
            "move": f"cephalopod move 101 alice {known['alice']} c3",
            "wrong-move": f"cephalopod move 101 alice {known['alice']} z9",
            "wrong-password": "cephalopod move 101 alice Wrong-guess-9 c3",
            "show": "cephalopod show 101 dodeca show 101",
            "show-old": "cephalopod show 101#1",
            "games": "cephalopod games alice all",
            "history": "cephalopod history",
            "standings": "dodeca standings",
            "help": "help",
            "game-help": "cubeo help",
            "list": "list",
            "garbage": f"frobnicate alice {known['alice']}",
            "resign": f"dodeca resign 101 bob {known['bob']}",
            "change-password": f"change password alice {known['alice']} {known['alice']}2",
            "change-address": f"change address bob {known['bob']} bob@example.net",
            "dodeca": f"dodeca move 101 alice {known['alice']} roll",
            "cubeo": f"cubeo challenge alice bob\ncubeo move 101 alice {known['alice']} a1",
            "signoff": f"signoff carol {known['carol']}",
            "propose": f"cephalopod move 101 alice {known['alice']} propose",
            "undo": f"cephalopod move 101 alice {known['alice']} undo",
            "accept": f"cephalopod move 101 bob {known['bob']} accept",
            "reject": f"cephalopod move 101 bob {known['bob']} reject",
            "chat": f"cephalopod chat 101 alice {known['alice']}\n\nMy password is {known['alice']}",
            "message": f"message bob {known['bob']} alice\n\nHello {known['bob']}",
            "subscribe": f"dodeca subscribe carol {known['carol']} all",
            "notify": f"cephalopod notify carol {known['carol']} 101",
            "policy": f"cubeo reject carol {known['carol']}",
            "limit": f"dodeca limit bob {known['bob']} 3",
            "add": f"add bob {known['bob']} bob@second.example",
            "all-show": "all show alice all",
            "submit": f"cephalopod submit 101 alice {known['alice']} c3",
            "confirm": f"cephalopod confirm 101 alice {known['alice']}",
            "preview": "dodeca preview 101 roll a1\ncephalopod prev new 3 -size=3 a1",
            "queue": (
                f"cephalopod queue 101 bob {known['bob']} if a1 then e5; else a5\n"
                f"cephalopod queue 101 bob {known['bob']}"
            ),
            "seek": f"cephalopod seek carol {known['carol']} 1\ncephalopod seek bob {known['bob']} 1 -size=5",
            "open": "cephalopod challenge -size=7 alice open\ncephalopod games open",
            "broadcast": f"broadcast alice {known['alice']}\n\nNews, and {known['alice']} by mistake",
            "reset": "password reset alice",
            "reset-wrongly": "password reset bob",
            "time-rules": "cubeo challenge --nagtime=12h --forfeittime=2 --clock=1+1/3 bob alice",
            "vacation": (
                f"vacation bob {known['bob']} now 3d\nvacation carol {known['carol']} 2027-01-05 2027-01-09\n"
                f"vacation bob {known['bob']}\nvacation alice Wrong-guess-9 off"
            ),
            "days-pass": "",  # reminders, forfeits, vacations begun and ended, from the time pass
        }[step]
        if step == "days-pass":
            clock.advance(days=8)
            room.server.processor.time_pass.run()
            sent += room.replies()
            continue
        words = line.split()[:4]
        room.send(mail(carol if "carol" in words else bob if "bob" in words else alice, line))
        if step == "change-password":
            known["alice"] += "2"
            used.add(known["alice"])
        sent += room.replies()
        if step == "open":
            with room.database.reading() as session:
                number = session.scalars(select(OpenChallenge.board)).first()
            if number is not None:
                room.send(mail(carol, f"cephalopod join {number} carol {known['carol']}"))
        if step.startswith("reset"):
            resets = [m for m in sent if m["Reply-To"] and "+reset-" in m["Reply-To"].addresses[0].addr_spec]
            if resets:
                address = resets[-1]["Reply-To"].addresses[0].addr_spec
                fresh = known["alice"] + "R"
                first_line = fresh if step == "reset" else f"my new password is {fresh}"
                room.send(mail(alice, f"{first_line}\n\n> quoted", to=address), to=address)
                if step == "reset":
                    known["alice"] = fresh
                used.add(fresh)
        sent += room.replies()
    with room.database.reading() as session:
        hashes = set(session.scalars(select(Player.password_hash)))
        unrevealed = {
            game.secret.hex() for game in session.scalars(select(Board)) if game.secret and game.status == "active"
        }
    text = "\n".join(f"{message}\n{body_of(message)}" for message in sent)
    for secret in (*used, "Wrong-guess-9", *hashes, *unrevealed, SECRET_KEY):
        assert secret not in text, f"a secret ({secret[:4]}...) is in a mail"
    links = re.findall(r"https?://\S+", text)
    assert links, "the board mails of the games started link to their pages"
    for link in links:
        assert PUBLIC_PAGE.fullmatch(link), f"a link to something other than a public page: {link}"
