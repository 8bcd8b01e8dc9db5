"""Every verb and every alias of the command language, over real SMTP: what each one mails,
to whom, under which subject and with which key lines, and how each one refuses.

Read it verb by verb. A step is one mail a player sends and exactly the mails that must
come back (`Club.say`): no more, no fewer, each to its recipient, its subject matched
whole (a regular expression), its key lines found in the body. A refusal (`Club.refused`)
comes back to its sender alone, says that nothing was changed and why, and quotes the
command with its password starred; no mail of this module ever shows a password. After
the refusals of a verb, a look at what they might have touched (a board, a queue, a
password, a list of games) shows it as it was.

Each test names the verbs it specifies (`specifies`), and the last test checks that they
are every name of the verb table, aliases included. The other modules of tests/e2e go
deeper into each verb; this one is the whole language in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import pytest

from pbm.commands import verbs
from tests.conftest import ON_SQLITE_ONLY
from tests.e2e.club import ADDRESSES, signed_up
from tests.support import body_of, mail, reply_to_board

# What each verb mails and how it refuses are words; their queries run on PostgreSQL in tests/commands/handlers.
pytestmark = ON_SQLITE_ONLY

SETTINGS = {"admins": "alice", "max_error_replies_per_sender_per_hour": 1000}
"""alice may broadcast; many refusals to one sender within seconds are the point here, not a mail loop."""

SECRETS = ("alice-pw", "bob-pw", "carol-pw", "dave-pw", "wrong-pw", "alice-new", "carol-new", "carol-newer")
"""Every password a mail of this module carries (``wrong-pw`` is nobody's); no mail sent back shows one."""

LIST = "Games on the PBeM Server"
NOTHING_CHANGED = "Your command could not be carried out, and nothing was changed:"
YOUR_MESSAGE = "---------- your message ----------"


# -- what must come back ------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """A mail that must come back: to whom (a userid of the club, or an address), its subject
    (a regular expression matched whole) and lines its body holds."""

    to: str
    subject: str
    lines: tuple[str, ...] = ()

    @property
    def address(self) -> str:
        return ADDRESSES.get(self.to, self.to)

    def addressed(self, message: EmailMessage) -> bool:
        return message["To"].addresses[0].addr_spec == self.address and bool(
            re.fullmatch(self.subject, str(message["Subject"]))
        )


def mail_to(to: str, subject: str, *lines: str) -> Expected:
    return Expected(to, subject, lines)


def _listed(messages: list[EmailMessage]) -> str:
    return "\n".join(f"  to {m['To']}: {m['Subject']}" for m in messages) or "  (none)"


class Club:
    """Players on a server of their own, and what they mail it."""

    def __init__(self, server, sink) -> None:
        self.server, self.sink = server, sink

    def say(self, sender: str, text: str, *expected: Expected) -> list[EmailMessage]:
        """`sender` (a userid of the club, or an address) mails `text`; exactly the `expected` mails
        come back, in any order. Returns them in the order expected."""
        address = ADDRESSES.get(sender, sender)
        self.server.send(mail(address, text), address)
        return self._answers(text, expected)

    def refused(self, sender: str, text: str, subject: str, reason: str, *lines: str) -> EmailMessage:
        """`sender` mails `text` and gets one error mail back, and nobody else gets anything: the
        reason, that nothing was changed, and the command quoted with its password starred."""
        (error,) = self.say(sender, text, mail_to(sender, subject, NOTHING_CHANGED, reason, *lines, YOUR_MESSAGE))
        if any(secret in text for secret in SECRETS):
            assert "********" in body_of(error), f"{text!r}: the password is not starred in the error mail"
        return error

    def look(self, sender: str, text: str) -> str:
        """The body of the one mail `text` (a question, such as a show) brings `sender`."""
        (answer,) = self.say(sender, text, mail_to(sender, ".*"))
        return body_of(answer)

    def reply(self, message: EmailMessage, sender: str, first_line: str, *expected: Expected) -> list[EmailMessage]:
        """`sender` replies to `message` (at its Reply-To) with `first_line` above the quoted text."""
        address = ADDRESSES.get(sender, sender)
        reply_to = message["Reply-To"].addresses[0].addr_spec
        self.server.send(reply_to_board(message, address, first_line), address, [reply_to])
        return self._answers(f"a reply {first_line!r}", expected)

    def nothing_more(self) -> None:
        """No mail came back but those expected: the answer to a last question, mailed after
        whatever was still due (the outbox goes out in order), is the next to arrive."""
        address = ADDRESSES["dave"]
        self.server.send(mail(address, "list"), address)
        arrived = self.sink.wait(1)
        while (arrived[-1]["To"].addresses[0].addr_spec, arrived[-1]["Subject"]) != (address, LIST):
            arrived += self.sink.wait(1)
        assert arrived[:-1] == [], f"mails nobody expected:\n{_listed(arrived[:-1])}"

    def _answers(self, what: str, expected: tuple[Expected, ...]) -> list[EmailMessage]:
        arrived = self.sink.wait(len(expected)) + self.sink.quiet(0)
        assert len(arrived) == len(expected), f"{what}: {len(arrived)} mails, not {len(expected)}:\n{_listed(arrived)}"
        found = []
        for want in expected:
            candidates = [m for m in arrived if want.addressed(m)]
            assert candidates, f"{what}: no mail to {want.address} with subject {want.subject!r} in\n{_listed(arrived)}"
            complete = [m for m in candidates if all(line in body_of(m) for line in want.lines)]
            missing = [line for line in want.lines if line not in body_of(candidates[0])]
            assert complete, f"{what}: the mail to {want.address} lacks {missing!r}:\n{body_of(candidates[0])}"
            arrived.remove(complete[0])
            found.append(complete[0])
        for message in found:
            shown = str(message["Subject"]) + body_of(message)
            assert not [s for s in SECRETS if s in shown], f"{what}: a password in the mail to {message['To']}"
        return found


def specifies(*names: str) -> Callable[[Any], Any]:
    """Marks a test as specifying these verbs, named as a line starts (``GAME move`` for a game's)."""

    def mark(test: Any) -> Any:
        test.specifies = names
        return test

    return mark


# -- who is there ---------------------------------------------------------------------------


@pytest.fixture
def newcomers(server_with, sink) -> Iterator[Club]:
    """A server nobody has signed up to yet. When the test is over, no other mail came back."""
    club = Club(server_with(**SETTINGS), sink)
    yield club
    club.nothing_more()


@pytest.fixture
def club(newcomers: Club) -> Club:
    """alice, bob and carol, signed up with the passwords alice-pw, bob-pw and carol-pw; alice
    administers the server. dave has an address but has not signed up."""
    signed_up(newcomers.server, newcomers.sink, "alice", "bob", "carol")
    return newcomers


@pytest.fixture
def board(club: Club) -> Club:
    """The club, with Cephalopod board 101 between alice (Paren) and bob (Angle) after alice's c3:
    bob is to move. carol does not play there."""
    club.say("alice", "cephalopod challenge alice bob", mail_to("alice", "New .*"), mail_to("bob", "New .*"))
    club.say(
        "alice",
        "cephalopod move 101 alice alice-pw c3",
        mail_to("alice", "Cephalopod Board 101 bob"),
        mail_to("bob", "Cephalopod Board 101 bob"),
    )
    return club


@pytest.fixture
def under_way(board: Club) -> Club:
    """Board 101 past its first round, so that its end is rated: alice's c3, bob's a1, alice's e5;
    bob is to move."""
    for userid, square in (("bob", "a1"), ("alice", "e5")):
        board.say(
            userid, f"cephalopod move 101 {userid} {userid}-pw {square}", mail_to("alice", ".*"), mail_to("bob", ".*")
        )
    return board


BOARD_101 = "It is bob's turn (Angle).\n\n     alice       bob\n     Paren       Angle\n   1 c3\n"
"""Board 101 as the `board` fixture leaves it."""


def show_101(club: Club) -> str:
    return club.look("alice", "cephalopod show 101")


def bob_wins_101(club: Club, *watchers: Expected) -> None:
    """Board 101 ends: bob plays a1, then alice resigns (a rated game: both have moved)."""
    club.say("bob", "cephalopod move 101 bob bob-pw a1", mail_to("alice", ".*"), mail_to("bob", ".*"))
    club.say(
        "alice",
        "cephalopod resign 101 alice alice-pw",
        mail_to("alice", "Cephalopod Board 101 won by bob", "bob won when alice resigned."),
        mail_to("bob", "Cephalopod Board 101 won by bob", "bob won when alice resigned."),
        *watchers,
    )


# -- help -------------------------------------------------------------------------------------

COMMANDS = (
    "signup USERID PASSWORD [ADDRESS...]",
    "GAME move BOARD USERID PASSWORD MOVE[#N]",
    "More help: help tutorial, help ratings, help queue, help time, help bots,\nhelp GAME.",
)


@specifies("help")
@pytest.mark.parametrize(
    ("line", "subject", "lines"),
    [
        pytest.param("help", "Help for the PBeM Server", COMMANDS, id="help"),
        pytest.param("help commands", "Help for the PBeM Server", COMMANDS, id="commands"),
        pytest.param(
            "help cephalopod",
            "Help for Cephalopod",
            ("Cephalopod, a game by Mark Steere", "-size=3..9", "    cephalopod resign BOARD USERID PASSWORD"),
            id="GAME",
        ),
        pytest.param(
            "help queue",
            "How to queue moves on the PBeM Server",
            ("GAME queue BOARD USERID PASSWORD off", "The aliases qmove, moveq, qboard and boardq do the same."),
            id="queue",
        ),
        pytest.param(
            "help ratings",
            "How ratings are kept on the PBeM Server",
            (
                "Everyone starts at 1600.",
                "K = 32",
                "A rating is provisional until 20 rated games are finished.",
                "A game counts once every player has made a move in it.",
                "is called off and not rated, however it ends:",
            ),
            id="ratings",
        ),
        pytest.param(
            "help tutorial",
            "A first game on the PBeM Server",
            ("signup alice my-secret-password", "       cephalopod challenge alice bob"),
            id="tutorial",
        ),
        pytest.param(
            "help time",
            "Time on the PBeM Server: reminders, forfeits, clocks and vacations",
            ("reminders after 7 days without a move; forfeit after 21 days", "--clock=S+I/C"),
            id="time",
        ),
        pytest.param(
            "help bots",
            "Bots on the PBeM Server: their levels and strength",
            ("    cephalopod challenge alice bot3", "    Bot    Level"),
            id="bots",
        ),
    ],
)
def test_help_mails_the_topic_asked_for_even_to_a_stranger(newcomers: Club, line, subject, lines):
    newcomers.say("dave", line, mail_to("dave", subject, *lines))


@specifies("language")
def test_language_chooses_the_language_of_every_mail_to_the_player_and_refuses_others(club: Club):
    club.say(
        "bob",
        "language bob bob-pw English",
        mail_to("bob", "Language of bob", "From now on every mail to bob is written in English."),
    )
    club.refused(
        "bob",
        "language bob bob-pw klingon",
        "PBeM Server Error",
        "'klingon' is not a language the server speaks: write one of en and fr.",
    )
    club.refused("bob", "language bob", "PBeM Server Error", "Usage: language USERID PASSWORD LANGUAGE.")


@specifies("GAME record")
def test_record_mails_the_game_as_a_signed_record_and_refuses_a_board_there_is_not(board: Club):
    board.say("bob", "cephalopod record 101", mail_to("bob", "Cephalopod Board 101 record"))
    board.refused("bob", "cephalopod record 999", "Cephalopod Board 999 Error", "There is no Cephalopod board 999")


@specifies("timezone", "quiet", "digest")
def test_timezone_quiet_and_digest_set_when_and_how_mail_comes_and_refuse_what_is_no_time(club: Club):
    club.say(
        "bob",
        "timezone bob bob-pw Europe/Paris",
        mail_to("bob", "Mail preferences: bob", "bob lives in Europe/Paris from now on"),
    )
    club.say(
        "bob",
        "quiet bob bob-pw 22:00-07:00",
        mail_to("bob", "Mail preferences: bob", "From now on no mail goes to bob between 22:00-07:00"),
    )
    club.say(
        "bob",
        "digest bob bob-pw 07:30,19:00",
        mail_to("bob", "Mail preferences: bob", "From now on bob gets a digest at 07:30"),
    )
    club.say(
        "bob", "digest bob bob-pw off", mail_to("bob", "Mail preferences: bob", "bob gets a mail for each move again")
    )
    club.say("bob", "quiet bob bob-pw off", mail_to("bob", "Mail preferences: bob", "bob has no quiet hours any more"))
    club.refused("bob", "timezone bob bob-pw Mars/Olympus", "PBeM Server Error", "'Mars/Olympus' is not a time zone")
    club.refused("bob", "quiet bob bob-pw 25:00-07:00", "PBeM Server Error", "'25:00-07:00' is not a span of hours")
    club.refused("bob", "digest bob wrong-pw 07:30", "PBeM Server Error", "Wrong password for bob")


@specifies("aide", "liste", "GAME aide")
def test_a_french_speakers_obvious_words_for_help_and_list_are_the_verbs(newcomers: Club):
    """``aide`` is help and ``liste`` is list, with what follows them read as after help and list;
    ``GAME aide`` is the game's help."""
    newcomers.say("dave", "aide", mail_to("dave", "Help for the PBeM Server", *COMMANDS))
    newcomers.say("dave", "Aide ratings", mail_to("dave", "How ratings are kept on the PBeM Server", "K = 32"))
    newcomers.say("dave", "liste", mail_to("dave", LIST, "    cephalopod   Cephalopod, a game by Mark Steere\n"))
    newcomers.say(
        "dave", "cephalopod aide", mail_to("dave", "Help for Cephalopod", "Commands (the same for every game)")
    )
    newcomers.refused("dave", "aide moi stp", "PBeM Server Error", "No command found in your mail.")


@specifies("inscription")
def test_a_signup_written_in_french_signs_up_and_welcomes_in_french(newcomers: Club):
    """``inscription`` is signup, and the newcomer who writes it is met in French."""
    newcomers.say(
        "carol",
        "inscription carol carol-pw",
        mail_to("carol", "Bienvenue sur le PBeM Server, carol", "L’identifiant carol est maintenant inscrit."),
    )


@specifies("help")
def test_help_on_a_topic_there_is_no_help_on_lists_the_topics(newcomers: Club):
    newcomers.refused(
        "dave",
        "help nosuch",
        "PBeM Server Error",
        "There is no help on 'nosuch'; the topics are: commands, tutorial, ratings, queue, time, bots, "
        "cephalopod, cubeo, dodeca.",
    )
    newcomers.refused(
        "dave",
        "help me please",
        "PBeM Server Error",
        "No command found in your mail. A command is a line that starts with one of: help, signup,",
    )


# -- joining and leaving ------------------------------------------------------------------


@specifies("signup")
def test_signup_takes_a_free_userid_and_writes_to_the_address_it_came_from_or_those_named(club: Club):
    club.say(
        "dave",
        "signup dave dave-pw",
        mail_to(
            "dave",
            "Welcome to the PBeM Server, dave",
            "The userid dave is now signed up. The server writes to:\n\n    dave@example.com\n",
            "To change it:   change password dave OLD NEW",
        ),
    )
    club.say(
        "dave",
        "signup dave2 dave-pw dave@home.example",
        mail_to(
            "dave@home.example", "Welcome to the PBeM Server, dave2", "The server writes to:\n\n    dave@home.example\n"
        ),
        mail_to("dave", "Welcome to the PBeM Server, dave2"),
    )
    club.say("alice", "all show dave2", mail_to("alice", "Games of dave2", "Games of dave2, of every kind (active):"))


@specifies("signup")
def test_signup_refuses_a_taken_userid_a_malformed_one_and_an_address_that_is_none(club: Club):
    for line, reason in [
        ("signup alice dave-pw", "The userid 'alice' is taken; choose another one."),
        ("signup dave", "Usage: signup USERID PASSWORD [ADDRESS...]."),
        ("signup b@d dave-pw", "'b@d' is not a userid: a userid is 2 to 32 letters, digits, '.', '_' or '-'"),
        ("signup open dave-pw", "'open' cannot be a userid: challenges use it for a free seat."),
        ("signup dave dave-pw nowhere", "'nowhere' is not a mail address."),
    ]:
        club.refused("dave", line, "PBeM Server Error", reason)
    club.say("alice", "cephalopod limit alice alice-pw", mail_to("alice", "Cephalopod challenges to alice"))
    club.refused("alice", "all show dave", "PBeM Server Error", "No player is signed up as dave.")


@specifies("signoff", "delete")
@pytest.mark.parametrize("verb", ["signoff", "delete"])
def test_signoff_forfeits_the_games_still_played_and_keeps_the_userid_taken(under_way: Club, verb):
    board = under_way
    board.say(
        "bob",
        f"{verb} bob bob-pw",
        mail_to(
            "alice",
            "Cephalopod Board 101 won by alice",
            "bob forfeited by signing off.",
            "alice won when bob forfeited by signing off.",
            "   3 e5          4 Forfeit",
        ),
        mail_to("bob", "Cephalopod Board 101 won by alice"),
        mail_to(
            "bob",
            "Goodbye, bob",
            "The userid bob has signed off.",
            "The games it was still playing are forfeited: Cephalopod board 101.",
        ),
    )
    board.refused("bob", f"{verb} bob bob-pw", "PBeM Server Error", "There is no player 'bob' (sign up with:")
    board.refused("dave", "signup bob dave-pw", "PBeM Server Error", "The userid 'bob' is taken; choose another one.")


@specifies("signoff", "delete")
def test_signoff_refuses_a_wrong_password_and_a_player_there_is_not(board: Club):
    for line, reason in [
        ("signoff bob wrong-pw", "Wrong password for bob."),
        ("delete bob wrong-pw", "Wrong password for bob."),
        ("signoff nobody bob-pw", "There is no player 'nobody' (sign up with: signup userid password)."),
        ("signoff bob", "Usage: signoff USERID PASSWORD."),
    ]:
        board.refused("bob", line, "PBeM Server Error", reason)
    assert BOARD_101 in show_101(board)


# -- passwords and addresses --------------------------------------------------------------


@specifies("change password")
def test_change_password_replaces_the_password_and_every_address_hears_of_it(club: Club):
    club.say(
        "alice",
        "add alice alice-pw alice@work.example",
        mail_to("alice", "Addresses changed for alice"),
        mail_to("alice@work.example", "Addresses changed for alice"),
    )
    club.say(
        "alice",
        "change password alice alice-pw alice-new",
        mail_to(
            "alice",
            "Password changed for alice",
            "The password of alice has been changed.",
            "change it\nagain at once with   change password alice OLD NEW",
        ),
        mail_to("alice@work.example", "Password changed for alice", "The password of alice has been changed."),
    )
    club.refused("alice", "cephalopod limit alice alice-pw", "Cephalopod Error", "Wrong password for alice.")
    club.say(
        "alice",
        "cephalopod limit alice alice-new",
        mail_to("alice", "Cephalopod challenges to alice"),
        mail_to("alice@work.example", "Cephalopod challenges to alice"),
    )


@specifies("change password")
def test_change_password_refuses_a_wrong_old_password_and_keeps_the_old_one(club: Club):
    for line, reason in [
        ("change password alice wrong-pw alice-new", "Wrong password for alice."),
        ("change password nobody alice-pw alice-new", "There is no player 'nobody' (sign up with:"),
        ("change password alice alice-new", "Usage: change password USERID OLD NEW."),
        (
            "change colour alice alice-pw",
            "Usage: change password USERID OLD NEW  |  change address USERID PASSWORD ADDRESS...",
        ),
    ]:
        club.refused("alice", line, "PBeM Server Error", reason)
    club.say("alice", "cephalopod limit alice alice-pw", mail_to("alice", "Cephalopod challenges to alice"))


@specifies("change address")
def test_change_address_moves_the_players_mail_and_tells_the_old_and_the_new_addresses(club: Club):
    club.say(
        "bob",
        "change address bob bob-pw bob@home.example",
        mail_to(
            "bob",
            "Addresses changed for bob",
            "Before:\n    bob@example.net\nNow:\n    bob@home.example\n",
            "The server no longer writes to bob@example.net.",
        ),
        mail_to("bob@home.example", "Addresses changed for bob", "Now:\n    bob@home.example\n"),
    )
    club.say(
        "alice",
        "message alice alice-pw bob\n\nStill there?",
        mail_to("bob@home.example", "Message from alice", "Still there?"),
        mail_to("alice", "Message sent to bob"),
    )


@specifies("change address")
def test_change_address_refuses_a_wrong_password_and_what_is_no_address(club: Club):
    for line, reason in [
        ("change address bob wrong-pw bob@home.example", "Wrong password for bob."),
        ("change address bob bob-pw nowhere", "'nowhere' is not a mail address."),
        ("change address bob bob-pw", "Usage: change address USERID PASSWORD ADDRESS..."),
    ]:
        club.refused("bob", line, "PBeM Server Error", reason)
    club.say(
        "alice",
        "message alice alice-pw bob\n\nStill there?",
        mail_to("bob", "Message from alice", "Still there?"),
        mail_to("alice", "Message sent to bob"),
    )


@specifies("add")
def test_add_gives_a_player_one_more_address_whose_mail_counts_as_theirs(club: Club):
    club.say(
        "carol",
        "add carol carol-pw carol@second.example",
        mail_to(
            "carol",
            "Addresses changed for carol",
            "Now:\n    carol@example.com\n    carol@second.example\n",
            "Boards go to carol@example.com; mail from any of these addresses counts as carol's.",
        ),
        mail_to("carol@second.example", "Addresses changed for carol"),
    )
    club.say(
        "carol@second.example",
        "cephalopod challenge carol alice",
        mail_to("carol", "New Cephalopod Board 101 carol", "carol challenged alice to a new game."),
        mail_to("alice", "New Cephalopod Board 101 carol"),
    )


@specifies("add")
def test_add_refuses_a_wrong_password_and_an_address_the_player_has(club: Club):
    club.refused("carol", "add carol wrong-pw carol@second.example", "PBeM Server Error", "Wrong password for carol.")
    club.refused(
        "carol", "add carol carol-pw carol@example.com", "PBeM Server Error", "carol has those addresses already."
    )
    club.refused(
        "carol@second.example",
        "cephalopod challenge carol alice",
        "Cephalopod Error",
        "You can only start a game you play in: the challenge must come from the registered address of one of "
        "carol, alice.",
    )


@specifies("password reset")
def test_password_reset_mails_the_player_a_reply_address_that_sets_a_new_password(club: Club):
    reset, _ = club.say(
        "dave",
        "password reset carol",
        mail_to(
            "carol",
            "Password reset for carol",
            "To choose a new password, reply to this mail with the new password alone\non the first line.",
        ),
        mail_to("dave", "Password reset for carol", "If carol is a player here, a mail has gone to the addresses"),
    )
    club.reply(
        reset,
        "carol",
        "carol-new",
        mail_to("carol", "Password changed for carol", "The password of carol has been changed"),
    )
    club.say("carol", "cephalopod limit carol carol-new", mail_to("carol", "Cephalopod challenges to carol"))
    club.refused("carol", "cephalopod limit carol carol-pw", "Cephalopod Error", "Wrong password for carol.")


@specifies("password reset")
def test_password_reset_tells_whoever_asks_nothing_and_its_address_works_once(club: Club):
    club.say(
        "dave",
        "password reset nobody",
        mail_to("dave", "Password reset for nobody", "If nobody is a player here, a mail has gone to the addresses"),
    )
    club.refused("dave", "password reset", "PBeM Server Error", "Usage: password reset USERID.")
    reset, _ = club.say("dave", "password reset carol", mail_to("carol", "Password reset .*"), mail_to("dave", ".*"))
    club.reply(reset, "carol", "carol-new", mail_to("carol", "Password changed for carol"))
    club.reply(
        reset,
        "carol",
        "carol-newer",
        mail_to("carol", "PBeM Server Error", NOTHING_CHANGED, "has been used, has expired", YOUR_MESSAGE),
    )
    club.say("carol", "cephalopod limit carol carol-new", mail_to("carol", "Cephalopod challenges to carol"))


# -- talking to players -------------------------------------------------------------------


@specifies("message")
def test_message_mails_the_text_below_it_to_the_players_named_and_no_address(club: Club):
    carols, alices, _ = club.say(
        "bob",
        "message bob bob-pw carol alice\n\nLunch on Friday?",
        mail_to(
            "carol",
            "Message from bob",
            "bob writes to carol, alice:\n\nLunch on Friday?",
            "To answer, send:  message YOURID PASSWORD bob",
        ),
        mail_to("alice", "Message from bob", "Lunch on Friday?"),
        mail_to("bob", "Message sent to carol, alice", "Your message went to carol, alice:\n\nLunch on Friday?"),
    )
    assert "@" not in body_of(carols) + body_of(alices)


@specifies("message")
def test_message_refuses_an_unknown_recipient_and_then_mails_nobody(club: Club):
    club.refused(
        "bob", "message bob bob-pw carol nobody\n\nHi both", "PBeM Server Error", "No player is signed up as nobody."
    )
    club.refused("bob", "message bob wrong-pw carol\n\nHi", "PBeM Server Error", "Wrong password for bob.")
    club.refused("bob", "message bob bob-pw", "PBeM Server Error", "Usage: message USERID PASSWORD TO...")
    club.say(
        "bob",
        "message bob bob-pw carol\n\nSorry, that was me",
        mail_to("carol", "Message from bob", "Sorry, that was me"),
        mail_to("bob", "Message sent to carol"),
    )


@specifies("broadcast")
def test_broadcast_from_an_administrator_reaches_every_other_player(club: Club):
    club.say(
        "alice",
        "broadcast alice alice-pw\n\nThe server moves on Sunday.",
        mail_to(
            "bob",
            "Announcement from alice",
            "alice, an administrator of this server, writes to every player:\n\nThe server moves on Sunday.",
        ),
        mail_to("carol", "Announcement from alice", "The server moves on Sunday."),
        mail_to("alice", "Message sent to all 2 other players", "The server moves on Sunday."),
    )


@specifies("broadcast")
def test_broadcast_is_refused_to_a_player_who_administers_nothing_and_reaches_nobody(club: Club):
    club.refused(
        "bob",
        "broadcast bob bob-pw\n\nFree dice!",
        "PBeM Server Error",
        "broadcast is for the server's administrators, and bob is not one.",
    )
    club.refused("alice", "broadcast alice wrong-pw\n\nNews", "PBeM Server Error", "Wrong password for alice.")
    club.refused("alice", "broadcast alice alice-pw", "PBeM Server Error", "There is nothing to pass on")
    club.say(
        "alice",
        "message alice alice-pw bob\n\nOnly you",
        mail_to("bob", "Message from alice", "Only you"),
        mail_to("alice", "Message sent to bob"),
    )


# -- being away -----------------------------------------------------------------------------


@specifies("vacation")
def test_vacation_books_time_away_tells_where_a_player_stands_and_ends_it(club: Club):
    club.say(
        "carol",
        "vacation carol carol-pw now 3d",
        mail_to(
            "carol",
            "Vacation: carol",
            "Booked: away from ",
            "carol is away until ",
            "Every player may be away 30 days in any 365 days; carol has 27 days\nof it left.",
        ),
    )
    club.say("carol", "vacation carol carol-pw", mail_to("carol", "Vacation: carol", "carol is away until "))
    club.say(
        "carol",
        "vacation carol carol-pw off",
        mail_to(
            "carol", "Vacation: carol", "Your vacation ends now", "carol is not away now.", "No vacation is booked."
        ),
    )


@specifies("vacation")
def test_vacation_refuses_a_day_that_is_none_or_gone_and_nothing_to_end(club: Club):
    for line, reason in [
        ("vacation carol carol-pw off", "carol is not away and has no vacation booked: there is nothing to end."),
        ("vacation carol carol-pw someday 3d", "'someday' is not a day: write it as 2026-12-20"),
        ("vacation carol carol-pw 2020-01-01 3d", "A vacation cannot start in the past: 2020-01-01 is gone"),
        ("vacation carol wrong-pw now 3d", "Wrong password for carol."),
    ]:
        club.refused("carol", line, "PBeM Server Error", reason)
    club.say(
        "carol",
        "vacation carol carol-pw",
        mail_to("carol", "Vacation: carol", "carol is not away now.", "No vacation is booked."),
    )


# -- what there is --------------------------------------------------------------------------


@specifies("list")
def test_list_mails_the_games_this_server_plays_and_takes_no_words_after_it(newcomers: Club):
    newcomers.say(
        "dave",
        "list",
        mail_to(
            "dave",
            LIST,
            "    cephalopod   Cephalopod, a game by Mark Steere\n"
            "                 2 to 6 players; options: -size=3..9 -dice=6|12\n",
            "    cubeo        Cubeo, a game by Marek J. Kolcun\n",
            "    dodeca       Dodeca, from the Warpspawn games pages\n",
        ),
    )
    newcomers.refused("dave", "list games", "PBeM Server Error", "No command found in your mail.")


@specifies("all show")
def test_all_show_lists_a_players_games_of_every_kind(board: Club):
    board.say(
        "carol",
        "all show alice",
        mail_to(
            "carol",
            "Games of alice",
            "Games of alice, of every kind (active):",
            " Cephalopod    101     1  active     bob           alice, bob",
        ),
    )
    board.say("carol", "all show bob next", mail_to("carol", "Games of bob", "(next):", " Cephalopod    101     1"))
    board.say("carol", "all show alice next", mail_to("carol", "Games of alice", "(next):\n\n    none"))
    board.refused("carol", "all show nobody", "PBeM Server Error", "No player is signed up as nobody.")
    board.refused("carol", "all show bob sometimes", "PBeM Server Error", "Usage: all show USERID [active|next|all].")


@specifies("deadlines")
def test_deadlines_lists_the_games_waiting_for_a_player_with_the_time_left_in_each(board: Club):
    first = "Games waiting for bob's move, the nearest deadline first:"
    board.say(
        "carol", "deadlines bob", mail_to("carol", "Deadlines of bob", first, "    cephalopod 101: ", " left, until ")
    )
    board.say("carol", "deadlines alice", mail_to("carol", "Deadlines of alice", "first:\n\n    none"))
    board.refused("carol", "deadlines nobody", "PBeM Server Error", "No player is signed up as nobody.")


@specifies("GAME help")
def test_game_help_mails_the_rules_options_and_commands_of_the_game(newcomers: Club):
    newcomers.say(
        "dave",
        "cephalopod help",
        mail_to(
            "dave",
            "Help for Cephalopod",
            "Cephalopod is played on a 5x5 board that starts empty.",
            "Options for the challenge command:\n    -size=3..9 ",
            "Commands (the same for every game):\n    cephalopod help\n",
            "    cephalopod standings\n",
        ),
    )


@specifies("GAME help")
def test_game_help_refuses_words_after_it_as_every_other_verb_does(newcomers: Club):
    newcomers.refused("dave", "cephalopod help me", "PBeM Server Error", "Usage: cephalopod help.")


# -- starting games -------------------------------------------------------------------------


@specifies("GAME challenge", "GAME chall")
@pytest.mark.parametrize("verb", ["challenge", "chall"])
def test_challenge_starts_a_board_and_mails_it_to_every_player_named(club: Club, verb):
    club.say(
        "alice",
        f"cephalopod {verb} -size=4 alice bob carol",
        mail_to(
            "alice",
            "New Cephalopod Board 101 alice",
            "alice challenged bob and carol to a new game.",
            "Summary of Cephalopod Board 101 (-size=4)",
            "It is alice's turn (Paren).",
            "     alice (Paren),  bob (Angle),  carol (Square)\n     No moves yet.",
            "It is your turn. Reply to this mail with your move on the first line,",
        ),
        mail_to("bob", "New Cephalopod Board 101 alice", "alice challenged bob and carol to a new game."),
        mail_to("carol", "New Cephalopod Board 101 alice", "alice challenged bob and carol to a new game."),
    )


@specifies("GAME challenge", "GAME chall")
def test_a_refused_challenge_starts_no_board_and_takes_no_board_number(club: Club):
    club.say("carol", "cephalopod reject carol carol-pw", mail_to("carol", "Cephalopod challenges to carol"))
    for line, subject, reason in [
        ("cephalopod challenge alice nobody", "Cephalopod Error", "No player is signed up as nobody."),
        (
            "cephalopod chall bob carol",
            "Cephalopod Error",
            "You can only start a game you play in: the challenge must come from the registered address of one "
            "of bob, carol.",
        ),
        ("cephalopod chall alice alice", "Cephalopod Error", "Each player can take only one seat"),
        ("cephalopod challenge -size=12 alice bob", "PBeM Server Error", "The option -size=12 is out of range"),
        ("cephalopod challenge alice carol", "Cephalopod Invalid challenge", "carol takes no Cephalopod challenges."),
        ("cephalopod challenge", "PBeM Server Error", "Usage: cephalopod challenge [-options] USERID1 USERID2 [...]."),
    ]:
        club.refused("alice", line, subject, reason)
    club.say(
        "alice", "cephalopod games", mail_to("alice", "Cephalopod games", "Cephalopod games (active):\n\n    none")
    )
    club.say(
        "alice",
        "cephalopod challenge alice bob",
        mail_to("alice", "New Cephalopod Board 101 alice"),
        mail_to("bob", "New Cephalopod Board 101 alice"),
    )


@specifies("GAME join", "GAME games")
def test_join_takes_the_free_seat_of_an_open_challenge_and_the_game_begins(club: Club):
    club.say(
        "alice",
        "cephalopod challenge alice open",
        mail_to(
            "alice",
            "Open Cephalopod Board 101",
            "Cephalopod board 101 is an open challenge.\n\n    Seats, in order of play:  alice, (open)\n",
            "    cephalopod join 101 USERID PASSWORD",
        ),
    )
    open_before = club.look("bob", "cephalopod games open")
    assert "   101  " in open_before and "alice, (open)" in open_before
    for sender, line, subject, reason in [
        ("bob", "cephalopod join 102 bob bob-pw", "Cephalopod Board 102 Error", "board 102 is not an open challenge"),
        ("alice", "cephalopod join 101 alice alice-pw", "Cephalopod Board 101 Error", "alice has a seat at Cephalopod"),
        ("bob", "cephalopod join 101 bob wrong-pw", "Cephalopod Board 101 Error", "Wrong password for bob."),
        ("bob", "cephalopod join 101 bob", "PBeM Server Error", "Usage: cephalopod join BOARD USERID PASSWORD."),
    ]:
        club.refused(sender, line, subject, reason)
    assert club.look("bob", "cephalopod games open") == open_before
    club.say(
        "carol",
        "cephalopod join 101 carol carol-pw",
        mail_to(
            "alice",
            "New Cephalopod Board 101 alice",
            "carol joined alice's open challenge, and the game begins.",
            "     alice (Paren),  carol (Angle)",
            "It is your turn.",
        ),
        mail_to("carol", "New Cephalopod Board 101 alice", "carol joined alice's open challenge"),
    )
    club.refused(
        "bob",
        "cephalopod join 101 bob bob-pw",
        "Cephalopod Board 101 Error",
        "Cephalopod board 101 is not an open challenge (a game that began has no free seat)",
    )
    club.say("bob", "cephalopod games open", mail_to("bob", "Open Cephalopod challenges", "PASSWORD):\n\n    none"))


@specifies("GAME seek")
def test_seek_pairs_two_seekers_and_starts_their_game(club: Club):
    club.say(
        "carol",
        "cephalopod seek carol carol-pw 1",
        mail_to("carol", "Cephalopod seek of carol", "carol seeks 1 more Cephalopod game (any options),"),
    )
    for line, reason in [
        ("cephalopod seek bob bob-pw many", "'many' is not a number of games: write 0 to 20 (0 stops seeking)."),
        ("cephalopod seek bob bob-pw 21", "'21' is not a number of games: write 0 to 20"),
        ("cephalopod seek bob bob-pw -size=3", "Usage: cephalopod seek USERID PASSWORD [N] [-options]."),
    ]:
        club.refused("bob", line, "PBeM Server Error", reason)
    club.refused("bob", "cephalopod seek bob wrong-pw 1", "Cephalopod Error", "Wrong password for bob.")
    club.say("bob", "cephalopod seek bob bob-pw", mail_to("bob", "Cephalopod seek of bob", "bob seeks no Cephalopod"))
    club.say(
        "bob",
        "cephalopod seek bob bob-pw 1",
        mail_to(
            "carol",
            "New Cephalopod Board 101 carol",
            "The server paired carol and bob, who both seek Cephalopod games.",
        ),
        mail_to("bob", "New Cephalopod Board 101 carol", "The server paired carol and bob"),
        mail_to(
            "bob",
            "Cephalopod seek of bob",
            "Paired at once:\n    Cephalopod board 101 with carol",
            "bob seeks no Cephalopod games.",
        ),
    )
    club.say("carol", "cephalopod seek carol carol-pw", mail_to("carol", ".*", "carol seeks no Cephalopod games."))


# -- moving -----------------------------------------------------------------------------------


@specifies("GAME move", "GAME mvoe")
@pytest.mark.parametrize("verb", ["move", "mvoe"])
def test_move_plays_the_move_and_mails_the_board_to_every_player(board: Club, verb):
    board.say(
        "bob",
        f"cephalopod {verb} 101 bob bob-pw a1#2",
        mail_to(
            "alice",
            "Cephalopod Board 101 alice",
            "bob played a1.",
            "It is alice's turn (Paren).",
            "   1 c3        2 a1\n",
            "It is your turn. Reply to this mail with your move on the first line,",
        ),
        mail_to("bob", "Cephalopod Board 101 alice", "bob played a1.", "   1 c3        2 a1\n"),
    )


@specifies("GAME move")
def test_a_refused_move_leaves_the_board_as_it_was(board: Club):
    before = show_101(board)
    assert BOARD_101 in before
    for sender, line, subject, reason in [
        ("alice", "cephalopod move 101 alice alice-pw b2", "Cephalopod Board 101 Error", "It is not your turn: bob is"),
        ("bob", "cephalopod move 101 bob wrong-pw b2", "Cephalopod Board 101 Error", "Wrong password for bob."),
        ("bob", "cephalopod move 101 bob bob-pw z9", "Cephalopod Board 101 Error", "Illegal move: z9 is not on"),
        ("bob", "cephalopod mvoe 101 bob bob-pw c3", "Cephalopod Board 101 Error", "Illegal move"),
        (
            "bob",
            "cephalopod move 101 bob bob-pw b2#1",
            "Cephalopod Board 101 Error",
            "Stale move: this move was written for move 1, but the game is at move 2",
        ),
        ("carol", "cephalopod move 101 carol carol-pw b2", "Cephalopod Board 101 Error", "carol does not play in"),
        ("bob", "cephalopod move 999 bob bob-pw b2", "Cephalopod Board 999 Error", "There is no Cephalopod board 999."),
        ("bob", "cephalopod move 101 bob bob-pw", "PBeM Server Error", "Usage: cephalopod move BOARD USERID PASSWORD"),
    ]:
        board.refused(sender, line, subject, reason)
        assert show_101(board) == before, line


@specifies("GAME move")
def test_move_propose_asks_the_others_for_a_draw_once(board: Club):
    board.say(
        "alice",
        "cephalopod move 101 alice alice-pw propose",
        mail_to(
            "alice", "Cephalopod Board 101 bob", "alice proposes a draw.", "alice proposes a draw; still to vote: bob."
        ),
        mail_to("bob", "Cephalopod Board 101 bob", "Each answers with accept or reject"),
    )
    proposed = show_101(board)
    board.refused(
        "alice",
        "cephalopod move 101 alice alice-pw propose",
        "Cephalopod Board 101 Error",
        "A draw proposal is already waiting for votes at Cephalopod board 101: answer it with accept or reject first.",
    )
    assert show_101(board) == proposed


@specifies("GAME move")
def test_move_undo_asks_to_take_back_the_last_move_and_there_must_be_one(club: Club):
    club.say("alice", "cephalopod challenge alice bob", mail_to("alice", "New .*"), mail_to("bob", "New .*"))
    club.refused(
        "alice",
        "cephalopod move 101 alice alice-pw undo",
        "Cephalopod Board 101 Error",
        "There is no move to take back.",
    )
    club.say("alice", "cephalopod move 101 alice alice-pw c3", mail_to("alice", ".*"), mail_to("bob", ".*"))
    club.say(
        "alice",
        "cephalopod move 101 alice alice-pw undo",
        mail_to("alice", "Cephalopod Board 101 bob", "alice proposes to take back move 1 (c3); still to vote: bob."),
        mail_to("bob", "Cephalopod Board 101 bob", "alice proposes to take back move 1 (c3)."),
    )
    club.say(
        "bob",
        "cephalopod move 101 bob bob-pw accept",
        mail_to(
            "alice",
            "Cephalopod Board 101 alice",
            "alice took back move 1 (c3), as everyone agreed: UNDO successful.",
            "   1 c3\n   2 UNDO\n",
        ),
        mail_to("bob", "Cephalopod Board 101 alice", "UNDO successful"),
    )


@specifies("GAME accept", "GAME reject", "GAME move")
@pytest.mark.parametrize(
    ("line", "outcome", "first_line"),
    [
        ("cephalopod accept 101 bob bob-pw", "tie: alice and bob", "bob accepts alice's draw proposal."),
        ("cephalopod move 101 bob bob-pw accept", "tie: alice and bob", "bob accepts alice's draw proposal."),
        ("cephalopod reject 101 bob bob-pw", "bob", "bob rejects alice's draw proposal; the game goes on."),
        ("cephalopod move 101 bob bob-pw reject", "bob", "bob rejects alice's draw proposal; the game goes on."),
    ],
    ids=["accept", "move-accept", "reject", "move-reject"],
)
def test_accept_and_reject_at_a_board_vote_on_what_was_proposed_there(under_way: Club, line, outcome, first_line):
    board = under_way
    board.say("alice", "cephalopod move 101 alice alice-pw propose", mail_to("alice", ".*"), mail_to("bob", ".*"))
    board.say(
        "bob",
        line,
        mail_to("alice", f"Cephalopod Board 101 {outcome}", first_line),
        mail_to("bob", f"Cephalopod Board 101 {outcome}", first_line),
    )


@specifies("GAME accept", "GAME reject")
def test_a_vote_is_refused_with_nothing_proposed_from_the_proposer_twice_and_from_outsiders(club: Club):
    club.say(
        "alice",
        "cephalopod challenge alice bob carol",
        mail_to("alice", "New .*"),
        mail_to("bob", "New .*"),
        mail_to("carol", "New .*"),
    )
    club.refused(
        "bob",
        "cephalopod accept 101 bob bob-pw",
        "Cephalopod Board 101 Error",
        "Nothing is waiting for votes at Cephalopod board 101: nobody has proposed a draw or an undo.",
    )
    club.say(
        "alice",
        "cephalopod move 101 alice alice-pw propose",
        *(mail_to(userid, "Cephalopod Board 101 alice") for userid in ("alice", "bob", "carol")),
    )
    club.say(
        "bob",
        "cephalopod accept 101 bob bob-pw",
        *(
            mail_to(userid, "Cephalopod Board 101 alice", "still to vote: carol.")
            for userid in ("alice", "bob", "carol")
        ),
    )
    club.say("dave", "signup dave dave-pw", mail_to("dave", "Welcome .*"))
    waiting = show_101(club)
    for sender, line, reason in [
        ("alice", "cephalopod accept 101 alice alice-pw", "You proposed it: the draw proposal waits for the others'"),
        ("bob", "cephalopod accept 101 bob bob-pw", "You accepted it already: the draw proposal waits for the others'"),
        ("bob", "cephalopod reject 101 bob bob-pw", "You accepted it already"),
        ("dave", "cephalopod reject 101 dave dave-pw", "dave does not play in Cephalopod board 101."),
        ("carol", "cephalopod move 101 carol wrong-pw reject", "Wrong password for carol."),
    ]:
        club.refused(sender, line, "Cephalopod Board 101 Error", reason)
    assert show_101(club) == waiting


@specifies("GAME accept", "GAME reject")
def test_accept_and_reject_without_a_board_say_whether_a_player_takes_challenges(club: Club):
    club.say(
        "carol",
        "cephalopod reject carol carol-pw",
        mail_to(
            "carol",
            "Cephalopod challenges to carol",
            "carol takes no Cephalopod challenges.",
            "carol plays 0 Cephalopod games now.",
            "To change it:  cephalopod accept|reject carol PASSWORD",
        ),
    )
    club.refused("bob", "cephalopod challenge bob carol", "Cephalopod Invalid challenge", "carol takes no Cephalopod")
    for line, subject, reason in [
        ("cephalopod accept carol wrong-pw", "Cephalopod Error", "Wrong password for carol."),
        ("cephalopod accept nobody carol-pw", "Cephalopod Error", "There is no player 'nobody'"),
        ("cephalopod accept carol", "PBeM Server Error", "Usage: cephalopod accept USERID PASSWORD | BOARD USERID"),
    ]:
        club.refused("carol", line, subject, reason)
    club.refused("bob", "cephalopod challenge bob carol", "Cephalopod Invalid challenge", "carol takes no Cephalopod")
    club.say(
        "carol",
        "cephalopod accept carol carol-pw",
        mail_to(
            "carol", "Cephalopod challenges to carol", "carol takes Cephalopod challenges, with no limit on the games"
        ),
    )
    club.say("bob", "cephalopod challenge bob carol", mail_to("bob", "New .*"), mail_to("carol", "New .*"))


@specifies("GAME limit")
def test_limit_caps_the_games_a_player_plays_at_once(club: Club):
    club.say(
        "carol",
        "cephalopod limit carol carol-pw 1",
        mail_to("carol", "Cephalopod challenges to carol", "carol takes Cephalopod challenges, up to 1 game at once."),
    )
    club.say("bob", "cephalopod challenge bob carol", mail_to("bob", "New .*"), mail_to("carol", "New .*"))
    club.refused(
        "alice",
        "cephalopod challenge alice carol",
        "Cephalopod Invalid challenge",
        "carol plays 1 Cephalopod game, as many as carol takes at once.",
    )
    club.refused(
        "carol",
        "cephalopod limit carol carol-pw lots",
        "PBeM Server Error",
        "The last word is not a limit: write a number of games, or inf for none.",
    )
    club.refused("carol", "cephalopod limit carol wrong-pw inf", "Cephalopod Error", "Wrong password for carol.")
    club.say(
        "carol",
        "cephalopod limit carol carol-pw",
        mail_to(
            "carol", "Cephalopod challenges to carol", "up to 1 game at once.", "carol plays 1 Cephalopod game now."
        ),
    )
    club.say(
        "carol",
        "cephalopod limit carol carol-pw inf",
        mail_to("carol", "Cephalopod challenges to carol", "with no limit on the games at once."),
    )
    club.say("alice", "cephalopod challenge alice carol", mail_to("alice", "New .*"), mail_to("carol", "New .*"))


# -- moves ahead of time, and moves tried first ---------------------------------------------


@specifies("GAME queue", "GAME qmove", "GAME moveq", "GAME qboard", "GAME boardq")
@pytest.mark.parametrize("verb", ["queue", "qmove", "moveq", "qboard", "boardq"])
def test_queue_plays_a_move_for_its_player_when_the_turn_comes(board: Club, verb):
    board.say(
        "alice",
        f"cephalopod {verb} 101 alice alice-pw e5",
        mail_to(
            "alice",
            "Cephalopod Board 101 queue",
            "Queued for alice at Cephalopod board 101:\n    e5\n",
            "    cephalopod queue 101 alice PASSWORD off",
        ),
    )
    board.say(
        "alice",
        f"cephalopod {verb} 101 alice alice-pw",
        mail_to("alice", "Cephalopod Board 101 queue", "alice has queued at Cephalopod board 101:\n    e5\n"),
    )
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw a1",
        mail_to("alice", "Cephalopod Board 101 alice", "bob played a1."),
        mail_to("bob", "Cephalopod Board 101 alice", "bob played a1."),
        mail_to("alice", "Cephalopod Board 101 bob", "alice played e5 (Auto)."),
        mail_to("bob", "Cephalopod Board 101 bob", "alice played e5 (Auto).", "   3 e5 (Auto)"),
    )


@specifies("GAME queue", "GAME moveq", "GAME qboard")
def test_a_queue_with_conditions_answers_the_move_played_and_off_forgets_a_queue(board: Club):
    board.say(
        "alice",
        "cephalopod qboard 101 alice alice-pw if a1 then e5; else a5",
        mail_to(
            "alice", "Cephalopod Board 101 queue", "Queued for alice at Cephalopod board 101:\n    if a1 then e5\n"
        ),
    )
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw b1",
        mail_to("alice", "Cephalopod Board 101 alice", "bob played b1."),
        mail_to("bob", "Cephalopod Board 101 alice"),
        mail_to("alice", "Cephalopod Board 101 bob", "alice played a5 (Auto)."),
        mail_to("bob", "Cephalopod Board 101 bob", "alice played a5 (Auto)."),
    )
    board.say("alice", "cephalopod queue 101 alice alice-pw e5", mail_to("alice", "Cephalopod Board 101 queue"))
    board.say(
        "alice",
        "cephalopod moveq 101 alice alice-pw off",
        mail_to("alice", "Cephalopod Board 101 queue", "alice's queue at Cephalopod board 101 is cleared."),
    )
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw d1",
        mail_to("alice", "Cephalopod Board 101 alice", "bob played d1."),
        mail_to("bob", "Cephalopod Board 101 alice", "bob played d1."),
    )


