"""Every verb and every alias of the language, over real SMTP: what each sends, to whom, under
which subject, with which key lines; and for each, a refusal that changes nothing.

Each step is a mail one player sends and the mails it must cause, no more (`Exchange`).
The other end-to-end modules go deeper into each verb; this one is the index that
shows none is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbm.commands import verbs
from tests.e2e.club import ADDRESSES, send, signed_up
from tests.support import body_of

ERRORS = {"max_error_replies_per_sender_per_hour": 1000, "admins": "alice"}
"""Many refusals from one sender in a few seconds are the point here, not a mail loop."""


@dataclass(frozen=True)
class Mail:
    """A mail that must arrive: to whom, a subject (a regular expression matched whole), key lines."""

    to: str
    subject: str
    lines: tuple[str, ...] = ()


def expect(to: str, subject: str, *lines: str) -> Mail:
    return Mail(to, subject, lines)


class Exchange:
    def __init__(self, server, sink) -> None:
        self.server, self.sink = server, sink

    def __call__(self, userid: str, text: str, *expected: Mail) -> None:
        """`userid` mails `text`; exactly the `expected` mails come back (in any order)."""
        send(self.server, userid, text)
        arrived = self.sink.wait(len(expected))
        for mail in expected:
            matching = [
                m
                for m in arrived
                if m["To"].addresses[0].addr_spec == ADDRESSES.get(mail.to, mail.to)
                and re.fullmatch(mail.subject, str(m["Subject"]))
            ]
            assert matching, f"{text!r}: no mail to {mail.to} with subject {mail.subject!r} in " + repr(
                [(str(m["To"]), str(m["Subject"])) for m in arrived]
            )
            body = body_of(matching[0])
            for line in mail.lines:
                assert line in body, f"{text!r}: {line!r} is not in the mail to {mail.to}:\n{body}"
            arrived.remove(matching[0])

    def nothing_more(self) -> None:
        assert [str(m["Subject"]) for m in self.sink.quiet(0.5)] == []


def _verbs_in(text: str) -> set[str]:
    words = text.split("\n")[0].lower().split()
    if words and words[0] in ("cephalopod", "cubeo", "dodeca"):
        words = words[1:]
    found = {" ".join(words[:2])} | {words[0]} if words else set()
    return found


@pytest.fixture
def say(server_with, sink) -> Exchange:
    server = server_with(**ERRORS)
    signed_up(server, sink, "alice", "bob", "carol")
    return Exchange(server, sink)


NOTHING_CHANGED = "Your command could not be carried out, and nothing was changed"


def test_account_verbs(say: Exchange):
    say(
        "dave",
        "signup dave dave-pw",
        expect("dave", "Welcome to the PBeM Server, dave", "The userid dave is now signed up"),
    )
    say(
        "dave",
        "signup alice x1234",
        expect("dave", "PBeM Server Error", NOTHING_CHANGED, "The userid 'alice' is taken"),
    )
    say("alice", "help", expect("alice", "Help for the PBeM Server", "signup USERID PASSWORD", "vacation USERID"))
    say(
        "alice",
        "help time",
        expect("alice", "Time on the PBeM Server.*", "--forfeittime=N", "vacation USERID PASSWORD off"),
    )
    say("alice", "help nosuch", expect("alice", "PBeM Server Error", "There is no help on 'nosuch'; the topics are"))
    say("alice", "list", expect("alice", "Games on the PBeM Server", "cephalopod   Cephalopod, a game by Mark Steere"))
    say(
        "alice",
        "change password alice alice-pw alice-pw2",
        expect("alice", "Password changed for alice", "The password of alice has been changed."),
    )
    say(
        "alice",
        "change password alice wrong other-pw",
        expect("alice", "PBeM Server Error", "Wrong password for alice."),
    )
    say(
        "bob",
        "change address bob bob-pw bob@example.net bob@home.example",
        expect("bob", "Addresses changed for bob", "Now:\n    bob@example.net\n    bob@home.example"),
        expect("bob@home.example", "Addresses changed for bob"),
    )
    say(
        "bob",
        "change address bob bob-pw nowhere",
        expect("bob", "PBeM Server Error", "'nowhere' is not a mail address"),
    )
    say(
        "carol",
        "add carol carol-pw carol@second.example",
        expect("carol", "Addresses changed for carol", "carol@second.example"),
        expect("carol@second.example", "Addresses changed for carol"),
    )
    say(
        "carol",
        "add carol wrong carol@third.example",
        expect("carol", "PBeM Server Error", "Wrong password for carol."),
    )
    say("alice", "all show bob", expect("alice", "Games of bob", "Games of bob, of every kind (active):"))
    say("alice", "all show nobody", expect("alice", "PBeM Server Error", "No player is signed up as nobody."))
    say(
        "bob",
        "message bob bob-pw carol\n\nLunch on Friday?",
        expect("carol", "Message from bob", "bob writes:", "Lunch on Friday?"),
        expect("bob", "Message sent to carol", "Your message went to carol"),
    )
    say(
        "bob",
        "message bob bob-pw nobody\n\nHi",
        expect("bob", "PBeM Server Error", "No player is signed up as nobody."),
    )
    say(
        "carol",
        "vacation carol carol-pw now 3d",
        expect("carol", "Vacation: carol", "Booked: away from", "carol has 27 days"),
    )
    say("carol", "vacation carol carol-pw", expect("carol", "Vacation: carol", "carol is away until"))
    say("carol", "vacation carol carol-pw off", expect("carol", "Vacation: carol", "Your vacation ends now"))
    say(
        "carol",
        "vacation carol carol-pw off",
        expect("carol", "PBeM Server Error", "carol is not away and has no vacation"),
    )
    say(
        "dave",
        "password reset carol",
        expect("carol", "Password reset for carol", "reply to this mail with the new password alone"),
        expect("carol@second.example", "Password reset for carol"),
        expect("dave", "Password reset for carol", "If carol is a player here"),
    )
    say("dave", "password reset nobody", expect("dave", "Password reset for nobody", "If nobody is a player here"))
    say(
        "alice",
        "broadcast alice alice-pw2\n\nThe server moves on Sunday.",
        expect("bob", "Announcement from alice", "The server moves on Sunday."),
        expect("carol", "Announcement from alice"),
        expect("dave", "Announcement from alice"),
        expect("alice", "Message sent to all 3 other players"),
    )
    say(
        "bob",
        "broadcast bob bob-pw\n\nNews",
        expect("bob", "PBeM Server Error", "broadcast is for the server's administrators"),
    )
    say("dave", "signoff dave wrong", expect("dave", "PBeM Server Error", "Wrong password for dave."))
    say("dave", "delete dave dave-pw", expect("dave", "Goodbye, dave", "The userid dave has signed off."))
    say("dave", "signoff dave dave-pw", expect("dave", "PBeM Server Error", "There is no player 'dave'"))
    say.nothing_more()


def test_play_verbs(say: Exchange):
    say("alice", "cephalopod help", expect("alice", "Help for Cephalopod", "cephalopod challenge"))
    say(
        "alice",
        "cephalopod challenge alice bob",
        expect("alice", "New Cephalopod Board 101 alice", "alice challenged bob to a new game.", "Time: reminders"),
        expect("bob", "New Cephalopod Board 101 alice"),
    )
    say(
        "alice",
        "cephalopod chall alice nobody",
        expect("alice", "Cephalopod Error", "No player is signed up as nobody"),
    )
    say("alice", "dodeca chall -size=5 alice bob", expect("alice", "PBeM Server Error", "size"))
    say(
        "alice",
        "cephalopod move 101 alice alice-pw c3",
        expect("alice", "Cephalopod Board 101 bob", "alice played c3."),
        expect("bob", "Cephalopod Board 101 bob", "It is your turn."),
    )
    say(
        "bob",
        "cephalopod mvoe 101 bob bob-pw a1",
        expect("alice", "Cephalopod Board 101 alice", "bob played a1."),
        expect("bob", "Cephalopod Board 101 alice"),
    )
    say("bob", "cephalopod move 101 bob bob-pw b2", expect("bob", "Cephalopod Board 101 Error", "It is not your turn"))
    say("alice", "cephalopod move 101 alice wrong b2", expect("alice", "Cephalopod Board 101 Error", "Wrong password"))
    say("alice", "cephalopod move 101 alice alice-pw z9", expect("alice", "Cephalopod Board 101 Error", "Illegal move"))
    say(
        "carol",
        "cephalopod move 101 carol carol-pw b2",
        expect("carol", "Cephalopod Board 101 Error", "carol does not play"),
    )
    say("alice", "cephalopod move 999 alice alice-pw b2", expect("alice", "Cephalopod Board 999 Error", "There is no"))
    say(
        "alice",
        "cephalopod move 101 alice alice-pw propose",
        expect("alice", "Cephalopod Board 101 alice", "alice proposes a draw.", "still to vote: bob"),
        expect("bob", "Cephalopod Board 101 alice"),
    )
    say(
        "alice",
        "cephalopod move 101 alice alice-pw propose",
        expect("alice", "Cephalopod Board 101 Error", "already waiting"),
    )
    say(
        "bob",
        "cephalopod move 101 bob bob-pw reject",
        expect("alice", "Cephalopod Board 101 alice", "bob rejects alice's draw proposal; the game goes on."),
        expect("bob", "Cephalopod Board 101 alice"),
    )
    say(
        "bob",
        "cephalopod move 101 bob bob-pw accept",
        expect("bob", "Cephalopod Board 101 Error", "Nothing is waiting"),
    )
    say(
        "alice",
        "cephalopod move 101 alice alice-pw undo",
        expect("alice", "Cephalopod Board 101 alice", "to take back move 2 (a1)"),
        expect("bob", "Cephalopod Board 101 alice"),
    )
    say(
        "bob",
        "cephalopod move 101 bob bob-pw accept",
        expect("alice", "Cephalopod Board 101 bob", "UNDO successful"),
        expect("bob", "Cephalopod Board 101 bob"),
    )
    say("alice", "cephalopod show 101", expect("alice", "Cephalopod Board 101 bob", "Summary of Cephalopod Board 101"))
    say(
        "alice",
        "cephalopod board 101#1",
        expect("alice", "Cephalopod Board 101 after move 1", "This is the board after move 1."),
    )
    say(
        "alice",
        "cephalopod show 102",
        expect("alice", "Cephalopod Error", "There is no Cephalopod board 102"),
    )
    say("alice", "cephalopod showas 101 bob", expect("alice", "Cephalopod Board 101 bob", "It is bob's turn"))
    say("alice", "cephalopod games alice all", expect("alice", "Cephalopod games", "Cephalopod games of alice (all):"))
    say("alice", "cephalopod games nobody", expect("alice", "Cephalopod Error", "No player is signed up as nobody"))
    say(
        "alice",
        "cephalopod pass 101 alice alice-pw",
        expect("alice", "Cephalopod Error", "Cephalopod does not allow passing"),
    )
    say("alice", "cephalopod swap 101 alice alice-pw", expect("alice", "Cephalopod Error", "Cephalopod has no swap"))
    say(
        "carol",
        "cephalopod resign 101 carol carol-pw",
        expect("carol", "Cephalopod Board 101 Error", "carol does not play"),
    )
    say(
        "bob",
        "cephalopod resign 101 bob bob-pw",
        expect("alice", "Cephalopod Board 101 won by alice", "bob resigned."),
        expect("bob", "Cephalopod Board 101 won by alice"),
    )
    say("bob", "cephalopod resign 101 bob bob-pw", expect("bob", "Cephalopod Board 101 Error", "is over"))
    say("alice", "cephalopod history", expect("alice", "Cephalopod history", "alice", "won when bob resigned"))
    say("alice", "cephalopod history nobody", expect("alice", "Cephalopod Error", "No player is signed up as nobody"))
    say("alice", "cephalopod standings", expect("alice", "Cephalopod standings", "Provisional\n Rank  Player"))
    say("alice", "cephalopod ratings", expect("alice", "Cephalopod standings", "alice"))
    say("alice", "cephalopod standings please", expect("alice", "PBeM Server Error", "Usage: cephalopod standings"))
    say.nothing_more()


def test_talking_and_watching(say: Exchange):
    say("alice", "cephalopod challenge alice bob", expect("alice", "New .*"), expect("bob", "New .*"))
    say(
        "alice",
        "cephalopod chat 101 alice alice-pw\n\nGood luck!",
        expect("bob", "Cephalopod chat 101 alice", "Good luck!"),
        expect("alice", "Cephalopod chat 101 alice"),
    )
    say(
        "carol",
        "cephalopod chat 101 carol carol-pw\n\nHi",
        expect("carol", "Cephalopod Board 101 Error", "carol does not play"),
    )
    say("carol", "cephalopod subscribe 101 carol carol-pw", expect("carol", "Watching Cephalopod Board 101"))
    say(
        "alice",
        "cephalopod move 101 alice alice-pw c3",
        expect("alice", "Cephalopod Board 101 bob"),
        expect("bob", "Cephalopod Board 101 bob"),
        expect("carol", "Cephalopod Board 101 bob", "alice played c3."),
    )
    say("carol", "cephalopod unsub 101 carol carol-pw", expect("carol", "No longer watching Cephalopod Board 101"))
    say(
        "carol",
        "cephalopod unsubscribe 101 carol carol-pw",
        expect("carol", "Cephalopod Error", "carol does not watch"),
    )
    say("carol", "cephalopod subscribe carol carol-pw all", expect("carol", "Watching new Cephalopod games"))
    say(
        "carol",
        "cephalopod subscribe 999 carol carol-pw",
        expect("carol", ".*Error", "There is no Cephalopod board 999"),
    )
    say("carol", "cephalopod notify carol carol-pw 101", expect("carol", "Cephalopod notices for carol", "101"))
    say("carol", "cephalopod notify carol wrong", expect("carol", "Cephalopod Error", "Wrong password for carol."))
    say(
        "bob",
        "cephalopod resign 101 bob bob-pw",
        expect("alice", "Cephalopod Board 101 cancelled", "bob resigned in the first round"),
        expect("bob", "Cephalopod Board 101 cancelled"),
        expect("carol", "Cephalopod Board 101 is over: cancelled"),
    )
    say.nothing_more()


def test_challenge_policies(say: Exchange):
    say(
        "carol",
        "cephalopod reject carol carol-pw",
        expect("carol", "Cephalopod challenges to carol", "carol takes no Cephalopod challenges."),
    )
    say("bob", "cephalopod challenge bob carol", expect("bob", "Cephalopod Invalid challenge", "carol"))
    say("carol", "cephalopod accept carol carol-pw", expect("carol", "Cephalopod challenges to carol"))
    say("carol", "cephalopod limit carol carol-pw 1", expect("carol", "Cephalopod challenges to carol", "1"))
    say("carol", "cephalopod limit carol carol-pw", expect("carol", "Cephalopod challenges to carol"))
    say("carol", "cephalopod limit carol carol-pw lots", expect("carol", "PBeM Server Error", "'lots' is not a limit"))
    say("carol", "cephalopod accept carol wrong", expect("carol", "Cephalopod Error", "Wrong password for carol."))
    say.nothing_more()


def test_seeing_a_move_first_and_queueing(say: Exchange):
    say("alice", "cephalopod challenge alice bob", expect("alice", "New .*"), expect("bob", "New .*"))
    say(
        "alice",
        "cephalopod submit 101 alice alice-pw c3",
        expect("alice", "Cephalopod Board 101 preview", "nothing has\nbeen played yet. To make it count, send:"),
    )
    say(
        "alice",
        "cephalopod confirm 101 alice alice-pw",
        expect("alice", "Cephalopod Board 101 bob", "alice played c3."),
        expect("bob", "Cephalopod Board 101 bob"),
    )
    say(
        "alice",
        "cephalopod confirm 101 alice alice-pw",
        expect("alice", "Cephalopod Board 101 Error", "no move submitted"),
    )
    say("bob", "cephalopod submit 101 bob bob-pw z9", expect("bob", "Cephalopod Board 101 Error", "Illegal move"))
    say("bob", "cephalopod preview 101 a1", expect("bob", "Cephalopod Board 101 preview", "nothing was saved"))
    say("bob", "cephalopod prev new 2 -size=3 a1", expect("bob", "Cephalopod preview", "nothing was saved"))
    say("bob", "cephalopod preview 101 z9", expect("bob", ".*Error", "Illegal move"))
    say("alice", "cephalopod queue 101 alice alice-pw e5", expect("alice", "Cephalopod Board 101 queue", "e5"))
    say("alice", "cephalopod qmove 101 alice alice-pw", expect("alice", "Cephalopod Board 101 queue", "e5"))
    say("alice", "cephalopod moveq 101 alice alice-pw off", expect("alice", "Cephalopod Board 101 queue"))
    say(
        "alice",
        "cephalopod qboard 101 alice alice-pw if a1 then e5; else a5",
        expect("alice", "Cephalopod Board 101 queue"),
    )
    say(
        "bob",
        "cephalopod move 101 bob bob-pw a1",
        expect("alice", "Cephalopod Board 101 alice", "bob played a1."),
        expect("bob", "Cephalopod Board 101 alice"),
        expect("alice", "Cephalopod Board 101 bob", "alice played e5 (Auto)."),
        expect("bob", "Cephalopod Board 101 bob", "   3 e5 (Auto)"),
    )
    say("alice", "cephalopod boardq 101 alice alice-pw off", expect("alice", "Cephalopod Board 101 queue"))
    say(
        "carol",
        "cephalopod queue 101 carol carol-pw a5",
        expect("carol", "Cephalopod Board 101 Error", "carol does not play"),
    )
    say.nothing_more()


def test_finding_opponents(say: Exchange):
    say("carol", "cephalopod seek carol carol-pw 1", expect("carol", "Cephalopod seek of carol", "1"))
    say(
        "bob",
        "cephalopod seek bob bob-pw 1",
        expect("carol", "New Cephalopod Board 101 carol", "The server paired carol and bob"),
        expect("bob", "New Cephalopod Board 101 carol"),
        expect("bob", "Cephalopod seek of bob", "Cephalopod board 101 with carol"),
    )
    say("bob", "cephalopod seek bob bob-pw many", expect("bob", "PBeM Server Error", "'many' is not a number of games"))
    say("alice", "cephalopod challenge alice open", expect("alice", "Open Cephalopod Board 102", "join"))
    say("alice", "cephalopod games open", expect("alice", "Open Cephalopod challenges", "102"))
    say(
        "carol",
        "cephalopod join 102 carol carol-pw",
        expect("alice", "New Cephalopod Board 102 alice", "carol joined alice's open challenge"),
        expect("carol", "New Cephalopod Board 102 alice"),
    )
    say("bob", "cephalopod join 102 bob bob-pw", expect("bob", "Cephalopod Board 102 Error", "not an open challenge"))
    say.nothing_more()


def test_every_verb_and_alias_has_its_steps_here():
    """Every name a verb goes by is the verb of some step of this module."""
    steps = re.findall(r'say\(\s*"\w+",\s*"([^"]*)"', Path(__file__).read_text())
    used = set().union(*(_verbs_in(text) for text in steps))
    names = {name for verb in (*verbs.ACCOUNT_VERBS, *verbs.GAME_VERBS) for name in (verb.name, *verb.aliases)}
    assert names - used == set()
