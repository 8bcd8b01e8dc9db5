"""Mail past the hourly limit of its address waits and goes when the hour has room: nothing is lost.

What waits for one address goes in one mail when several wait, opening with
why they were held back; one mail alone goes as it was, under a line that
says so. The sender of a message is told who has it and for whom it waits.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from pbm.store import outbox
from pbm.store.models import InboundMessage, OutboxMessage
from tests.support import Clock, body_of, mail, read

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"
LIMIT = 5


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def room(make_mailroom, clock):
    # Every mail to an address is counted here: none goes to confirming it (and back).
    return make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT, confirm_addresses=False)


def rows_to(room, address: str) -> list[OutboxMessage]:
    with room.database.reading() as session:
        query = select(OutboxMessage).where(OutboxMessage.recipient == address).order_by(OutboxMessage.id)
        return list(session.scalars(query))


def statuses(room, address: str) -> list[str]:
    return [row.status for row in rows_to(room, address)]


def pass_time(room, clock: Clock, **later: float) -> list[str]:
    clock.advance(**later)
    return room.server.processor.time_pass.run().done


def sign_up(room, *userids: str) -> None:
    addresses = {"alice": ALICE, "bob": BOB, "carol": CAROL}
    for userid in userids:
        room.send(mail(addresses[userid], f"signup {userid} {userid}-pw"))
    room.replies()


def test_mail_past_the_hourly_limit_is_held_back_not_dropped(room, clock):
    for _ in range(LIMIT + 3):
        room.send(mail(ALICE, "help"))
    assert statuses(room, ALICE) == ["pending"] * LIMIT + ["held"] * 3
    held = rows_to(room, ALICE)[-1]
    assert held.hold_reason == "hourly_limit"
    assert held.release_at == clock() + timedelta(hours=1)
    with room.database.reading() as session:
        last = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
    assert f"a help mail was held back: {LIMIT} mails were sent to this address within the hour" in last.note


def test_held_mail_stays_held_until_the_hour_has_room(room, clock):
    for _ in range(LIMIT + 2):
        room.send(mail(ALICE, "help"))
    pass_time(room, clock, minutes=59)
    assert statuses(room, ALICE)[-2:] == ["held", "held"]


def test_several_held_mails_go_out_gathered_into_one_when_the_hour_has_room(room, clock):
    for _ in range(LIMIT + 3):
        room.send(mail(ALICE, "help"))
    room.replies()
    done = pass_time(room, clock, hours=1, minutes=1)
    assert done == ["held mail: 3 mails let go, gathered into one"]
    assert statuses(room, ALICE) == ["pending"] * LIMIT + ["gathered"] * 3 + ["pending"]
    (gathered,) = room.replies()
    assert gathered["To"].addresses[0].addr_spec == ALICE
    assert gathered["Subject"] == "3 mails held back for you"


def test_the_gathered_mail_says_why_and_gives_every_held_mail_in_full(room, clock):
    sign_up(room, "alice", "bob")  # one mail to alice
    for _ in range(LIMIT - 1):
        room.send(mail(ALICE, "help"))
    room.send(mail(ALICE, "cephalopod challenge alice bob\n\nA game, Bob?"))
    room.send(mail(ALICE, "list"))
    held = [read(room.handed_over(row)) for row in rows_to(room, ALICE) if row.status == "held"]
    assert len(held) == 2
    room.replies()
    pass_time(room, clock, hours=1, minutes=1)
    (gathered,) = room.replies_to(ALICE)
    body = body_of(gathered)
    assert body.startswith(
        "These 2 mails to you were held back; here they are, oldest first.\n"
        "This server sends one address at most 5 mails in an hour, and that\n"
        "many had gone to yours.\n"
    )
    assert "GAME move BOARD USERID PASSWORD MOVE" in body
    for number, original in enumerate(held, start=1):
        assert f"{number} of 2: {original['Subject']}\nWritten at 2026-11-22 12:00 UTC" in body
        assert body_of(original).strip() in body
    assert "A game, Bob?" in body  # the comment of the new game's mail too


def test_one_held_mail_goes_as_it_was_under_a_line_that_says_it_was_held(room, clock):
    sign_up(room, "alice", "bob")  # one mail to alice
    for _ in range(LIMIT - 1):
        room.send(mail(ALICE, "help"))
    room.send(mail(BOB, "cephalopod challenge bob alice"))
    (held,) = [row for row in rows_to(room, ALICE) if row.status == "held"]
    original = read(room.handed_over(held))  # as it would have been handed over
    room.replies()

    assert pass_time(room, clock, hours=1, minutes=1) == ["held mail: a board mail let go"]
    (released,) = room.replies()
    assert released["Subject"] == original["Subject"] == "New Cephalopod Board 101 bob"
    assert released["Message-ID"] == original["Message-ID"]
    assert released["Reply-To"] == original["Reply-To"]  # a reply still plays a move
    assert body_of(released) == (
        "This mail, written at 2026-11-22 12:00 UTC, was held back until now.\n"
        "This server sends one address at most 5 mails in an hour, and that\n"
        "many had gone to yours.\n"
        "----------------------------------------------------------------------\n\n" + body_of(original)
    )


def test_mail_held_by_a_limit_raised_since_goes_at_the_next_pass_when_the_hour_has_room(make_mailroom, clock):
    """Its time to go was reckoned under the old limit when it was held: an admin who raises
    ``PBM_MAX_MAILS_PER_ADDRESS_PER_HOUR`` and restarts does not wait out the old one."""
    before = make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT, confirm_addresses=False)
    for _ in range(LIMIT + 3):
        before.send(mail(ALICE, "help"))
    assert statuses(before, ALICE)[-3:] == ["held"] * 3
    restarted = make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT * 4, confirm_addresses=False)
    assert pass_time(restarted, clock, minutes=1) == ["held mail: 3 mails let go, gathered into one"]
    assert "held" not in statuses(restarted, ALICE)


def test_mail_held_by_a_limit_lowered_since_waits_for_the_room_the_lower_limit_leaves(make_mailroom, clock):
    before = make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT, confirm_addresses=False)
    for _ in range(LIMIT + 3):
        before.send(mail(ALICE, "help"))
    restarted = make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT - 2, confirm_addresses=False)
    assert pass_time(restarted, clock, minutes=1) == []
    assert statuses(restarted, ALICE)[-3:] == ["held"] * 3


def test_mail_to_an_address_whose_mail_waits_waits_behind_it(room, clock):
    for _ in range(LIMIT + 1):
        room.send(mail(ALICE, "help"))
    clock.advance(hours=1, minutes=1)  # the hour has room, but no pass has let the held mail go yet
    room.server.processor.time_pass_every = timedelta(days=1)
    room.send(mail(ALICE, "list"))
    # The list did not go ahead of the help that waited: it went gathered with it, behind it.
    assert statuses(room, ALICE)[-3:] == ["gathered", "gathered", "pending"]
    (gathered,) = room.replies_to(ALICE)[-1:]
    assert body_of(gathered).index("Help") < body_of(gathered).index("games this server plays")


def test_the_gathered_mail_counts_against_the_hourly_limit(room, clock):
    for _ in range(LIMIT + 2):
        room.send(mail(ALICE, "help"))
    pass_time(room, clock, hours=1, minutes=1)
    for _ in range(LIMIT):
        room.send(mail(ALICE, "help"))
    assert statuses(room, ALICE)[-LIMIT:] == ["pending"] * (LIMIT - 1) + ["held"]


def test_a_limit_on_one_address_holds_no_mail_to_another(room, clock):
    sign_up(room, "alice", "bob")
    for _ in range(LIMIT):
        room.send(mail(ALICE, "help"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    assert statuses(room, BOB)[-1] == "pending"
    assert statuses(room, ALICE)[-1] == "held"


def test_mail_held_until_released_goes_at_the_first_pass_after_it_is_released(room, clock):
    from pbm.store.models import HoldReason

    with room.database.transaction() as session:
        waiting = outbox.Queued(ALICE, "<w1@localhost>", mail("pbm@localhost", "kept"), "help")
        hold = outbox.Hold(HoldReason.HOURLY_LIMIT, None)
        outbox.enqueue(session, [outbox.Queued(**{**waiting.__dict__, "hold": hold})], now=clock())
    pass_time(room, clock, days=2)
    assert statuses(room, ALICE) == ["held"]
    with room.database.transaction() as session:
        assert outbox.release(session, "Alice@Example.org", HoldReason.HOURLY_LIMIT, clock()) == 1
    pass_time(room, clock)
    assert statuses(room, ALICE) == ["pending"]


def test_a_release_that_fails_midway_leaves_the_mail_held(room, clock, monkeypatch):
    for _ in range(LIMIT + 2):
        room.send(mail(ALICE, "help"))

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(outbox, "enqueue", broken)
    report = room.server.processor.time_pass.run(clock() + timedelta(hours=2))
    assert "held mail" in report.failed
    assert statuses(room, ALICE)[-2:] == ["held", "held"]
    monkeypatch.undo()
    pass_time(room, clock, hours=2)
    assert statuses(room, ALICE)[-3:] == ["gathered", "gathered", "pending"]


def test_two_passes_at_once_let_held_mail_go_once(room, clock):
    if room.database.is_sqlite:
        pytest.skip("only PostgreSQL lets two time passes write at once")
    for _ in range(LIMIT + 2):
        room.send(mail(ALICE, "help"))
    held = room.server.processor.time_pass.held
    later = clock() + timedelta(hours=2)
    with room.database.transaction() as first:
        assert held.release_due(first, later) == ["held mail: 2 mails let go, gathered into one"]
        with room.database.transaction() as second:
            assert held.release_due(second, later) == []
    assert statuses(room, ALICE)[-3:] == ["gathered", "gathered", "pending"]


# -- telling the sender the truth ---------------------------------------------------------


def fill(room, address: str) -> None:
    """Mail `address` as often as the hour allows."""
    for _ in range(LIMIT):
        room.send(mail(address, "help"))
    room.replies()


def test_a_message_tells_its_sender_who_has_it_and_for_whom_it_waits_until_when(room, clock):
    sign_up(room, "alice", "bob", "carol")
    fill(room, CAROL)
    room.send(mail(ALICE, "message alice alice-pw bob carol\n\nShall we play?"))
    (sent,) = room.replies_to(ALICE)
    assert sent["Subject"] == "Message to bob, carol: not everyone has it yet"
    body = body_of(sent)
    assert "Your message went to bob now." in body
    assert "It waits for carol until 2026-11-22 13:00 UTC." in body
    assert "This server sends one address at most 5 mails in an hour, and that\nmany had gone to theirs." in body
    assert "Shall we play?" in body
    assert statuses(room, CAROL)[-1] == "held"


def test_a_message_that_reached_everyone_says_so(room, clock):
    sign_up(room, "alice", "bob", "carol")
    room.send(mail(ALICE, "message alice alice-pw bob carol\n\nShall we play?"))
    (sent,) = room.replies_to(ALICE)
    assert sent["Subject"] == "Message sent to bob, carol"
    assert body_of(sent).startswith("Your message went to bob, carol:\n\nShall we play?")


def test_two_messages_in_one_mail_each_tell_of_their_own_recipients(room, clock):
    sign_up(room, "alice", "bob", "carol")
    fill(room, CAROL)
    room.send(mail(ALICE, "message alice alice-pw bob\nmessage alice alice-pw carol\n\nShall we play?"))
    subjects = sorted(m["Subject"] for m in room.replies_to(ALICE))
    assert subjects == ["Message sent to bob", "Message to carol: not everyone has it yet"]


def test_a_broadcast_tells_its_sender_how_many_have_it_and_how_long_the_rest_wait(make_mailroom, clock):
    room = make_mailroom(clock=clock, max_mails_per_address_per_hour=LIMIT, admins="alice")
    sign_up(room, "alice", "bob", "carol")
    fill(room, CAROL)
    room.send(mail(ALICE, "broadcast alice alice-pw\n\nThe server moves on Sunday."))
    (sent,) = room.replies_to(ALICE)
    assert sent["Subject"] == "Message to all 2 other players: not everyone has it yet"
    body = body_of(sent)
    assert "Your message went to 1 of the 2 other players now." in body
    assert "For 1 of them it waits, until 2026-11-22 13:00 UTC at the latest." in body
    assert "Message sent" not in sent["Subject"]
