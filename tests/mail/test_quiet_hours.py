"""Quiet hours: mail for a player that comes in the hours they asked to be left alone waits in the
outbox until those hours end (their local time), then goes as held mail does; what the player
asked for by mail just now reaches them at once."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from pbm.store.models import OutboxMessage
from tests.support import Clock, body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def clock() -> Clock:
    # 23:00 in Paris (CET, UTC+1): inside bob's quiet hours below.
    return Clock(datetime(2026, 11, 22, 22, 0, tzinfo=timezone.utc))


@pytest.fixture
def room(make_mailroom, clock):
    room = make_mailroom(clock=clock, confirm_addresses=False)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(BOB, "timezone bob bob-pw Europe/Paris"))
    room.send(mail(BOB, "quiet bob bob-pw 22:00-07:00"))
    room.replies()
    return room


def rows_to(room, address: str) -> list[OutboxMessage]:
    with room.database.reading() as session:
        query = select(OutboxMessage).where(OutboxMessage.recipient == address).order_by(OutboxMessage.id)
        return list(session.scalars(query))


def test_the_answer_to_quiet_says_the_hours_in_the_players_zone(room, clock):
    room.send(mail(BOB, "quiet bob bob-pw"))
    (answer,) = room.replies_to(BOB)
    text = body_of(answer)
    assert "bob lives in Europe/Paris, where it is 2026-11-22 23:00 now." in text
    assert "Quiet hours: 22:00-07:00 (Europe/Paris time)" in text


def test_a_board_mail_in_the_players_quiet_hours_waits_until_their_morning(room, clock):
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == [ALICE]
    waiting = rows_to(room, BOB)[-1]
    assert (waiting.status, waiting.hold_reason) == ("held", "quiet_hours")
    assert waiting.release_at == datetime(2026, 11, 23, 6, 0, tzinfo=timezone.utc)  # 07:00 in Paris


def test_held_mail_goes_when_the_quiet_hours_end_and_not_before(room, clock):
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    clock.advance(hours=7, minutes=59)  # 06:59 in Paris
    room.server.processor.time_pass.run()
    assert room.replies_to(BOB) == []
    clock.advance(minutes=1)
    room.server.processor.time_pass.run()
    (went,) = room.replies_to(BOB)
    assert "New Cephalopod Board 101" in str(went["Subject"])
    assert "It came in your quiet hours, and waited for them to end." in body_of(went)
    assert "Reply-To" in went  # one mail alone goes as it was: a reply still plays


def test_what_the_player_asks_for_in_their_quiet_hours_reaches_them_at_once(room, clock):
    room.send(mail(BOB, "help"))
    (answer,) = room.replies_to(BOB)
    assert "help" in body_of(answer).lower()


def test_the_other_players_mail_is_not_held(room, clock):
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    assert {m["To"].addresses[0].addr_spec for m in room.replies()} == {ALICE, BOB}


def test_quiet_off_lets_new_mail_go_at_once(room, clock):
    room.send(mail(BOB, "quiet bob bob-pw off"))
    room.replies()
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    assert {m["To"].addresses[0].addr_spec for m in room.replies()} == {ALICE, BOB}


# -- mail the hourly limit held back, whose hour comes in the quiet hours ----------------------------


@pytest.fixture
def limited(make_mailroom):
    """bob in Paris, quiet from 22:00 to 07:00 there, and two mails an hour to an address at most;
    the clock at 21:30 in Paris, with nothing mailed in the last hour."""
    clock = Clock(datetime(2026, 11, 22, 18, 0, tzinfo=timezone.utc))
    room = make_mailroom(clock=clock, confirm_addresses=False, max_mails_per_address_per_hour=2)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(BOB, "timezone bob bob-pw Europe/Paris"))
    room.send(mail(BOB, "quiet bob bob-pw 22:00-07:00"))
    clock.advance(hours=2, minutes=30)
    room.replies()
    return room, clock


def test_mail_the_hourly_limit_held_that_comes_due_in_the_quiet_hours_waits_for_them_to_end(limited):
    room, clock = limited
    for _ in range(3):
        room.send(mail(ALICE, "cephalopod challenge alice bob"))
    waiting = rows_to(room, BOB)[-1]
    assert (waiting.hold_reason, waiting.release_at) == (
        "hourly_limit",
        datetime(2026, 11, 22, 21, 30, tzinfo=timezone.utc),
    )
    room.replies()
    clock.advance(hours=1, minutes=1)  # 22:31 in Paris: the hour has room, but bob sleeps
    room.server.processor.time_pass.run()
    assert room.replies_to(BOB) == []
    waiting = rows_to(room, BOB)[-1]
    assert (waiting.status, waiting.hold_reason) == ("held", "quiet_hours")
    assert waiting.release_at == datetime(2026, 11, 23, 6, 0, tzinfo=timezone.utc)  # 07:00 in Paris
    clock.advance(hours=8, minutes=29)  # 07:00 in Paris
    room.server.processor.time_pass.run()
    assert [str(m["Subject"]) for m in room.replies_to(BOB)] == ["New Cephalopod Board 103 alice"]


def test_what_the_player_asked_for_that_the_hourly_limit_held_goes_in_their_quiet_hours(limited):
    room, clock = limited
    for _ in range(3):
        room.send(mail(BOB, "cephalopod challenge bob alice"))
    assert rows_to(room, BOB)[-1].hold_reason == "hourly_limit"
    room.replies()
    clock.advance(hours=1, minutes=1)
    room.server.processor.time_pass.run()
    assert [str(m["Subject"]) for m in room.replies_to(BOB)] == ["New Cephalopod Board 103 bob"]
