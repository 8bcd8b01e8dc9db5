"""Storing received mail: whatever the envelope holds, the mail is stored once, raw, as it came."""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from pbm.store.inbox import dedupe_key, save_inbound
from pbm.store.models import InboundMessage
from tests.support import mail

ALICE = "alice@example.org"


def stored(database, row_id: int) -> InboundMessage:
    with database.reading() as session:
        return session.get(InboundMessage, row_id)


@pytest.mark.parametrize(
    "envelope_from, recipient",
    [
        ("ali\x00ce@example.org", "pbm@localhost"),
        (ALICE, "pbm+to\x00ken@localhost"),
        ("a" * 400 + "@example.org", "pbm@localhost"),
        ("alice\r\n\x1b[31m@example.org", "pbm@localhost"),
    ],
    ids=["nul-in-mail-from", "nul-in-rcpt", "address-over-320", "control-characters"],
)
def test_any_envelope_is_stored_reduced_and_the_raw_mail_as_it_came(database, envelope_from, recipient):
    raw = mail(ALICE, "help")
    row = save_inbound(database, raw, envelope_from=envelope_from, envelope_to=[recipient], peer="127.0.0.1\x00")
    kept = stored(database, row.id)
    assert kept.status == "pending" and kept.raw == raw
    for value in (kept.envelope_from, kept.envelope_to, kept.peer):
        assert not any(ord(c) < 32 or c == "\x7f" for c in value)
    assert len(kept.envelope_from) <= 320


