"""A mail that breaks something breaks only itself.

Its failure is recorded on it, its sender is told when that is possible, and
the mails after it are processed as if it had never come. Only an unreachable
database stops processing, and then the mail waits for it, pending.
"""

from __future__ import annotations

import pytest
from sqlalchemy import exc, insert, select

from pbm.commands import verbs
from pbm.mail.compose import Composer
from pbm.store.errors import DatabaseUnavailable
from pbm.store.models import InboundMessage, OutboxMessage, Player
from tests.mail.builders import message
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"

UTF7_SURROGATE = message(
    b"help +2AA-\r\n", content_type="text/plain; charset=utf-7", from_=ALICE, headers={"To": "pbm@localhost"}
)
UTF7_MESSAGE_ID = message(
    b"help\r\n", from_=ALICE, headers={"To": "pbm@localhost", "Message-ID": "=?utf-7?q?+2AA-?= <m2@example.com>"}
)


@pytest.fixture
def room(make_mailroom):
    return make_mailroom()


def statuses(room) -> list[str]:
    with room.database.reading() as session:
        return list(session.scalars(select(InboundMessage.status).order_by(InboundMessage.id)))


def answered_with_help(room, address: str) -> bool:
    return any(m["Subject"] == "Help for the PBeM Server" for m in room.replies_to(address))


@pytest.mark.parametrize("poison", [UTF7_SURROGATE, UTF7_MESSAGE_ID], ids=["utf7-body", "utf7-message-id"])
def test_a_mail_that_decodes_to_a_lone_surrogate_holds_up_no_later_mail(room, poison):
    row = room.send(poison, envelope_from=ALICE)
    assert row.status in ("processed", "failed")
    assert room.send(mail(BOB, "help")).status == "processed"
    assert answered_with_help(room, BOB)


def simulated(error: Exception):
    def run(*args, **kwargs):
        raise error

    return run


MAIL_ERRORS = {
    "data-error": exc.DataError("INSERT INTO player_addresses ...", {}, Exception("value too long")),
    "integrity-error": exc.IntegrityError("INSERT INTO players ...", {}, Exception("duplicate key")),
    "encoding-error": UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"),
    "bug": RuntimeError("simulated bug"),
}


@pytest.mark.parametrize("error", MAIL_ERRORS.values(), ids=MAIL_ERRORS.keys())
def test_a_mails_own_error_fails_that_mail_tells_its_sender_and_the_queue_moves_on(room, monkeypatch, error):
    real_run = verbs.run
    monkeypatch.setattr(verbs, "run", simulated(error))
    failed = room.send(mail(ALICE, "signup alice alice-pw"))
    monkeypatch.setattr(verbs, "run", real_run)

    assert failed.status == "failed" and type(error).__name__ in failed.note
    (told,) = room.replies()
    assert told["To"].addresses[0].addr_spec == ALICE
    assert "The server failed while reading your message" in body_of(told)
    assert room.send(mail(BOB, "signup bob bob-pw")).status == "processed"
    with room.database.reading() as session:
        assert list(session.scalars(select(Player.userid))) == ["bob"]


def test_a_reading_the_database_refuses_fails_that_mail_and_the_rest_of_its_batch_goes_on(room, monkeypatch):
    """Readings are recorded a batch to a transaction, without savepoints first; a row refused
    there (on PostgreSQL, a refused statement spoils the transaction) fails only its own mail."""
    import pbm.store.inbox as inbox
    from pbm.store.inbox import save_inbound

    carol = "carol@example.com"
    ids = [
        save_inbound(room.database, mail(sender, "help"), envelope_from=sender, envelope_to=["pbm@localhost"]).id
        for sender in (ALICE, BOB, carol)
    ]
    real = inbox.record_reading

    def record_reading(session, inbound_id, **kwargs):
        if inbound_id == ids[1]:
            session.connection().execute(insert(InboundMessage).values(raw=None))  # NOT NULL: refused
        return real(session, inbound_id, **kwargs)

    monkeypatch.setattr(inbox, "record_reading", record_reading)
    room.server.processor.process_pending()

    assert statuses(room) == ["processed", "failed", "processed"]
    with room.database.reading() as session:
        assert "IntegrityError" in session.get(InboundMessage, ids[1]).note
    replies = {m["To"].addresses[0].addr_spec: m for m in room.replies()}
    assert replies.keys() == {ALICE, BOB, carol}
    assert replies[ALICE]["Subject"] == replies[carol]["Subject"] == "Help for the PBeM Server"
    assert "The server failed while reading your message" in body_of(replies[BOB])