@specifies("GAME queue", "GAME qmove", "GAME moveq", "GAME qboard", "GAME boardq")
def test_a_refused_queue_keeps_the_queue_there_was(board: Club):
    board.say("alice", "cephalopod queue 101 alice alice-pw e5", mail_to("alice", "Cephalopod Board 101 queue"))
    for sender, line, reason in [
        ("carol", "cephalopod queue 101 carol carol-pw a5", "carol does not play in Cephalopod board 101."),
        ("carol", "cephalopod moveq 101 carol carol-pw off", "carol does not play in Cephalopod board 101."),
        ("alice", "cephalopod qmove 101 alice wrong-pw a5", "Wrong password for alice."),
        ("alice", "cephalopod qboard 101 alice alice-pw if a1 then z9", "After 'if a1', 'z9' would be illegal"),
        ("alice", "cephalopod boardq 101 alice alice-pw if z9 then a5", "Illegal move: z9 is not on the board"),
        (
            "bob",
            "cephalopod qmove 101 bob bob-pw if b2 then a1",
            "It is your turn already, so there are no moves of the others to wait for",
        ),
    ]:
        board.refused(sender, line, "Cephalopod Board 101 Error", reason)
    board.say(
        "alice",
        "cephalopod queue 101 alice alice-pw",
        mail_to("alice", "Cephalopod Board 101 queue", "alice has queued at Cephalopod board 101:\n    e5\n"),
    )


