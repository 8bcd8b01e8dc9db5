"""One mailbox is one address to the limits, however its address is written (`pbm.addresses`).

Mail systems treat ``Victim@Target.example`` and ``victim@target.example`` as
the same mailbox; a limit that counted them apart could be passed once for
every way of writing the address.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import literal, select

from pbm.addresses import comparable, comparable_column
from pbm.store.models import OutboxMessage
from tests.support import body_of, mail

LIMIT = 5


@pytest.fixture
def room(make_mailroom):
    return make_mailroom(max_mails_per_address_per_hour=LIMIT)


def outbox_rows(room) -> list[OutboxMessage]:
    with room.database.reading() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def test_error_answers_to_one_mailbox_stop_at_the_limit_whatever_the_case_of_its_address(make_mailroom):
    room = make_mailroom()
    spellings = ["victim@target.example", "Victim@Target.example", "VICTIM@TARGET.EXAMPLE", "vIctim@target.example",
                 "viCTim@Target.Example"]
    for n in range(12):
        for spelling in spellings:
            room.send(mail(spelling, f"frobnicate ({n})"))
    answered = [row for row in outbox_rows(room) if row.status == "pending"]
    assert len(answered) == 10  # PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR


def test_mails_to_one_mailbox_are_counted_together_whatever_the_case_of_its_address(room):
    for spelling in ["alice@example.org", "Alice@example.org", "ALICE@EXAMPLE.ORG"] * 3:
        room.send(mail(spelling, "help"))
    assert [row.status for row in outbox_rows(room)] == ["pending"] * LIMIT + ["held"] * 4


def test_signups_from_one_mailbox_are_counted_together_whatever_the_case_of_its_address(make_mailroom):
    room = make_mailroom(max_signups_per_sender_per_day=2)
    for n, spelling in enumerate(["mal@evil.example", "Mal@evil.example", "MAL@Evil.Example"]):
        room.send(mail(spelling, f"signup mal{n} mal-pw-{n}"))
    refusal = room.replies()[-1]
    assert "Your address has signed up 2 players in the last 24 hours" in body_of(refusal)


def test_one_mailbox_named_twice_in_one_signup_is_mailed_once(make_mailroom):
    room = make_mailroom()
    room.send(mail("new@example.org", "signup newbie newbie-pw Newbie@Example.org newbie@example.org"))
    assert [m["To"].addresses[0].addr_spec for m in room.replies()] == ["Newbie@example.org", "new@example.org"]


ATEXT = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-.")
ADDRESSES = st.builds("{}@{}".format, st.text(ATEXT, min_size=1, max_size=20), st.text(ATEXT, min_size=1, max_size=20))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(address=ADDRESSES)
def test_the_database_compares_an_address_as_the_policy_does(database, address):
    with database.reading() as session:
        assert session.scalar(select(comparable_column(literal(address)))) == comparable(address)