def test_when_the_failure_cannot_even_be_answered_the_mail_is_still_marked_failed(room, monkeypatch):
    real_compose = Composer.compose

    def compose_all_but_failures(self, reply, **kwargs):
        if reply.template == "failure":
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        return real_compose(self, reply, **kwargs)

    monkeypatch.setattr(verbs, "run", simulated(RuntimeError("simulated bug")))
    monkeypatch.setattr(Composer, "compose", compose_all_but_failures)
    failed = room.send(mail(ALICE, "help"))
    assert failed.status == "failed"
    assert "simulated bug" in failed.note and "the sender could not be told" in failed.note
    assert room.replies() == []
    monkeypatch.undo()
    assert room.send(mail(BOB, "help")).status == "processed"


def test_an_unreachable_database_leaves_the_mail_pending_until_it_is_back(room, monkeypatch):
    real_run = verbs.run
    monkeypatch.setattr(verbs, "run", simulated(exc.OperationalError("SELECT", {}, Exception("server closed"))))
    monkeypatch.setattr(room.database, "reachable", lambda timeout: False)
    with pytest.raises(DatabaseUnavailable):
        room.send(mail(ALICE, "signup alice alice-pw"))
    assert statuses(room) == ["pending"]

    monkeypatch.setattr(verbs, "run", real_run)
    room.server.processor.process_pending()
    assert statuses(room) == ["processed"]


class Deadlock(Exception):
    sqlstate = "40P01"


def test_a_deadlock_is_tried_again_at_once_and_the_mail_applied_once(make_mailroom, monkeypatch):
    room = make_mailroom(confirming=False)  # the calls counted are the signup's alone
    real_run = verbs.run
    calls = []

    def deadlocked_once(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise exc.OperationalError("UPDATE games ...", {}, Deadlock("deadlock detected"))
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(verbs, "run", deadlocked_once)
    assert room.send(mail(ALICE, "signup alice alice-pw")).status == "processed"
    assert len(calls) == 2
    assert [m["Subject"] for m in room.replies()] == ["Welcome to the PBeM Server, alice"]


def test_contention_that_never_passes_fails_the_mail_after_a_few_tries(room, monkeypatch):
    monkeypatch.setattr(verbs, "run", simulated(exc.OperationalError("UPDATE", {}, Deadlock("deadlock"))))
    assert room.send(mail(ALICE, "help")).status == "failed"
    monkeypatch.undo()
    assert room.send(mail(BOB, "help")).status == "processed"


def test_a_mail_whose_reading_never_finishes_is_given_up(room):
    from pbm.store.inbox import save_inbound

    stored = save_inbound(room.database, mail(ALICE, "help"), envelope_from=ALICE, envelope_to=["pbm@localhost"])
    with room.database.transaction() as session:
        # As if three workers had died reading it.
        session.get(InboundMessage, stored.id).read_attempts = 3
    room.server.processor.process_pending()
    with room.database.reading() as session:
        row = session.get(InboundMessage, stored.id)
        assert row.status == "failed" and "never finished" in row.note
        assert session.scalars(select(OutboxMessage)).all() == []  # who sent it is not known without reading it
    assert room.send(mail(BOB, "help")).status == "processed"


@pytest.mark.postgresql
def test_a_from_address_longer_than_its_column_fails_only_its_own_mail(make_mailroom, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite does not enforce the length of a text column")
    room = make_mailroom()
    long_sender = "x" * 330 + "@example.org"
    first = room.send(mail(long_sender, "signup longname long-pw"), envelope_from=ALICE)
    assert first.status in ("processed", "failed")
    assert room.send(mail(BOB, "signup bob bob-pw")).status == "processed"


def test_a_reader_that_cannot_start_leaves_the_mail_pending_for_later(room, monkeypatch):
    """No reading process can start (a broken installation): the server's fault, not the mail's."""
    real_read = room.server.processor.reader.read

    def cannot_start(*args, **kwargs):
        raise OSError("the mail reader could not start")

    monkeypatch.setattr(room.server.processor.reader, "read", cannot_start)
    with pytest.raises(OSError):
        room.send(mail(ALICE, "help"))
    assert statuses(room) == ["pending"]
    monkeypatch.setattr(room.server.processor.reader, "read", real_read)
    room.server.processor.process_pending()
    assert statuses(room) == ["processed"]