def test_a_message_id_with_a_nul_or_over_998_characters_is_stored_reduced(database):
    nul = mail(ALICE, "help", message_id="<a\x00b@client.example>")
    long = mail(ALICE, "help", message_id="<" + "x" * 1200 + "@client.example>")
    for raw in (nul, long):
        kept = stored(database, save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"]).id)
        assert kept.raw == raw
        assert "\x00" not in kept.message_id and len(kept.message_id) <= 998


def test_the_same_mail_by_another_path_is_a_duplicate(database):
    """Another MX or a retry adds trace headers and may change line ends; it is still one mail."""
    raw = mail(ALICE, "signup alice alice-pw")
    again = (
        b"Return-Path: <alice@example.org>\r\nDelivered-To: pbm@localhost\r\n"
        b"Received: from mx2.example.org by pbm.example; Sat, 21 Nov 2026 10:00:00 +0000\r\n"
        + raw.replace(b"\n", b"\r\n")
    )
    first = save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"])
    second = save_inbound(database, again, envelope_from=ALICE, envelope_to=["pbm@localhost"])
    assert (first.status, second.status) == ("pending", "duplicate")


def without_message_id(body: str, *, trace: tuple[str, ...] = ()) -> bytes:
    """A mail as a script writes it (no Message-ID, no Date), with the `Received` lines of the
    mail servers it passed, the newest first."""
    received = "".join(f"Received: {hop}\r\n" for hop in trace)
    return f"{received}From: {ALICE}\r\nTo: pbm@localhost\r\nSubject: pbm\r\n\r\n{body}\r\n".encode()


SUBMITTED = "from [192.0.2.7] by mail.example.org with ESMTPSA id 4QxY1; Sat, 21 Nov 2026 10:00:00 +0000"


def test_a_mail_without_message_id_delivered_again_by_a_mail_server_is_a_duplicate(database):
    """A retry, a second MX, the Postfix pipe beside the SMTP door: each copy carries the trace the
    first server wrote when the author sent it, whatever the servers after it added."""
    raw = without_message_id("cephalopod move 101 alice alice-pw c3", trace=(SUBMITTED,))
    second_mx = without_message_id(
        "cephalopod move 101 alice alice-pw c3",
        trace=("from mail.example.org by mx2.pbm.example; Sat, 21 Nov 2026 10:05:00 +0000", SUBMITTED),
    )
    first = save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"])
    again = save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"])
    by_mx2 = save_inbound(database, second_mx, envelope_from=ALICE, envelope_to=["pbm@localhost"])
    assert (first.status, again.status, by_mx2.status) == ("pending", "duplicate", "duplicate")


def test_the_same_words_sent_again_without_message_id_are_another_mail(database):
    """Sent twice, they are two mails: straight from a script (no trace), or through a mail
    server (which writes each sending its own first `Received`)."""
    direct = without_message_id("list")
    relayed, relayed_again = (
        without_message_id("list", trace=(SUBMITTED.replace("4QxY1", queue_id),)) for queue_id in ("4QxY1", "5RzZ2")
    )
    rows = [
        save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"])
        for raw in (direct, direct, relayed, relayed_again)
    ]
    assert [row.status for row in rows] == ["pending"] * 4


def test_list_sent_twice_by_a_script_without_message_id_is_answered_twice(make_mailroom):
    room = make_mailroom()
    first = room.send(without_message_id("list"), envelope_from=ALICE)
    second = room.send(without_message_id("list"), envelope_from=ALICE)
    assert (first.status, second.status) == ("processed", "processed")
    assert [m["Subject"] for m in room.replies_to(ALICE)] == ["Games on the PBeM Server"] * 2


def test_another_mail_reusing_a_message_id_is_processed_too(make_mailroom):
    room = make_mailroom()
    first = room.send(mail(ALICE, "help", message_id="<same@client.example>"))
    second = room.send(mail(ALICE, "list", message_id="<same@client.example>"))
    assert (first.status, second.status) == ("processed", "processed")
    assert len(room.replies_to(ALICE)) == 2


def test_the_dedupe_key_fits_its_column_whatever_the_message_id():
    for raw in (mail(ALICE, message_id="<" + "x" * 5000 + "@y>"), b"no headers at all", b""):
        assert len(dedupe_key(raw)[1] or "") <= 128  # no key: a mail with no Message-ID and no trace


def test_every_copy_is_kept_but_only_the_first_is_pending(database):
    raw = mail(ALICE, "help")
    rows = [save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"]) for _ in range(3)]
    assert [row.status for row in rows] == ["pending", "duplicate", "duplicate"]
    with database.reading() as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 3


# -- group commit: mails that arrive together are stored together ----------------


def commits_during(database, work):
    """What `work` returned, and how many transactions it committed."""
    from sqlalchemy import event

    commits = []
    listener = lambda _connection: commits.append(1)  # noqa: E731
    event.listen(database.engine, "commit", listener)
    try:
        return work(), len(commits)
    finally:
        event.remove(database.engine, "commit", listener)


def test_mails_that_arrive_together_are_committed_together_in_the_order_they_came(database):
    import asyncio

    from pbm.mail.inbound import GroupCommit
    from pbm.store.inbox import Received

    storing = GroupCommit(database)
    mails = [Received(mail(ALICE, f"help {n}"), ALICE, ["pbm@localhost"]) for n in range(30)]

    async def arrive_at_once():
        return await asyncio.gather(*(storing.store(m) for m in mails))

    rows, commits = commits_during(database, lambda: asyncio.run(arrive_at_once()))
    assert commits < len(mails) / 2, "a burst is stored in few transactions"
    assert [stored(database, row.id).raw for row in rows] == [m.raw for m in mails]
    assert [row.id for row in rows] == sorted(row.id for row in rows), "ids in the order of arrival"
    assert {stored(database, row.id).status for row in rows} == {"pending"}


def test_a_copy_in_the_same_group_is_a_duplicate_of_the_first(database):
    from pbm.store.inbox import Received, save_received

    raw = mail(ALICE, "help", message_id="<same@example.org>")
    first, copy, other = save_received(
        database,
        [Received(raw, ALICE, ["pbm@localhost"]), Received(raw, ALICE, ["pbm@localhost"]),
         Received(mail(ALICE, "list"), ALICE, ["pbm@localhost"])],
    )  # fmt: skip
    assert (first.status, copy.status, other.status) == ("pending", "duplicate", "pending")
    assert stored(database, copy.id).note == f"a copy of inbound message {first.id}, which was processed instead"


def test_a_mail_whose_row_cannot_be_written_fails_alone(database, monkeypatch):
    import pbm.store.inbox as inbox
    from pbm.store.inbox import Received, save_received

    real = inbox._store

    def store(session, received):
        if b"poison" in received.raw:
            raise ValueError("this mail's own failure")
        return real(session, received)

    monkeypatch.setattr(inbox, "_store", store)
    before, poisoned, after = save_received(
        database, [Received(mail(ALICE, text), ALICE, ["pbm@localhost"]) for text in ("help", "poison", "list")]
    )
    assert isinstance(poisoned, ValueError)
    assert stored(database, before.id).status == stored(database, after.id).status == "pending"


def test_a_mail_the_database_refuses_fails_alone_and_the_rest_of_its_group_is_stored(database, monkeypatch):
    """The group is written without savepoints first; on PostgreSQL a refused statement spoils that
    whole transaction, so the group is written again, each mail in a savepoint of its own."""
    import pbm.store.inbox as inbox
    from pbm.store.inbox import Received, save_received

    real = inbox._store

    def store(session, received):
        if b"poison" in received.raw:
            # A row the database itself refuses (NOT NULL), not an error raised before any SQL.
            session.connection().execute(insert(InboundMessage).values(raw=None))
        return real(session, received)

    monkeypatch.setattr(inbox, "_store", store)
    first, poison, other = (mail(ALICE, text) for text in ("help", "poison", "list"))
    raws = [first, poison, other, first]
    outcomes = save_received(database, [Received(raw, ALICE, ["pbm@localhost"]) for raw in raws])
    assert isinstance(outcomes[1], IntegrityError)
    kept = [stored(database, outcome.id) for outcome in (outcomes[0], outcomes[2], outcomes[3])]
    assert [row.status for row in kept] == ["pending", "pending", "duplicate"]
    assert [row.raw for row in kept] == [first, other, first]
    with database.reading() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 3, "nothing of the refused mail"
