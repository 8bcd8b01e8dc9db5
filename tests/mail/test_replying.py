"""Replying to the server's mails: a reply acts on the board its mail showed, or says what to do.

A board mail's reply address names the player, the board and the move it
showed; whatever the reply carries (a move, resign, a proposal, a vote) is
judged against that board. Every test runs on SQLite and, when configured,
on PostgreSQL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from sqlalchemy import select

from pbm.store.models import Board, Offer
from tests.mail.mailroom import Mailroom
from tests.support import body_of, mail, reply_to_board

ALICE, BOB = "alice@example.org", "bob@example.net"
SECRET_KEY = b"k" * 40
"""The mailroom's key (`tests.mail.mailroom`)."""


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    room = make_mailroom()
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    return room


def the_only(messages):
    assert len(messages) == 1, [m["Subject"] for m in messages]
    return messages[0]


def reply_address(message) -> str:
    return message["Reply-To"].addresses[0].addr_spec


def answer(room: Mailroom, message, sender: str, first_line: str, comment: str = "") -> None:
    """Reply to `message` as a mail client does: to its reply address."""
    room.send(reply_to_board(message, sender, first_line, comment), to=reply_address(message))


def board(room: Mailroom) -> Board:
    with room.database.reading() as session:
        return session.scalar(select(Board))


def pending_offers(room: Mailroom) -> int:
    with room.database.reading() as session:
        return len(session.scalars(select(Offer)).all())


def old_reply_address(board_id: int, player_id: int) -> str:
    """A reply address as board mails carried it before they named the move they showed."""
    digest = hmac.new(SECRET_KEY, f"reply:{board_id}:{player_id}".encode(), hashlib.sha256).digest()
    return f"pbm+{board_id}-{player_id}-{base64.b32encode(digest).decode()[:20].lower()}@localhost"


def play_two_moves(room: Mailroom):
    """alice and bob each move by command; returns their first board mails, stale now."""
    first = {m["To"].addresses[0].addr_spec: m for m in room.replies()[-2:]}
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"))
    room.replies()
    return first[ALICE], first[BOB]


# -- a stale reply does nothing --------------------------------------------------------------


def test_a_reply_to_an_older_board_cannot_resign(room):
    alices_first, _ = play_two_moves(room)
    answer(room, alices_first, ALICE, "resign")
    refusal = the_only(room.replies())
    assert "Your reply answers the board after move 0, but the game has moved on since" in body_of(refusal)
    assert "if you still want to resign" in body_of(refusal)
    assert board(room).status == "active"
    answer(room, refusal, ALICE, "resign")  # the refusal's own reply address names the board as it stands
    assert board(room).status == "finished"


def test_a_reply_to_an_older_board_cannot_propose_a_draw(room):
    alices_first, _ = play_two_moves(room)
    answer(room, alices_first, ALICE, "propose")
    assert "the game has moved on since" in body_of(the_only(room.replies()))
    assert pending_offers(room) == 0


def test_a_reply_to_a_board_from_before_a_proposal_cannot_accept_it(room):
    room.replies()
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    bobs_board = next(m for m in room.replies() if m["To"].addresses[0].addr_spec == BOB)
    room.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw propose"))
    proposal = [m for m in room.replies() if m["To"].addresses[0].addr_spec == BOB][-1]
    answer(room, bobs_board, BOB, "accept")
    assert "the game has moved on since" in body_of(the_only(room.replies()))
    assert board(room).status == "active" and pending_offers(room) == 1
    answer(room, proposal, BOB, "accept")
    assert board(room).status == "finished"


def test_a_reply_to_an_older_board_may_still_show_it_or_chat(room):
    alices_first, _ = play_two_moves(room)
    answer(room, alices_first, ALICE, "chat", comment="Well played.")
    assert {m["Subject"] for m in room.replies()} == {"Cephalopod chat 101 alice"}
    answer(room, alices_first, ALICE, "show")
    assert the_only(room.replies())["Subject"] == "Cephalopod Board 101 alice"


def test_a_stale_move_when_it_is_not_the_players_turn_does_not_invite_a_move(room):
    _, bobs_first = play_two_moves(room)
    answer(room, bobs_first, BOB, "d4")
    text = body_of(the_only(room.replies()))
    assert "It is alice's turn: you will be mailed the board when it is yours" in text
    assert "with your move" not in text
    assert board(room).move_count == 2


# -- reply addresses of the older kind, which name no move -----------------------------------


@pytest.mark.parametrize("first_line", ["c3", "resign", "propose"])
def test_a_reply_address_without_a_move_number_neither_plays_nor_resigns_nor_proposes(room, first_line):
    room.replies()
    old = old_reply_address(board_id=1, player_id=1)
    room.send(mail(ALICE, first_line, to=old), to=old)
    refusal = the_only(room.replies())
    assert "older board mail, which does not say which move it showed" in body_of(refusal)
    assert reply_address(refusal).startswith("pbm+1-1-0-"), "a reply address that names the board as it stands"
    assert (board(room).move_count, board(room).status, pending_offers(room)) == (0, "active", 0)
    answer(room, refusal, ALICE, first_line)
    assert (board(room).move_count, board(room).status, pending_offers(room)) != (0, "active", 0)