@specifies("GAME submit", "GAME confirm")
def test_submit_shows_a_move_to_its_player_alone_and_confirm_plays_it(board: Club):
    before = show_101(board)
    board.say(
        "bob",
        "cephalopod submit 101 bob bob-pw a1",
        mail_to(
            "bob",
            "Cephalopod Board 101 preview",
            "This is how the board looks after your move a1, but nothing has\nbeen played yet. To make it count, "
            "send:\n\n    cephalopod confirm 101 bob PASSWORD",
            "   2 bob: a1",
            "Then alice would be to move.",
        ),
    )
    assert show_101(board) == before
    board.say(
        "bob",
        "cephalopod confirm 101 bob bob-pw",
        mail_to("alice", "Cephalopod Board 101 alice", "bob played a1.", "   1 c3        2 a1\n"),
        mail_to("bob", "Cephalopod Board 101 alice", "bob played a1."),
    )


@specifies("GAME submit", "GAME confirm")
def test_submit_and_confirm_refuse_what_move_refuses_and_a_confirm_with_nothing_submitted(board: Club):
    before = show_101(board)
    for sender, line, subject, reason in [
        ("bob", "cephalopod confirm 101 bob bob-pw", "Cephalopod Board 101 Error", "bob has no move submitted at this"),
        ("alice", "cephalopod submit 101 alice alice-pw b2", "Cephalopod Board 101 Error", "It is not your turn"),
        ("bob", "cephalopod submit 101 bob bob-pw z9", "Cephalopod Board 101 Error", "Illegal move: z9 is not on"),
        ("bob", "cephalopod submit 101 bob wrong-pw a1", "Cephalopod Board 101 Error", "Wrong password for bob."),
        ("bob", "cephalopod confirm 101 bob wrong-pw", "Cephalopod Board 101 Error", "Wrong password for bob."),
        ("bob", "cephalopod submit 101 bob bob-pw", "PBeM Server Error", "Usage: cephalopod submit BOARD USERID"),
    ]:
        board.refused(sender, line, subject, reason)
    assert show_101(board) == before


