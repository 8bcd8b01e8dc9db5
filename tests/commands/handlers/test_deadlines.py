"""``deadlines USERID`` (`pbm.commands.queries.deadlines`): the player's games of every kind waiting for
their move, the one they would forfeit soonest first, each with the time left and when it runs out,
said in the reader's language and on the reader's clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from pbm.commands import play, queries
from pbm.mail.compose import Composer
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.words import Words
from pbm.words.templating import Templates
from tests.commands.handlers.conftest import Desk

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)


def written(mail, language: str, zone: str | None = None) -> str:
    """The body `mail` is sent with, in `language`, its dates on the wall clock of `zone`."""
    composer = Composer(Templates(), Addressing("pbm@example.org"), ReplyTokens(b"k" * 32), b"t" * 32)
    return composer.render(mail.template, mail.context, language, zone)[1]


def three_games_waiting_for_alice(desk: Desk) -> None:
    """Boards 101 to 103, alice to move, forfeited after 10, 2 and 5 days; board 104, bob to move."""
    desk.sign_up("alice", "bob")
    for days in (10, 2, 5):
        desk.run(play.challenge, f"cephalopod challenge --forfeittime={days} alice bob", sender="alice")
    desk.run(play.challenge, "cephalopod challenge --forfeittime=1 bob alice", sender="bob")


def test_the_games_waiting_for_the_player_come_soonest_forfeit_first_with_their_time_left(desk: Desk):
    three_games_waiting_for_alice(desk)
    desk.clock.advance(hours=6)
    (mail,) = desk.run(queries.deadlines, "deadlines alice", sender="stranger@example.net")
    assert (mail.template, mail.to) == ("deadlines", "stranger@example.net")
    listed = mail.context["games"]
    assert [due.game.board for due in listed] == [102, 103, 101], "board 104 waits for bob, not alice"
    assert [due.forfeit_at - NOW for due in listed] == [timedelta(days=2), timedelta(days=5), timedelta(days=10)]
    assert [due.left for due in listed] == [
        timedelta(days=2, hours=-6),
        timedelta(days=5, hours=-6),
        timedelta(days=10, hours=-6),
    ]


def test_the_mail_says_each_deadline_in_the_readers_language_and_on_their_clock(desk: Desk):
    three_games_waiting_for_alice(desk)
    (mail,) = desk.run(queries.deadlines, "deadlines alice", sender="alice")
    soonest = NOW + timedelta(days=2)
    english = written(mail, "en")
    assert english.index("cephalopod 102: 2 days left, until 2026-11-24 12:00 UTC") < english.index("cephalopod 103:")
    french = written(mail, "fr", "Europe/Paris")
    paris = Words("fr", zone="Europe/Paris")
    line = f"cephalopod 102\u202f: reste {paris.duration(timedelta(days=2))}, jusqu’au {paris.moment(soonest)}"
    assert french.index(line) < french.index("cephalopod 103\u202f:")
    assert "13:00" in paris.moment(soonest), "Paris is an hour ahead of UTC in November"
    assert "cephalopod 104" not in english + french


def test_a_player_with_no_game_waiting_is_told_so_and_an_unknown_one_is_refused(desk: Desk):
    desk.sign_up("carol")
    (mail,) = desk.run(queries.deadlines, "deadlines carol", sender="carol")
    assert mail.context["games"] == []
    assert "none" in written(mail, "en")
    assert desk.code(queries.deadlines, "deadlines nobody", sender="carol") == "no-player-signed-up"