def test_a_reply_address_without_a_move_number_may_still_chat(room):
    room.replies()
    old = old_reply_address(board_id=1, player_id=1)
    room.send(mail(ALICE, "chat\n\nHello there.", to=old), to=old)
    assert {m["Subject"] for m in room.replies()} == {"Cephalopod chat 101 alice"}


# -- a reply that is no move -----------------------------------------------------------------


def test_a_reply_that_is_no_move_may_be_answered_again_and_names_chat(room):
    alices_board = room.replies_to(ALICE)[-1]
    answer(room, alices_board, ALICE, "Nice weather for a game")
    refusal = the_only(room.replies())
    assert "'Nice weather for a game' is not a move" in body_of(refusal)
    assert 'To write to the other players without moving, reply with "chat" on the first' in body_of(refusal)
    assert reply_address(refusal).startswith("pbm+1-1-0-")
    answer(room, refusal, ALICE, "c3")
    assert board(room).move_count == 1


def test_a_reply_may_greet_before_its_move(room):
    alices_board = room.replies_to(ALICE)[-1]
    answer(room, alices_board, ALICE, "Hi Bob,\n\nc3", comment="Your turn.")
    assert board(room).move_count == 1
    assert "alice writes:\n\nYour turn." in body_of(room.replies_to(BOB)[-1])


# -- a reply that reaches the plain address -------------------------------------------------


def to_the_plain_address(message, sender: str, text: str, subject: str = "") -> bytes:
    """A reply to `message` as a client that leaves Reply-To aside writes it: to the server's address,
    threaded (In-Reply-To the mail, References its References and the mail)."""
    references = " ".join(filter(None, [message["References"], message["Message-ID"]]))
    return mail(sender, text, subject=subject, headers={"In-Reply-To": message["Message-ID"], "References": references})


def test_a_reply_to_a_board_mail_that_reaches_the_plain_address_says_how_to_play(room):
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    bobs_board = room.replies_to(BOB)[-1]  # a later mail of bob's thread: its References name the thread
    room.send(to_the_plain_address(bobs_board, BOB, "b3\n\n> the board"))
    text = body_of(the_only(room.replies()))
    assert "Your mail answers a mail about Cephalopod board 101, but it came to the server's own address" in text
    assert "cephalopod move 101 bob PASSWORD MOVE" in text
    assert board(room).move_count == 1


CAROL = "carol@example.com"


def test_a_reply_to_the_board_someone_not_playing_asked_for_says_the_plain_address_reads_commands(room):
    """Anyone may ``show`` a board: the answer is a board mail without a reply address, and a reply
    to it at the plain address is told why nothing was done, as a reply to a player's board mail is."""
    room.replies()
    room.send(mail(CAROL, "cephalopod show 101"))
    shown = the_only(room.replies())
    room.send(to_the_plain_address(shown, CAROL, "Nice opening!", subject=f"Re: {shown['Subject']}"))
    text = body_of(the_only(room.replies()))
    assert "Your mail answers a mail about Cephalopod board 101" in text
    assert "No command found" not in text
    assert "cephalopod show 101" in text


def test_someone_else_replying_to_a_board_someone_asked_for_learns_nothing_of_it(room):
    room.replies()
    room.send(mail(CAROL, "cephalopod show 101"))
    shown = the_only(room.replies())
    room.send(to_the_plain_address(shown, "dave@example.com", "Nice opening!"))
    text = body_of(the_only(room.replies()))
    assert "No command found in your mail" in text and "board 101" not in text


def test_a_player_answering_another_players_board_mail_at_the_plain_address_learns_nothing_of_it(room):
    bobs_board = room.replies_to(BOB)[-1]
    room.send(to_the_plain_address(bobs_board, ALICE, "b3"))
    text = body_of(the_only(room.replies()))
    assert "No command found in your mail" in text
    assert "board 101" not in text


def test_a_reply_to_a_message_that_reaches_the_server_says_how_to_answer_its_author(room):
    room.replies()
    room.send(mail(BOB, "message bob bob-pw alice\n\nFancy a game of Cubeo?"))
    message = room.replies_to(ALICE)[-1]
    assert message["Subject"] == "Message from bob"
    room.send(to_the_plain_address(message, ALICE, "Sure, after this one!"))
    text = body_of(the_only(room.replies()))
    assert "Your mail answers a message the server passed on to you" in text
    assert "message YOURID PASSWORD AUTHOR" in text


def test_a_reply_with_nothing_but_a_greeting_may_be_answered_again_with_the_move(room):
    alices_board = room.replies_to(ALICE)[-1]
    answer(room, alices_board, ALICE, "Hi Bob,")
    refusal = the_only(room.replies())
    assert "Your reply has no move in it" in body_of(refusal)
    assert reply_address(refusal) == reply_address(alices_board)
    answer(room, refusal, ALICE, "c3")
    assert board(room).move_count == 1
