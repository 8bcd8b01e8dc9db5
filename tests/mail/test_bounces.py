"""Bounces: every mail leaves with a bounce address of its own, and what comes back to it says
whether the mail reached its address. A permanent failure stops mail to the address at once
(what comes for it waits), temporary ones after several in a row; an auto-reply is no bounce;
mail from the address makes it work again. Reports are read as the hostile mail they may be."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbm.mail.bounces import MOST_READ, PERMANENT, TEMPORARY, BounceAddresses, Report, read_report
from pbm.mail.tokens import Addressing
from pbm.store import bounces
from pbm.store.models import BouncedAddress, OutboxMessage
from tests.support import Clock, body_of, mail

SHAPES = Path(__file__).parent / "bounces"
ALICE, BOB, BOB_AT_WORK = "alice@example.org", "bob@example.net", "bob@work.example"


def report(shape: str, *, bounce: str = "pbm+bounce-1-x@localhost", recipient: str = BOB) -> bytes:
    text = (SHAPES / f"{shape}.eml").read_text()
    return text.replace("{bounce}", bounce).replace("{recipient}", recipient).replace("\n", "\r\n").encode()


# -- reading a report ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("postfix", Report(PERMANENT, "5.1.1")),  # RFC 3464, as Postfix writes it
        ("exim_delayed", Report(TEMPORARY, "4.0.0")),  # RFC 3464, Exim's warning of a delay
        ("gmail", Report(PERMANENT, "5.1.1")),  # Gmail's text, no delivery-status part
        ("exchange", Report(PERMANENT, "5.1.10")),  # Exchange's non-delivery report as text
        ("qmail", Report(PERMANENT, "5.1.1")),  # qmail's "failure notice"
        ("auto_reply", None),  # an auto-reply is no bounce, whatever codes its text has
    ],
)
def test_each_shape_of_report_says_what_became_of_the_mail(shape, expected):
    assert read_report(report(shape)) == expected


def test_a_report_of_delivery_is_no_failure():
    delivered = report("postfix").replace(b"Action: failed", b"Action: delivered").replace(b"5.1.1", b"2.0.0")
    assert read_report(delivered) is None


def test_a_permanent_failure_among_recipients_outweighs_a_delay():
    both = report("exim_delayed").replace(
        b"Will-Retry-Until", b"\r\nFinal-Recipient: rfc822;x@example.com\r\nAction: failed\r\nStatus: 5.2.1\r\nX"
    )
    assert read_report(both) == Report(PERMANENT, "5.2.1")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4096))
def test_any_bytes_read_as_a_report_or_none_and_never_fail(raw):
    found = read_report(raw)
    assert found is None or (found.kind in (PERMANENT, TEMPORARY) and found.status[0] in "45")


@settings(max_examples=100, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(
            [
                b"Status: 5.",
                b"Action: failed\r\n",
                b"Content-Type: message/delivery-status\r\n",
                b"550 ",
                b"5.1.",
                b"\r\n",
                b"\n",
                b"Subject: Undeliverable\r\n",
                b"1",
                b" ",
                b":",
                b"Auto-Submitted: auto-replied\r\n",
            ]
        ),
        max_size=200,
    ),
    repeat=st.integers(1, 400),
)
def test_hostile_reports_built_of_the_words_a_report_has_are_read_in_bounded_time(pieces, repeat):
    raw = b"".join(pieces) * repeat
    found = read_report(raw)
    assert found is None or found.status[:1] in ("4", "5")


def test_only_the_start_of_a_huge_report_is_read():
    padding = b"x" * (MOST_READ + 10)
    late = report("gmail").replace(b"** Address not found **", padding)
    assert read_report(late) is None  # its status comes after what is read


def test_a_bounce_address_names_its_mail_and_cannot_be_made_up():
    addresses = BounceAddresses(b"k" * 32, Addressing("pbm@games.example"))
    address = addresses.address_for(12345)
    assert address.startswith("pbm+bounce-12345-") and address.endswith("@games.example")
    token = address.split("+", 1)[1].split("@")[0]
    assert addresses.outbox_id_of(token) == 12345
    assert addresses.outbox_id_of(token.upper()) == 12345  # a mail system may change the case
    assert addresses.outbox_id_of(token.replace("12345", "12346")) is None
    assert BounceAddresses(b"j" * 32, Addressing("pbm@games.example")).outbox_id_of(token) is None


# -- what the server does with one -------------------------------------------------------------


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def room(make_mailroom, clock):
    room = make_mailroom(clock=clock, confirm_addresses=False)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, f"signup bob bob-pw {BOB} {BOB_AT_WORK}"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()
    return room


def last_to(room, address: str) -> OutboxMessage:
    with room.database.reading() as session:
        query = select(OutboxMessage).where(OutboxMessage.recipient == address).order_by(OutboxMessage.id.desc())
        return session.scalars(query).first()


def bounce_back(room, shape: str, to: str = BOB) -> None:
    bounce = room.server.bounce_addresses.address_for(last_to(room, to).id)
    room.send(report(shape, bounce=bounce, recipient=to), envelope_from="", to=bounce)


def test_each_mail_leaves_with_its_own_signed_bounce_address(room):
    row = last_to(room, BOB)
    assert room.server.delivery.envelope_sender(row.id) == room.server.bounce_addresses.address_for(row.id)
    assert room.server.bounce_addresses.outbox_id_in((room.server.delivery.envelope_sender(row.id),)) == row.id


def test_a_permanent_failure_stops_mail_to_the_address_and_keeps_what_comes_for_it(room):
    bounce_back(room, "postfix")
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies() if "Board 101" in str(m["Subject"])] == [ALICE]
    held = last_to(room, BOB)
    assert (held.status, held.hold_reason, held.release_at) == ("held", "bounced", None)


def test_the_players_other_addresses_are_told_without_the_whole_address(room):
    bounce_back(room, "postfix")
    (told,) = room.replies_to(BOB_AT_WORK)
    text = body_of(told)
    assert "b***@example.net" in text and BOB not in text and "(5.1.1)" in text
    assert "Mail to one of bob's addresses bounces" in str(told["Subject"])


def test_an_auto_reply_to_the_bounce_address_changes_nothing(room):
    bounce_back(room, "auto_reply")
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()
    assert room.replies() == []


def a_new_mail_to_bob(room) -> None:
    """Another mail to bob (a new game's), for a report of its own."""
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.replies()


def test_temporary_failures_stop_mail_only_after_several_in_a_row(room):
    for _ in range(bounces.TEMPORARY_FAILURES_TO_STOP - 1):
        bounce_back(room, "exim_delayed")
        a_new_mail_to_bob(room)  # each report is of a mail of its own: a report counts once
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()
        assert session.get(BouncedAddress, BOB).temporary_failures == bounces.TEMPORARY_FAILURES_TO_STOP - 1
    bounce_back(room, "exim_delayed")
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == {BOB}


def test_mail_from_the_address_makes_it_work_again_and_what_waited_goes(room, clock):
    bounce_back(room, "postfix")
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    room.replies()
    room.send(mail(BOB, "help"))
    room.server.processor.time_pass.run()
    subjects = [str(m["Subject"]) for m in room.replies_to(BOB)]
    assert len(subjects) == 2 and any("Cephalopod Board 101" in subject for subject in subjects)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()


def test_a_bounce_for_a_made_up_mail_is_ignored(room):
    forged = "pbm+bounce-1-aaaaaaaaaaaaaaaaaaaa@localhost"
    room.send(report("postfix", bounce=forged), envelope_from="", to=forged)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()


_REPLAYS = itertools.count()


def replay(room, shape: str, outbox_id: int, to: str = BOB) -> None:
    """A report to the bounce address of the mail `outbox_id`, sent anew each time (a Message-ID
    of its own: not a copy the inbox knows)."""
    bounce = room.server.bounce_addresses.address_for(outbox_id)
    raw = re.sub(rb"(?im)^message-id:[^\r\n]*\r\n", b"", report(shape, bounce=bounce, recipient=to))
    fresh = f"Message-Id: <replay.{next(_REPLAYS)}@mx.example.net>\r\n".encode() + raw
    room.send(fresh, envelope_from="", to=bounce)


def test_a_bounce_address_replayed_after_the_player_wrote_again_stops_nothing(room):
    bounced = last_to(room, BOB).id
    replay(room, "postfix", bounced)
    room.send(mail(BOB, "help"))  # bob's address works again
    room.replies()
    replay(room, "postfix", bounced)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set(), "a report counts once for its mail"


def test_the_same_delay_reported_again_counts_once(room):
    bounced = last_to(room, BOB).id
    for _ in range(bounces.TEMPORARY_FAILURES_TO_STOP):
        replay(room, "exim_delayed", bounced)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()
        assert session.get(BouncedAddress, BOB).temporary_failures == 1


def test_a_mail_first_delayed_then_given_up_on_stops_the_address(room):
    bounced = last_to(room, BOB).id
    replay(room, "exim_delayed", bounced)
    replay(room, "postfix", bounced)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == {BOB}


def test_a_report_more_than_a_week_after_the_mail_went_stops_nothing(room, clock):
    bounced = last_to(room, BOB).id
    clock.advance(days=bounces.REPORTED_WITHIN.days + 1)
    replay(room, "postfix", bounced)
    with room.database.reading() as session:
        assert bounces.stopped(session, [BOB]) == set()
