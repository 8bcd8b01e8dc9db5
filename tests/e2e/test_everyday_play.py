"""Ordinary habits of mail users, over real SMTP: each gives the result the player meant.

A reply to an old board mail, a comment that starts like a command, a board
mail passed on to a friend, a typo in a game's name: every one of these once
gave a wrong or confusing result.
"""

from __future__ import annotations

from sqlalchemy import select

from pbm.store.models import Game, Move
from tests.support import body_of, mail, reply_to_board

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"


def to(messages, address):
    return [m for m in messages if m["To"].addresses[0].addr_spec == address]


def reply_address(board) -> str:
    return board["Reply-To"].addresses[0].addr_spec


def moves(server) -> list[str]:
    with server.server.database.reading() as session:
        return list(session.scalars(select(Move.notation).order_by(Move.number)))


def test_a_reply_to_an_old_board_mail_is_refused_with_the_board_as_it_is(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    bobs_first_board = to(sink.wait(2), BOB)[0]
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    sink.wait(2)
    server.send(mail(BOB, "cephalopod move 101 bob bob-pw b3"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw d3"), ALICE)
    sink.wait(2)
    assert moves(server) == ["c3", "b3", "d3"]

    # bob answers his *first* board mail, drawn before any move.
    server.send(reply_to_board(bobs_first_board, BOB, "e5"), BOB, [reply_address(bobs_first_board)])
    (refusal,) = sink.wait(1)
    assert refusal["To"].addresses[0].addr_spec == BOB
    assert refusal["Subject"] == "Cephalopod Board 101 Error"
    text = body_of(refusal)
    assert "Your reply answers the board after move 0, but the game has moved on since" in text
    assert "Reply to the newest board mail" in text
    assert "3  ... <1> (1) (1) ...  3" in text  # the board as it stands
    assert moves(server) == ["c3", "b3", "d3"]

    # The refusal itself may be answered with the move, as a board mail may.
    server.send(reply_to_board(refusal, BOB, "e5"), BOB, [reply_address(refusal)])
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 alice"}
    assert moves(server) == ["c3", "b3", "d3", "e5"]


def test_a_board_mail_passed_on_does_not_let_another_address_play(server, sink):
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(3)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    alices_board = to(sink.wait(2), ALICE)[0]

    # alice forwards her board mail to carol, who replies to it.
    server.send(reply_to_board(alices_board, CAROL, "c3"), CAROL, [reply_address(alices_board)])
    (refusal,) = sink.wait(1)
    assert refusal["To"].addresses[0].addr_spec == CAROL
    text = body_of(refusal)
    assert "This reply address is alice's, and works only from an address alice registered" in text
    assert "cephalopod move 101 alice PASSWORD MOVE" in text
    assert moves(server) == []
    with server.server.database.reading() as session:
        assert session.scalar(select(Game.move_count)) == 0