@specifies("GAME preview", "GAME prev")
@pytest.mark.parametrize("verb", ["preview", "prev"])
def test_preview_plays_moves_on_a_copy_for_anyone_and_saves_nothing(board: Club, verb):
    before = show_101(board)
    board.say(
        "carol",
        f"cephalopod {verb} 101 a1 e5",
        mail_to(
            "carol",
            "Cephalopod Board 101 preview",
            "A preview: these moves were played on a copy of Cephalopod board 101; nothing was saved.",
            "   2 bob: a1\n   3 alice: e5\n",
            "Then bob would be to move.",
        ),
    )
    board.say(
        "carol",
        f"cephalopod {verb} 101#0 b2",
        mail_to("carol", "Cephalopod Board 101 preview", "   1 alice: b2\n", "Then bob would be to move."),
    )
    board.say(
        "carol",
        f"cephalopod {verb} new 3 -size=3 a1",
        mail_to(
            "carol",
            "Cephalopod preview",
            "A preview: these moves were played on a copy of a new game; nothing was saved.",
            "   1 Paren: a1\n",
            "Then Angle would be to move.",
        ),
    )
    assert show_101(board) == before


@specifies("GAME preview", "GAME prev")
def test_preview_refuses_an_illegal_move_and_a_board_there_is_not(board: Club):
    for line, subject, reason in [
        (
            "cephalopod preview 101 z9",
            "Cephalopod Error",
            "Illegal move: z9 is not on the board; it runs from a1 to e5",
        ),
        ("cephalopod prev 101 a1 a1", "Cephalopod Error", "Illegal move"),
        ("cephalopod preview 999 a1", "Cephalopod Error", "There is no Cephalopod board 999."),
        ("cephalopod prev 101", "PBeM Server Error", "Usage: cephalopod preview BOARD[#N] MOVE..."),
    ]:
        board.refused("carol", line, subject, reason)


