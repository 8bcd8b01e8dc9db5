"""Storing received mail: whatever the envelope holds, the mail is stored once, raw, as it came."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbm.store.inbox import dedupe_key, save_inbound
from pbm.store.models import InboundMessage
from tests.mail.mailroom import Mailroom
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


def test_another_mail_reusing_a_message_id_is_processed_too(database_url, tmp_path):
    room = Mailroom(database_url, tmp_path)
    first = room.send(mail(ALICE, "help", message_id="<same@client.example>"))
    second = room.send(mail(ALICE, "list", message_id="<same@client.example>"))
    assert (first.status, second.status) == ("processed", "processed")
    assert len(room.replies_to(ALICE)) == 2


def test_the_dedupe_key_fits_its_column_whatever_the_message_id():
    for raw in (mail(ALICE, message_id="<" + "x" * 5000 + "@y>"), b"no headers at all", b""):
        assert len(dedupe_key(raw)[1]) <= 128


def test_every_copy_is_kept_but_only_the_first_is_pending(database):
    raw = mail(ALICE, "help")
    rows = [save_inbound(database, raw, envelope_from=ALICE, envelope_to=["pbm@localhost"]) for _ in range(3)]
    assert [row.status for row in rows] == ["pending", "duplicate", "duplicate"]
    with database.reading() as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 3
