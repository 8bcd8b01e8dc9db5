"""Digests: a player who takes them gets, instead of a mail for each move that makes it their
turn, one mail at each of their local times listing every game waiting for them, the most
urgent first, each with its board, time left and own reply address. Daylight-saving changes
never send one twice nor skip one; a game they would forfeit within a day is mailed at once."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from pbm.store import outbox
from pbm.store.models import OutboxMessage
from tests.mail.mailroom import Mailroom
from tests.support import Clock, body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"
PARIS = ZoneInfo("Europe/Paris")


def setup(make_mailroom, clock: Clock, *, times: str = "07:30", forfeit: str = "") -> Mailroom:
    room = make_mailroom(clock=clock, confirm_addresses=False)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "timezone alice alice-pw Europe/Paris"))
    room.send(mail(ALICE, f"digest alice alice-pw {times}"))
    room.send(mail(BOB, f"cephalopod challenge {forfeit} bob alice".replace("  ", " ")))
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw c3"))
    room.send(mail(BOB, "cephalopod move 102 bob bob-pw b2"))
    return room


def digests(room: Mailroom) -> list[OutboxMessage]:
    with room.database.reading() as session:
        return list(
            session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "digest").order_by(OutboxMessage.id))
        )


def pass_hours(room: Mailroom, clock: Clock, hours: int, *, every_minutes: int = 15) -> None:
    for _ in range(hours * 60 // every_minutes):
        clock.advance(minutes=every_minutes)
        room.server.processor.time_pass.run()


def test_the_moves_wait_for_the_digest_which_lists_every_waiting_game_with_its_reply_address(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))  # 13:00 in Paris
    room = setup(make_mailroom, clock)
    assert [
        m for m in room.replies_to(ALICE) if "Board 10" in str(m["Subject"]) and "New" not in str(m["Subject"])
    ] == []
    pass_hours(room, clock, 19)  # past 07:30 in Paris the next morning
    (digest,) = [m for m in room.replies_to(ALICE) if "for your move" in str(m["Subject"])]
    text = body_of(digest)
    assert "1. Cephalopod board 101" in text and "2. Cephalopod board 102" in text
    assert text.count("To move here, mail your move alone on the first line to:\n    pbm+") == 2
    (row,) = digests(room)
    assert row.created_at.astimezone(PARIS).strftime("%H:%M") == "07:30"


def test_a_digest_gives_each_games_time_left_in_lines_of_mail_width(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock, forfeit="--forfeittime=3")
    pass_hours(room, clock, 19)
    (digest,) = [m for m in room.replies_to(ALICE) if "for your move" in str(m["Subject"])]
    text = body_of(digest)
    first, second = text.split("2. Cephalopod board")
    assert "Time left: 2 days 5 hours; you forfeit on 2026-11-25 13:00 CET" in first  # board 101
    assert "Time left: 20 days 5 hours; you forfeit on" in second  # board 102, the club's time
    assert max(len(line) for line in text.splitlines()) <= 78


def test_a_game_forfeited_within_a_day_is_mailed_at_once(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock, forfeit="--forfeittime=12h")
    subjects = [str(m["Subject"]) for m in room.replies_to(ALICE)]
    assert any(subject.startswith("Cephalopod Board 101") for subject in subjects)  # 12 hours: at once
    assert not any(subject.startswith("Cephalopod Board 102") for subject in subjects)  # 21 days: the digest


@pytest.mark.parametrize(
    "start",
    [
        datetime(2026, 10, 23, 12, 0, tzinfo=timezone.utc),  # Paris falls back on 25 October
        datetime(2026, 3, 27, 12, 0, tzinfo=timezone.utc),  # Paris springs forward on 29 March
    ],
)
@pytest.mark.parametrize("times", ["07:30", "02:30"])  # 02:30 is skipped in March and repeated in October
def test_across_a_daylight_saving_change_one_digest_a_local_day_never_two_never_none(make_mailroom, start, times):
    clock = Clock(start)
    room = setup(make_mailroom, clock, times=times)
    pass_hours(room, clock, 4 * 24)
    days = Counter(row.created_at.astimezone(PARIS).date() for row in digests(room))
    first = start.astimezone(PARIS).date() + timedelta(days=1)
    assert days == Counter({first + timedelta(days=n): 1 for n in range(4)})
    for row in digests(room):
        local = row.created_at.astimezone(PARIS)
        assert local.strftime("%H:%M") in (times, "03:30")  # 02:30 on the spring day is 03:30


def test_digest_off_sends_what_waited_as_mails_of_their_own(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    room.replies()
    room.send(mail(ALICE, "digest alice alice-pw off"))
    room.server.processor.time_pass.run()
    text = "\n".join(body_of(m) for m in room.replies_to(ALICE))
    assert "Cephalopod Board 101" in text and "It waited for a digest, which you turned off." in text
    pass_hours(room, clock, 24)
    assert digests(room) == []


def moves_at(room: Mailroom) -> dict[int, int]:
    from pbm.store.models import Board

    with room.database.reading() as session:
        return {board.board: board.move_count for board in session.scalars(select(Board))}


def the_digest(room: Mailroom, clock: Clock):
    pass_hours(room, clock, 19)
    (digest,) = [m for m in room.replies_to(ALICE) if "for your move" in str(m["Subject"])]
    return digest


def test_a_reply_to_the_digest_plays_one_move_per_line_and_the_rest_is_the_comment(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    digest = the_digest(room, clock)
    reply = "101 d4\n102 c3\n\nTwo at once, Bob!\n\n> quoted digest"
    room.send(mail(ALICE, reply, subject="Re: digest"), to=digest["Reply-To"].addresses[0].addr_spec)
    assert moves_at(room) == {101: 2, 102: 2}
    to_bob = [body_of(m) for m in room.replies_to(BOB)]
    assert len(to_bob) == 2 and all("Two at once, Bob!" in text for text in to_bob)


def test_a_line_naming_a_board_not_waiting_is_refused_and_the_others_play(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    digest = the_digest(room, clock)
    room.send(mail(ALICE, "101 d4\n999 c3"), to=digest["Reply-To"].addresses[0].addr_spec)
    assert moves_at(room) == {101: 2, 102: 1}
    (error,) = [m for m in room.replies_to(ALICE) if "Error" in str(m["Subject"])]
    assert "Board 999 is not one of the games waiting for your move now" in body_of(error)


def test_a_reply_to_the_digest_from_another_address_plays_nothing(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    digest = the_digest(room, clock)
    room.send(mail("mallory@example.com", "101 d4"), to=digest["Reply-To"].addresses[0].addr_spec)
    assert moves_at(room) == {101: 1, 102: 1}


def test_one_click_on_a_digest_ends_the_digests_and_each_move_is_mailed_again(make_mailroom):
    from tests.web.conftest import TestClient

    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    site = "https://games.example.org"
    room = make_mailroom(clock=clock, confirm_addresses=False, public_url=site)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "timezone alice alice-pw Europe/Paris"))
    room.send(mail(ALICE, "digest alice alice-pw 07:30"))
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw c3"))
    digest = the_digest(room, clock)
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with TestClient(room.server.web) as client:
        done = client.post(digest["List-Unsubscribe"].strip("<>")[len(site) :])
    assert "alice gets no more digests: each move in alice&#39;s games is mailed on its own again" in done.text
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw d4"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw b2"))
    assert any(str(m["Subject"]).startswith("Cephalopod Board 101") for m in room.replies_to(ALICE))


def test_a_reminder_waits_for_the_digest_but_the_last_warning_goes_at_once(make_mailroom):
    """The digest lists every game waiting for the player, with its board and its time left: a nag
    tells nothing more, so it waits and goes no further. A day before the forfeit, it goes at once."""
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock, forfeit="--nagtime=2 --forfeittime=4")
    pass_hours(room, clock, 2 * 24 + 1, every_minutes=60)  # board 101's first nag is due, then a digest
    subjects = [str(m["Subject"]) for m in room.replies_to(ALICE)]
    assert not any(subject.startswith("Nag:") for subject in subjects)
    with room.database.reading() as session:
        (nag,) = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "nag"))
        assert (nag.status, nag.hold_reason) == ("held", "digest")
    pass_hours(room, clock, 24, every_minutes=60)  # the last warning: under a day from the forfeit
    subjects = [str(m["Subject"]) for m in room.replies_to(ALICE)]
    assert "Nag: Cephalopod Board 101 alice (last warning)" in subjects
    with room.database.reading() as session:
        assert session.get(OutboxMessage, nag.id).status == "gathered"  # a digest told of board 101


def test_a_player_who_signs_off_takes_no_digest_and_what_waited_for_one_is_never_sent(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    room.replies()
    room.send(mail(ALICE, "signoff alice alice-pw"))
    assert any("signoff" in body_of(m).lower() or "signed off" in body_of(m) for m in room.replies_to(ALICE))
    pass_hours(room, clock, 24, every_minutes=60)
    assert digests(room) == []
    with room.database.reading() as session:
        held = session.scalars(select(OutboxMessage).where(OutboxMessage.hold_reason == "digest")).all()
        assert {(row.status, row.last_error) for row in held} == {("suppressed", outbox.SIGNED_OFF)}


def test_when_no_game_waits_any_more_no_digest_goes_and_what_waited_says_why(make_mailroom):
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    room.replies()
    room.send(mail(BOB, "cephalopod resign 101 bob bob-pw"))
    room.send(mail(BOB, "cephalopod resign 102 bob bob-pw"))
    assert sum("Cephalopod Board 10" in str(m["Subject"]) for m in room.replies_to(ALICE)) == 2  # each end, at once
    pass_hours(room, clock, 24, every_minutes=60)
    assert digests(room) == []
    with room.database.reading() as session:
        held = session.scalars(select(OutboxMessage).where(OutboxMessage.hold_reason == "digest")).all()
        assert len(held) == 2 and {(row.status, row.last_error) for row in held} == {("gathered", outbox.NO_DIGEST)}


def test_a_reply_to_a_digest_is_refused_at_a_game_that_moved_on_since_as_a_stale_board_mail_is(make_mailroom):
    """The digest showed board 101 after one move; alice and bob have played there since, so its
    reply address plays no move at 101 on a board alice has not seen, while 102 still plays."""
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)
    digest = the_digest(room, clock)
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw d4"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw a1"))
    room.replies()
    room.send(mail(ALICE, "101 e5\n102 c3"), to=digest["Reply-To"].addresses[0].addr_spec)
    assert moves_at(room) == {101: 3, 102: 2}
    (answer,) = [m for m in room.replies_to(ALICE) if "101" in body_of(m) and "moved on" in body_of(m)]
    assert "e5" in body_of(answer)