@specifies("GAME show", "GAME preview")
@pytest.mark.parametrize("line", ["cephalopod show 101#9", "cephalopod preview 101#9 a1"])
def test_a_move_number_past_the_last_move_is_refused_in_good_english(board: Club, line):
    board.refused("carol", line, "Cephalopod Error", "Cephalopod board 101 has 1 move, not 9.")


@specifies("GAME pass", "GAME swap")
@pytest.mark.parametrize(
    ("verb", "reason"),
    [
        ("pass", "Cephalopod does not allow passing: every turn must be played."),
        ("swap", "Cephalopod has no swap: the first player named in the challenge moves first."),
    ],
)
def test_pass_and_swap_are_pbmserv_words_no_game_here_allows(board: Club, verb, reason):
    """No game here has them: each is a refusal, whoever sends it, and the turn stays where it was."""
    before = show_101(board)
    board.refused("bob", f"cephalopod {verb} 101 bob bob-pw", "Cephalopod Error", reason)
    board.refused("alice", f"cephalopod {verb} 101 alice alice-pw", "Cephalopod Error", reason)
    assert show_101(board) == before


# -- talking at a board, and watching one ---------------------------------------------------


@specifies("GAME chat")
def test_chat_mails_the_text_below_it_to_the_boards_players_without_moving(board: Club):
    before = show_101(board)
    board.say(
        "alice",
        "cephalopod chat 101 alice alice-pw\n\nGood luck!",
        mail_to(
            "bob",
            "Cephalopod chat 101 alice",
            "alice writes about Cephalopod board 101:\n\nGood luck!",
            "It is your turn: reply to this mail with your move on the first line.",
        ),
        mail_to("alice", "Cephalopod chat 101 alice", "Good luck!"),
    )
    for sender, line, reason in [
        ("carol", "cephalopod chat 101 carol carol-pw\n\nHi", "carol does not play in Cephalopod board 101."),
        ("alice", "cephalopod chat 101 alice wrong-pw\n\nHi", "Wrong password for alice."),
    ]:
        board.refused(sender, line, "Cephalopod Board 101 Error", reason)
    board.refused(
        "alice", "cephalopod chat 999 alice alice-pw\n\nHi", "Cephalopod Board 999 Error", "There is no Cephalopod"
    )
    assert show_101(board) == before


