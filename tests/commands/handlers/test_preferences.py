"""``timezone`` and ``quiet`` (`pbm.commands.preferences`): what each keeps for the player, what
its answer says, and each refusal by its code."""

from __future__ import annotations

from datetime import datetime, time, timezone
from zoneinfo import ZoneInfo

import pytest

from pbm.commands import preferences
from pbm.commands.language import CommandError
from pbm.commands.verbs import parse_command
from pbm.facts import Fact
from pbm.store import preferences as stored
from pbm.timekeeping.local_time import LocalHours
from tests.commands.handlers.conftest import Desk


def test_timezone_keeps_the_zone_and_answers_with_its_time_now(desk: Desk):
    desk.sign_up("alice")
    (answer,) = desk.run(preferences.timezone, "timezone alice alice-pw america/new_york", sender="alice")
    assert desk.player("alice").time_zone == "America/New_York"
    assert answer.to == "alice@example.org" and answer.template == "mail_preferences"
    assert answer.context["news"] == Fact("zone-now", userid="alice", zone="America/New_York")
    # 12:00 UTC on 22 November is 07:00 in New York (EST, UTC-5): said on New York's clock, whoever reads it.
    zone_line = answer.context["standing"][0]
    now = datetime(2026, 11, 22, 7, 0, tzinfo=ZoneInfo("America/New_York"))
    assert zone_line == Fact("zone-is", userid="alice", zone="America/New_York", now=now)
    assert zone_line["now"].tzinfo == now.tzinfo


def test_timezone_without_a_zone_says_which_it_is_and_changes_nothing(desk: Desk):
    desk.sign_up("alice")
    (answer,) = desk.run(preferences.timezone, "timezone alice alice-pw", sender="alice")
    assert answer.context["news"] is None
    assert answer.context["standing"][0]["zone"] == "UTC"
    assert desk.player("alice").time_zone is None


@pytest.mark.parametrize("word", ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "Europe/Paris/../x", "x" * 500])
def test_a_word_that_names_no_zone_is_refused_by_the_parser(word: str):
    with pytest.raises(CommandError) as refused:
        parse_command(f"timezone alice alice-pw {word}")
    assert refused.value.fact == Fact("not-a-zone", word=word)


def test_quiet_keeps_the_hours_and_off_ends_them(desk: Desk):
    desk.sign_up("alice")
    (answer,) = desk.run(preferences.quiet, "quiet alice alice-pw 22:00-7:30", sender="alice")
    assert stored.quiet_hours(desk.player("alice")) == LocalHours(time(22), time(7, 30))
    assert answer.context["news"] == Fact("quiet-hours-now", userid="alice", hours="22:00-07:30")
    assert answer.context["standing"][1] == Fact("quiet-hours-are", userid="alice", hours="22:00-07:30", zone="UTC")
    (ended,) = desk.run(preferences.quiet, "quiet alice alice-pw off", sender="alice")
    assert stored.quiet_hours(desk.player("alice")) is None
    assert ended.context["news"] == Fact("quiet-hours-ended", userid="alice")
    assert desk.code(preferences.quiet, "quiet alice alice-pw off", sender="alice") == "no-quiet-hours-to-end"


@pytest.mark.parametrize("word", ["22:00-22:00", "25:00-07:00", "22-07", "22:00", "22:00-07:60", "now"])
def test_hours_that_are_no_span_of_the_day_are_refused_by_the_parser(word: str):
    with pytest.raises(CommandError) as refused:
        parse_command(f"quiet alice alice-pw {word}")
    assert refused.value.fact.code in ("not-local-hours", "usage")


def test_a_wrong_password_changes_nothing(desk: Desk):
    desk.sign_up("alice")
    assert desk.code(preferences.quiet, "quiet alice wrong 22:00-07:00", sender="alice") == "wrong-password"
    assert desk.code(preferences.timezone, "timezone alice wrong Asia/Tokyo", sender="alice") == "wrong-password"
    player = desk.player("alice")
    assert (player.quiet_from, player.time_zone) == (None, None)


def test_digest_keeps_the_times_and_the_next_is_due_at_the_first_of_them_on_the_players_clock(desk: Desk):
    desk.sign_up("alice")
    desk.run(preferences.timezone, "timezone alice alice-pw Asia/Tokyo", sender="alice")
    (answer,) = desk.run(preferences.digest, "digest alice alice-pw 19:00,7:30", sender="alice")
    player = desk.player("alice")
    assert player.digest_times == "07:30,19:00"
    # 12:00 UTC on 22 November is 21:00 in Tokyo: the next is 07:30 there, 22:30 UTC.
    assert player.digest_due_at == datetime(2026, 11, 22, 22, 30, tzinfo=timezone.utc)
    assert answer.context["news"] == Fact(
        "digest-now",
        userid="alice",
        times="07:30,19:00",
        zone="Asia/Tokyo",
        next=datetime(2026, 11, 23, 7, 30, tzinfo=ZoneInfo("Asia/Tokyo")),
    )


def test_a_new_zone_moves_the_next_digest_to_its_clock(desk: Desk):
    desk.sign_up("alice")
    desk.run(preferences.digest, "digest alice alice-pw 07:30", sender="alice")
    assert desk.player("alice").digest_due_at == datetime(2026, 11, 23, 7, 30, tzinfo=timezone.utc)
    desk.run(preferences.timezone, "timezone alice alice-pw America/New_York", sender="alice")
    # 12:00 UTC is 07:00 in New York: its 07:30 comes today, at 12:30 UTC.
    assert desk.player("alice").digest_due_at == datetime(2026, 11, 22, 12, 30, tzinfo=timezone.utc)


def test_digest_off_ends_them_and_again_is_refused(desk: Desk):
    desk.sign_up("alice")
    desk.run(preferences.digest, "digest alice alice-pw 07:30", sender="alice")
    (ended,) = desk.run(preferences.digest, "digest alice alice-pw off", sender="alice")
    assert ended.context["news"] == Fact("digest-ended", userid="alice")
    assert (desk.player("alice").digest_times, desk.player("alice").digest_due_at) == (None, None)
    assert desk.code(preferences.digest, "digest alice alice-pw off", sender="alice") == "no-digest-to-end"


@pytest.mark.parametrize("word", ["7h", "07:30;19:00", "1:00,2:00,3:00,4:00,5:00,6:00,7:00", "24:00"])
def test_words_that_are_no_times_of_day_are_refused_by_the_parser(word: str):
    with pytest.raises(CommandError) as refused:
        parse_command(f"digest alice alice-pw {word}")
    assert refused.value.fact.code == "not-digest-times"


def test_games_next_lists_the_game_forfeited_soonest_first(desk: Desk):
    from pbm.commands import accounts, play, queries

    desk.sign_up("alice", "bob")
    desk.run(play.challenge, "cephalopod challenge --forfeittime=10 alice bob", sender="alice")
    desk.run(play.challenge, "cephalopod challenge --forfeittime=2 alice bob", sender="alice")
    desk.run(play.challenge, "cephalopod challenge --forfeittime=5 alice bob", sender="alice")
    (listed,) = desk.run(queries.games, "cephalopod games alice next", sender="alice")
    assert [game.board for game in listed.context["games"]] == [102, 103, 101]
    (every,) = desk.run(accounts.all_games, "all show alice next", sender="alice")
    assert [game.board for game in every.context["games"]] == [102, 103, 101]
