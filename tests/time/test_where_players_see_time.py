"""Time on the pages: the game page's wait, deadline and clocks; the player page's urgent games;
the iCalendar feed of a player's deadlines."""

import icalendar
import pytest
from starlette.testclient import TestClient

from tests.support import body_of
from tests.time.club import ADDRESSES, TimeClub


@pytest.fixture
def web(club: TimeClub):
    with TestClient(club.room.server.web) as client:
        yield client


def test_the_game_page_shows_the_wait_the_deadline_and_the_rules(game: TimeClub, web):
    game.tick(days=3)
    page = web.get("/cephalopod/101").text
    assert "Waiting for bob's move for 3 days" in page
    assert 'datetime="2026-12-13T12:00:00+00:00"' in page
    assert "forfeit after 21 days" in page
    assert "--nagtime=7 --forfeittime=21" in page


def test_the_game_page_shows_each_clock(club: TimeClub, web):
    club.send("alice", "cephalopod challenge --clock=2+1/3 alice bob")
    club.tick(hours=5)
    page = web.get("/cephalopod/101").text
    assert '<table class="clocks">' in page
    assert "1 day 19 hours" in page  # alice's bank, running


def test_the_move_list_of_the_page_shows_forfeits_and_vacations(game: TimeClub, web):
    game.send("bob", "vacation bob bob-pw now 2d")
    game.tick(minutes=1)
    assert "bob is away until 2026-11-24 12:00 UTC" in web.get("/cephalopod/101").text
    game.tick(days=23)
    page = web.get("/cephalopod/101").text
    assert "<code>Forfeit</code>" in page
    assert "bob is back from vacation" in page


def test_the_player_page_lists_the_games_waiting_for_the_player_most_urgent_first(club: TimeClub, web):
    club.send("alice", "cephalopod challenge bob alice")
    club.tick(days=2)
    club.send("alice", "cephalopod challenge --forfeittime=10 bob alice")
    club.send("bob", "vacation bob bob-pw 2026-12-20 2026-12-24")
    page = web.get("/players/bob").text
    first, second = page.index('href="/cephalopod/102"'), page.index('href="/cephalopod/101"')
    assert first < second  # board 102 forfeits on 2026-12-04, board 101 on 2026-12-13
    assert "Away from" in page
    assert "No game is waiting for alice" in web.get("/players/alice").text


def test_the_calendar_feed_holds_a_players_forfeit_deadlines(club: TimeClub, web):
    club.send("alice", "cephalopod challenge bob alice")
    club.send("alice", "cephalopod challenge --forfeittime=5 bob alice")
    response = web.get("/players/bob/deadlines.ics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(response.content)
    events = sorted(calendar.walk("VEVENT"), key=lambda e: e.decoded("dtstart"))
    assert [str(e["summary"]) for e in events] == [
        "Move in Cephalopod board 102, or forfeit",
        "Move in Cephalopod board 101, or forfeit",
    ]
    assert events[0].decoded("dtstart").isoformat() == "2026-11-27T12:00:00+00:00"
    assert str(events[1]["url"]).endswith("/cephalopod/101")
    (alarm,) = events[0].walk("VALARM")
    assert alarm.decoded("trigger").days == -1
    assert not icalendar.Calendar.from_ical(web.get("/players/alice/deadlines.ics").content).walk("VEVENT")


def test_the_calendar_of_nobody_is_not_found(club: TimeClub, web):
    assert web.get("/players/nobody/deadlines.ics").status_code == 404


def test_the_game_json_carries_the_time(game: TimeClub, web):
    game.tick(days=2)
    time = web.get("/api/cephalopod/101").json()["time"]
    assert time == {
        "rules": "--nagtime=7 --forfeittime=21",
        "to_move": "bob",
        "waited_seconds": 2 * 86400,
        "forfeit_at": "2026-12-13T12:00:00+00:00",
        "away_until": None,
        "clocks": [],
    }


# -- in the reader's zone ---------------------------------------------------------------------------


def test_every_date_a_player_reads_in_a_mail_is_on_their_own_wall_clock(game: TimeClub):
    game.send("bob", "timezone bob bob-pw Europe/Paris")
    game.send("alice", "timezone alice alice-pw Asia/Tokyo")
    game.replies()
    game.tick(days=7)
    (nag,) = game.replies()
    assert "You forfeit on 2026-12-13 13:00 CET unless you move" in body_of(nag)  # 12:00 UTC
    game.send("bob", "vacation bob bob-pw now 2d")
    game.tick(minutes=1)
    mails = game.replies()
    (booked,) = [m for m in mails if m["To"].addresses[0].addr_spec == ADDRESSES["bob"]]
    assert "Booked: away from 2026-11-29 13:00 until 2026-12-01 13:00 CET." in body_of(booked)
    (told,) = [m for m in mails if m["To"].addresses[0].addr_spec == ADDRESSES["alice"]]
    assert "bob is away until 2026-12-01 21:00 JST" in body_of(told)
    assert "(2026-11-29)" in body_of(told)  # the day of the event in the move list, in Tokyo


def test_the_days_a_player_books_and_reads_are_their_own(game: TimeClub):
    game.send("bob", "timezone bob bob-pw America/New_York")
    game.replies()
    game.send("bob", "vacation bob bob-pw 2026-12-20 2026-12-24")
    game.send("bob", "vacation bob bob-pw 2026-12-22 2026-12-30")
    refusal = game.replies()[-1]
    assert "That overlaps your vacation from 2026-12-20 00:00 until 2026-12-25 00:00 EST" in body_of(refusal)


def test_the_page_about_a_player_is_on_their_clock_and_the_game_page_on_utc(game: TimeClub, web):
    game.send("bob", "timezone bob bob-pw Europe/Paris")
    assert ">2026-12-13 13:00 CET</time>" in web.get("/players/bob").text
    assert ">2026-12-13 12:00 UTC</time>" in web.get("/cephalopod/101").text