@specifies("GAME subscribe")
def test_subscribe_sends_a_watcher_every_board_mail_of_a_board_or_of_every_new_game(board: Club):
    board.say(
        "carol",
        "cephalopod subscribe 101 carol carol-pw",
        mail_to(
            "carol",
            "Watching Cephalopod Board 101",
            "carol now watches Cephalopod board 101: every board mail of it comes here",
            "To stop:  cephalopod unsubscribe 101 carol PASSWORD",
        ),
    )
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw a1",
        mail_to("alice", "Cephalopod Board 101 alice"),
        mail_to("bob", "Cephalopod Board 101 alice"),
        mail_to("carol", "Cephalopod Board 101 alice", "bob played a1.", "   1 c3        2 a1\n"),
    )
    board.say(
        "carol",
        "cephalopod subscribe carol carol-pw all",
        mail_to("carol", "Watching new Cephalopod games", "carol now watches every Cephalopod game that starts"),
    )
    board.say(
        "alice",
        "cephalopod challenge alice bob",
        mail_to("alice", "New Cephalopod Board 102 alice"),
        mail_to("bob", "New Cephalopod Board 102 alice"),
        mail_to("carol", "New Cephalopod Board 102 alice", "alice challenged bob to a new game."),
    )


@specifies("GAME subscribe")
def test_subscribe_refuses_a_player_of_the_board_a_watcher_already_and_a_board_there_is_not(board: Club):
    board.say("carol", "cephalopod subscribe 101 carol carol-pw", mail_to("carol", "Watching Cephalopod Board 101"))
    for sender, line, reason in [
        ("alice", "cephalopod subscribe 101 alice alice-pw", "alice plays at Cephalopod board 101, and gets its mails"),
        ("carol", "cephalopod subscribe 101 carol carol-pw", "carol watches Cephalopod board 101 already."),
        ("carol", "cephalopod subscribe 999 carol carol-pw", "There is no Cephalopod board 999."),
        ("carol", "cephalopod subscribe 101 carol wrong-pw", "Wrong password for carol."),
    ]:
        board.refused(sender, line, "Cephalopod Error", reason)
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw a1",
        mail_to("alice", "Cephalopod Board 101 alice"),
        mail_to("bob", "Cephalopod Board 101 alice"),
        mail_to("carol", "Cephalopod Board 101 alice"),
    )


