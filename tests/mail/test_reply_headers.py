"""The headers of the mail the server sends, through the real processor on a real database.

Whatever a received mail holds, the answer has the server's headers, once
each, and one plain-text part. Every test runs on SQLite and, when
configured, on PostgreSQL.
"""

from __future__ import annotations

import pytest

from tests.mail.builders import ANSWER_HEADERS, message
from tests.mail.mailroom import Mailroom
from tests.support import body_of, mail

ALICE, BOB, VICTIM = "alice@example.org", "bob@example.net", "victim@example.org"
ERROR_HEADERS = ANSWER_HEADERS
FIRST_BOARD_HEADERS = [name for name in ERROR_HEADERS if name not in ("In-Reply-To", "References")] + ["Reply-To"]
LATER_BOARD_HEADERS = ERROR_HEADERS + ["Reply-To"]


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    return make_mailroom()


def the_only(messages):
    assert len(messages) == 1, [m["Subject"] for m in messages]
    return messages[0]


def test_a_spoofed_mail_with_an_encoded_word_message_id_gets_a_plain_error_reply(room):
    injection = (
        "=?utf-8?q?<x@y>=0D=0ABcc:_someone@evil.test=0D=0AContent-Type:_text/html=0D=0A=0D=0A"
        "<h1>Your_account_is_locked</h1>?="
    )
    room.send(message("hello there", from_=VICTIM, headers={"Message-ID": injection}))
    reply = the_only(room.replies())
    assert sorted(reply.keys()) == sorted(name for name in ERROR_HEADERS if name not in ("In-Reply-To", "References"))
    assert "Bcc" not in reply
    assert not reply.is_multipart() and reply.get_content_type() == "text/plain"
    assert "<h1>" not in reply.as_string() and "evil.test" not in reply.as_string()
    # Nobody confirmed the address it claims: the answer quotes its first word only (no backscatter).
    assert "> hello\n" in body_of(reply) and "hello there" not in body_of(reply)


def test_a_utf7_mail_that_decodes_to_a_lone_surrogate_gets_a_readable_reply(room):
    inbound = room.send(message(b"help +2AA-", from_=ALICE, content_type="text/plain; charset=utf-7"))
    assert inbound.status == "processed"
    reply = the_only(room.replies())
    assert sorted(reply.keys()) == sorted(ERROR_HEADERS)
    assert "help \ufffd" in body_of(reply)
    assert "There is no help on" in body_of(reply)


def test_a_200_character_message_id_threads_the_answer_verbatim(room):
    long_id = "<" + "q" * 183 + "@client.example>"
    assert len(long_id) == 200
    room.send(mail(ALICE, "no command here", message_id=long_id))
    reply = the_only(room.replies())
    written = dict(reply.raw_items())  # as on the wire: an encoded id would read back the same once decoded
    assert written["In-Reply-To"] == written["References"] == long_id


def test_board_mails_carry_the_server_headers_once_each_and_later_ones_thread(room):
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob\n\nHave fun, Jörg sends his regards"))
    first = room.replies_to(BOB)[-1]
    assert sorted(first.keys()) == sorted(FIRST_BOARD_HEADERS)
    assert "Jörg sends his regards" in body_of(first)
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw a1=1"))
    later = room.replies_to(BOB)[-1]
    assert later["Subject"] == "Cephalopod Board 101 bob"
    assert sorted(later.keys()) == sorted(LATER_BOARD_HEADERS)
    assert later["In-Reply-To"] == later["References"] == first["Message-ID"]
    # The reply address names the board each mail shows: the first one's is stale now.
    assert first["Reply-To"].addresses[0].addr_spec.startswith("pbm+1-2-0-")
    assert later["Reply-To"].addresses[0].addr_spec.startswith("pbm+1-2-1-")


def test_a_sender_whose_address_cannot_be_written_to_gets_no_reply_and_the_mail_is_still_processed(room):
    too_long = "a" * 65 + "@example.org"  # a local part is at most 64 octets
    inbound = room.send(message("no command here", from_=too_long))
    assert inbound.status == "processed"
    assert room.replies() == []


def sign_up(room, *userids: str) -> None:
    addresses = {"alice": ALICE, "bob": BOB}
    for userid in userids:
        room.send(mail(addresses[userid], f"signup {userid} {userid}-pw"))
    room.replies()


def test_a_message_to_others_carries_nothing_of_the_authors_headers(room):
    sign_up(room, "alice", "bob")
    authors = "<1234.secret-host.alice-laptop@mail.alice.example>"
    room.send(mail(ALICE, "message alice alice-pw bob\n\nHello", message_id=authors))
    replies = room.replies()
    (to_bob,) = [m for m in replies if m["To"].addresses[0].addr_spec == BOB]
    assert "alice-laptop" not in to_bob.as_string()
    assert to_bob["In-Reply-To"] is None and to_bob["References"] is None
    (to_alice,) = [m for m in replies if m["To"].addresses[0].addr_spec == ALICE]
    assert to_alice["In-Reply-To"] == authors  # the sender's own answer still joins their thread


def test_a_broadcast_carries_nothing_of_the_authors_headers(make_mailroom):
    room = make_mailroom(admins="alice")
    sign_up(room, "alice", "bob")
    authors = "<5678@alice-laptop.mail.alice.example>"
    room.send(mail(ALICE, "broadcast alice alice-pw\n\nNews", message_id=authors))
    (to_bob,) = room.replies_to(BOB)
    assert "alice-laptop" not in to_bob.as_string()
    assert to_bob["In-Reply-To"] is None and to_bob["References"] is None
