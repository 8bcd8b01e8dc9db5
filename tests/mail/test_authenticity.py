"""The DMARC gate: with `PBM_TRUSTED_AUTHSERV_ID` set, a reply to a board mail whose From our own
MTA could not vouch for (DMARC ``fail``, in the topmost Authentication-Results header naming that
MTA) plays nothing; the player is told at that address, theirs, and their own reply to that
answer plays it. ``pass``, ``none``, a header of anyone else's or none at all: as before."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from pbm.mail.authentication import dmarc_result
from pbm.store.models import Board
from tests.mail.mailroom import Mailroom
from tests.support import body_of, mail, reply_to_board

ALICE, BOB = "alice@example.org", "bob@example.net"
MTA = "mx.games.example"


def results(authserv_id: str, dmarc: str) -> bytes:
    found = f"spf=pass smtp.mailfrom=example.org; dmarc={dmarc} (p=reject) header.from=example.org"
    return f"Authentication-Results: {authserv_id}; {found}\r\n".encode()


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    room = make_mailroom(trusted_authserv_id=MTA)
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    return room


def alices_board_mail(room: Mailroom):
    (board_mail,) = [m for m in room.replies_to(ALICE) if "Board 101" in str(m["Subject"])]
    return board_mail


def moves(room: Mailroom) -> int:
    with room.database.reading() as session:
        return session.scalar(select(Board.move_count))


def reply(room: Mailroom, to_mail, *, top: bytes = b"", lower: dict[str, str] | None = None) -> None:
    raw = reply_to_board(to_mail, ALICE, "c3")
    if lower:
        head, _, body = raw.partition(b"\n\n")
        raw = head + b"\n" + b"".join(f"{k}: {v}\n".encode() for k, v in lower.items()) + b"\n" + body
    room.send(top + raw, to=to_mail["Reply-To"].addresses[0].addr_spec)


def test_a_reply_that_fails_dmarc_plays_nothing_and_the_players_own_reply_to_the_answer_plays_it(room):
    board_mail = alices_board_mail(room)
    reply(room, board_mail, top=results(MTA, "fail"))
    assert moves(room) == 0
    (told,) = room.replies_to(ALICE)
    assert "failed DMARC" in body_of(told) and told["Reply-To"] is not None
    reply(room, told, top=results(MTA, "pass"))
    assert moves(room) == 1


@pytest.mark.parametrize(
    "top", [results(MTA, "pass"), results(MTA, "none"), results("mx.elsewhere.example", "fail"), b""]
)
def test_a_pass_none_someone_elses_header_or_none_plays_as_before(room, top):
    reply(room, alices_board_mail(room), top=top)
    assert moves(room) == 1


@pytest.fixture
def strict_room(make_mailroom) -> Mailroom:
    """A club that plays a reply without a password only on our MTA's DMARC pass."""
    room = make_mailroom(trusted_authserv_id=MTA, reply_requires_dmarc_pass=True)
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    return room


@pytest.mark.parametrize(
    "top", [results(MTA, "none"), results(MTA, "temperror"), results("mx.elsewhere.example", "pass"), b""]
)
def test_a_club_that_asks_for_dmarc_pass_plays_no_reply_without_it_and_says_to_use_the_password(strict_room, top):
    reply(strict_room, alices_board_mail(strict_room), top=top)
    assert moves(strict_room) == 0
    (told,) = strict_room.replies_to(ALICE)
    assert "plays a reply without a password only when" in body_of(told)
    assert "Send the command with alice's password instead" in body_of(told)
    strict_room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3", headers=_headers(top)))
    assert moves(strict_room) == 1


def test_a_club_that_asks_for_dmarc_pass_plays_a_reply_that_has_it(strict_room):
    reply(strict_room, alices_board_mail(strict_room), top=results(MTA, "pass"))
    assert moves(strict_room) == 1


def _headers(top: bytes) -> dict[str, str]:
    name, _, value = top.decode().strip().partition(": ")
    return {name: value} if name else {}


def test_a_forged_header_below_the_mtas_own_counts_for_nothing(room):
    board_mail = alices_board_mail(room)
    forged = {"Authentication-Results": f"{MTA}; dmarc=pass header.from=example.org"}
    reply(room, board_mail, top=results(MTA, "fail"), lower=forged)
    assert moves(room) == 0


def test_without_a_trusted_id_no_header_is_read(make_mailroom):
    room = make_mailroom()
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    reply(room, alices_board_mail(room), top=results(MTA, "fail"))
    assert moves(room) == 1


def test_the_topmost_header_of_the_trusted_id_is_read_and_comments_say_nothing():
    raw = (
        b"Authentication-Results: MX.Games.Example;\r\n\tdmarc=fail (dmarc=pass in a comment)\r\n"
        b"Authentication-Results: mx.games.example; dmarc=pass\r\n\r\nbody"
    )
    assert dmarc_result(raw, MTA) == "fail"
    assert dmarc_result(b"Authentication-Results: mx.games.example.evil; dmarc=fail\r\n\r\n", MTA) is None
    assert dmarc_result(b"Authentication-Results: mx.games.example; spf=pass\r\n\r\n", MTA) is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 50))
def test_any_header_bytes_read_as_a_known_result_or_none(junk, repeat):
    raw = results(MTA, "fail")[:40] + junk * repeat
    assert dmarc_result(raw, MTA) in (None, "pass", "fail", "none", "temperror", "permerror", "bestguesspass")


# -- reply tokens are tied to the address they were mailed to, while the player has it ---------------

ALICE_AT_WORK = "alice@work.example"


@pytest.fixture
def two_addresses(make_mailroom) -> Mailroom:
    room = make_mailroom()
    room.send(mail(ALICE, f"signup alice alice-pw {ALICE} {ALICE_AT_WORK}"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    return room


def test_a_reply_address_counts_from_the_players_addresses_and_no_other(two_addresses):
    board_mail = alices_board_mail(two_addresses)
    address = board_mail["Reply-To"].addresses[0].addr_spec
    two_addresses.send(reply_to_board(board_mail, "eve@example.net", "c3"), to=address)
    assert moves(two_addresses) == 0  # a board mail passed on: not alice's address
    two_addresses.send(reply_to_board(board_mail, ALICE_AT_WORK.upper(), "c3"), to=address)
    assert moves(two_addresses) == 1  # another of alice's addresses, in any letter case


def test_removing_an_address_ends_the_reply_addresses_mailed_to_it(two_addresses):
    board_mail = alices_board_mail(two_addresses)
    two_addresses.send(mail(ALICE_AT_WORK, f"change address alice alice-pw {ALICE_AT_WORK}"))
    two_addresses.send(reply_to_board(board_mail, ALICE, "c3"), to=board_mail["Reply-To"].addresses[0].addr_spec)
    assert moves(two_addresses) == 0