@specifies("GAME unsubscribe", "GAME unsub")
@pytest.mark.parametrize("verb", ["unsubscribe", "unsub"])
def test_unsubscribe_stops_the_board_mails_and_refuses_what_is_not_watched(board: Club, verb):
    board.say("carol", "cephalopod subscribe 101 carol carol-pw", mail_to("carol", "Watching Cephalopod Board 101"))
    board.say(
        "carol",
        f"cephalopod {verb} 101 carol carol-pw",
        mail_to("carol", "No longer watching Cephalopod Board 101", "carol no longer watches Cephalopod board 101."),
    )
    board.refused(
        "carol",
        f"cephalopod {verb} 101 carol carol-pw",
        "Cephalopod Error",
        "carol does not watch Cephalopod board 101.",
    )
    board.refused(
        "carol",
        f"cephalopod {verb} carol carol-pw all",
        "Cephalopod Error",
        "carol does not watch every new Cephalopod",
    )
    board.say(
        "bob",
        "cephalopod move 101 bob bob-pw a1",
        mail_to("alice", "Cephalopod Board 101 alice"),
        mail_to("bob", "Cephalopod Board 101 alice"),
    )


@specifies("GAME notify")
def test_notify_mails_a_notice_when_a_board_ends(board: Club):
    board.say(
        "carol",
        "cephalopod notify carol carol-pw 101",
        mail_to(
            "carol",
            "Cephalopod notices for carol",
            "carol will be told when Cephalopod board 101 ends.",
            "To stop:  cephalopod notify carol PASSWORD off",
        ),
    )
    bob_wins_101(
        board,
        mail_to(
            "carol",
            "Cephalopod Board 101 is over: won by bob",
            "bob won when alice resigned.",
            "You asked to hear when it ended.",
        ),
    )
    board.say(
        "carol",
        "cephalopod notify carol carol-pw",
        mail_to("carol", "Cephalopod notices for carol", "carol will be told when any Cephalopod game ends."),
    )
    board.say(
        "carol",
        "cephalopod notify carol carol-pw off",
        mail_to("carol", "Cephalopod notices for carol", "carol will no longer be told when Cephalopod games end."),
    )


@specifies("GAME notify")
def test_a_refused_notify_asks_for_no_notice(board: Club):
    for line, reason in [
        ("cephalopod notify carol carol-pw 101 999", "There is no Cephalopod board 999."),
        ("cephalopod notify carol wrong-pw 101", "Wrong password for carol."),
    ]:
        board.refused("carol", line, "Cephalopod Error", reason)
    board.refused("carol", "cephalopod notify carol", "PBeM Server Error", "Usage: cephalopod notify USERID PASSWORD")
    bob_wins_101(board)


@specifies("GAME notify")
def test_notify_off_does_not_tell_how_to_stop_what_just_stopped(board: Club):
    (told,) = board.say(
        "carol",
        "cephalopod notify carol carol-pw off",
        mail_to("carol", "Cephalopod notices for carol", "carol will no longer be told"),
    )
    assert "To stop:" not in body_of(told)


# -- looking at boards and games ------------------------------------------------------------


@specifies("GAME show", "GAME board")
@pytest.mark.parametrize("verb", ["show", "board"])
def test_show_mails_a_board_as_it_stands_or_after_a_move_or_a_players_games(board: Club, verb):
    board.say(
        "carol",
        f"cephalopod {verb} 101",
        mail_to("carol", "Cephalopod Board 101 bob", "Summary of Cephalopod Board 101\n\n" + BOARD_101),
    )
    board.say(
        "alice",
        f"cephalopod {verb} 101#1",
        mail_to("alice", "Cephalopod Board 101 after move 1", "This is the board after move 1."),
    )
    board.say("bob", "cephalopod show board 101", mail_to("bob", "Cephalopod Board 101 bob", "It is your turn."))
    board.say(
        "carol",
        f"cephalopod {verb} alice",
        mail_to("carol", "Cephalopod games", "Cephalopod games of alice (active):", "   101     1  active     bob"),
    )


@specifies("GAME show", "GAME board")
def test_show_refuses_a_board_there_is_not_and_a_line_without_a_board(board: Club):
    for line, subject, reason in [
        ("cephalopod show 999", "Cephalopod Error", "There is no Cephalopod board 999."),
        ("cephalopod board 999", "Cephalopod Error", "There is no Cephalopod board 999."),
        ("cephalopod show nobody", "Cephalopod Error", "No player is signed up as nobody."),
        ("cephalopod show", "PBeM Server Error", "Usage: cephalopod show BOARD[#N] [BOARD...] | USERID"),
    ]:
        board.refused("carol", line, subject, reason)


@specifies("GAME showas")
def test_showas_mails_the_board_as_show_does_these_games_hiding_nothing(board: Club):
    board.say(
        "carol",
        "cephalopod showas 101 bob",
        mail_to("carol", "Cephalopod Board 101 bob", "Summary of Cephalopod Board 101\n\n" + BOARD_101),
    )
    board.refused("carol", "cephalopod showas 999 bob", "Cephalopod Error", "There is no Cephalopod board 999.")
    board.refused("carol", "cephalopod showas 101", "PBeM Server Error", "Usage: cephalopod showas BOARD[#N] USERID.")
    board.refused("carol", "cephalopod showas 101 b@d", "PBeM Server Error", "'b@d' is not a userid")


@specifies("GAME showas")
def test_showas_refuses_a_userid_nobody_signed_up_as(board: Club):
    board.refused("carol", "cephalopod showas 101 nobody", "Cephalopod Error", "No player is signed up as nobody.")


@specifies("GAME games")
def test_games_lists_the_boards_of_a_game_of_players_or_waiting_for_them(board: Club):
    board.say(
        "carol",
        "cephalopod games",
        mail_to(
            "carol",
            "Cephalopod games",
            "Cephalopod games (active):\n\n Board  Move  Status     To move       Players\n"
            "   101     1  active     bob           alice, bob\n",
        ),
    )
    board.say("carol", "cephalopod games bob next", mail_to("carol", "Cephalopod games", "of bob (next):", "   101  "))
    board.say("carol", "cephalopod games alice next", mail_to("carol", "Cephalopod games", "(next):\n\n    none"))
    board.say("carol", "cephalopod games carol all", mail_to("carol", "Cephalopod games", "(all):\n\n    none"))
    board.refused("carol", "cephalopod games nobody", "Cephalopod Error", "No player is signed up as nobody.")
    board.refused("carol", "cephalopod games alice lately", "Cephalopod Error", "No player is signed up as lately.")


# -- ending games, and what is left of them ------------------------------------------------


@specifies("GAME resign", "GAME abandon")
@pytest.mark.parametrize("verb", ["resign", "abandon"])
def test_resign_ends_the_game_and_in_the_first_round_calls_it_off(board: Club, verb):
    board.say("bob", "cephalopod move 101 bob bob-pw a1", mail_to("alice", ".*"), mail_to("bob", ".*"))
    board.say(
        "alice",
        f"cephalopod {verb} 101 alice alice-pw",
        mail_to(
            "alice",
            "Cephalopod Board 101 won by bob",
            "alice resigned.",
            "bob won when alice resigned.",
            "alice's rating is 1584 (provisional).",
        ),
        mail_to("bob", "Cephalopod Board 101 won by bob", "bob's rating is 1616 (provisional)."),
    )
    board.say("carol", "cephalopod challenge carol alice", mail_to("carol", "New .*"), mail_to("alice", "New .*"))
    board.say(
        "alice",
        "cephalopod resign 102 alice alice-pw",
        mail_to(
            "alice", "Cephalopod Board 102 cancelled", "The game was cancelled: alice resigned in the first round."
        ),
        mail_to("carol", "Cephalopod Board 102 cancelled", "The game was cancelled"),
    )


@specifies("GAME resign")
def test_resign_refuses_an_outsider_a_wrong_password_and_a_game_that_is_over(board: Club):
    before = show_101(board)
    for sender, line, reason in [
        ("carol", "cephalopod resign 101 carol carol-pw", "carol does not play in Cephalopod board 101."),
        ("bob", "cephalopod resign 101 bob wrong-pw", "Wrong password for bob."),
    ]:
        board.refused(sender, line, "Cephalopod Board 101 Error", reason)
    assert show_101(board) == before
    bob_wins_101(board)
    for sender, line in [
        ("alice", "cephalopod resign 101 alice alice-pw"),
        ("bob", "cephalopod move 101 bob bob-pw e5"),
    ]:
        board.refused(
            sender, line, "Cephalopod Board 101 Error", "Cephalopod board 101 is over. bob won when alice resigned."
        )


@specifies("GAME history")
def test_history_lists_the_finished_games_newest_first_of_everyone_or_of_players(board: Club):
    board.say("alice", "cephalopod history", mail_to("alice", "Cephalopod history", "newest first:\n\n    none yet"))
    bob_wins_101(board)
    board.say(
        "carol",
        "cephalopod history",
        mail_to(
            "carol",
            "Cephalopod history",
            "Finished Cephalopod games, newest first:\n\n Board  Moves  Ended       Players     Result\n",
            "   101      3  ",
            "  alice, bob  bob won when alice resigned\n",
        ),
    )
    board.say(
        "carol",
        "cephalopod history alice",
        mail_to("carol", "Cephalopod history", "Finished Cephalopod games of alice, newest first:", "bob won when"),
    )
    board.say("carol", "cephalopod history carol", mail_to("carol", ".*", "of carol, newest first:\n\n    none yet"))
    board.refused("carol", "cephalopod history nobody", "Cephalopod Error", "No player is signed up as nobody.")


@specifies("GAME standings", "GAME ratings")
@pytest.mark.parametrize("verb", ["standings", "ratings"])
def test_standings_mail_every_players_rating_and_take_no_words_after_them(board: Club, verb):
    bob_wins_101(board)
    board.say(
        "carol",
        f"cephalopod {verb}",
        mail_to(
            "carol",
            "Cephalopod standings",
            "Provisional\n Rank  Player            Rating  Games  Won  Lost  Drawn  Active/Limit  Seeking\n",
            "    1  bob                 1616      1    1     0      0",
            "    2  alice               1584      1    0     1      0",
        ),
    )
    board.refused("carol", f"cephalopod {verb} alice", "PBeM Server Error", "Usage: cephalopod standings.")


# -- the index ------------------------------------------------------------------------------


def test_every_verb_and_alias_of_the_language_is_specified_here():
    """Every name the verb table knows (``GAME ...`` for a game's) is named by a test of this module."""
    names = {name for verb in verbs.ACCOUNT_VERBS for name in (verb.name, *verb.aliases)} | {
        f"GAME {name}" for verb in verbs.GAME_VERBS for name in (verb.name, *verb.aliases)
    }
    specified = {name for test in list(globals().values()) for name in getattr(test, "specifies", ())}
    assert names - specified == set(), "verbs without a specification here"
    assert specified - names == set(), "names here that are no verb"
