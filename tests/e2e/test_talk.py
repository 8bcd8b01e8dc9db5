"""Talking without moving, over real SMTP: a chat to a board's players, a message to players by name."""

from __future__ import annotations

from sqlalchemy import select

from pbm.store.models import MoveRecord
from tests.e2e.club import ADDRESSES, signed_up, to
from tests.support import body_of, mail, reply_to_board


def at_board_101(server, sink) -> None:
    signed_up(server, sink, "alice", "bob", "carol")
    server.send(mail(ADDRESSES["alice"], "cephalopod challenge alice bob"), ADDRESSES["alice"])
    sink.wait(2)


def moves(server) -> int:
    with server.server.database.reading() as session:
        return len(session.scalars(select(MoveRecord)).all())


def test_a_chat_reaches_every_player_of_the_board_and_moves_nothing(server, sink):
    at_board_101(server, sink)
    server.send(mail(ADDRESSES["alice"], "cephalopod chat 101 alice alice-pw\n\nGood luck, Bob!"), ADDRESSES["alice"])
    chats = sink.wait(2)
    assert {m["Subject"] for m in chats} == {"Cephalopod chat 101 alice"}
    text = body_of(to(chats, "bob"))
    assert text.startswith("alice writes about Cephalopod board 101:\n\nGood luck, Bob!\n")
    assert ADDRESSES["alice"] not in text
    assert moves(server) == 0


def test_a_reply_whose_first_line_is_chat_chats_back(server, sink):
    at_board_101(server, sink)
    server.send(mail(ADDRESSES["alice"], "cephalopod chat 101 alice alice-pw\n\nReady?"), ADDRESSES["alice"])
    bobs = to(sink.wait(2), "bob")
    reply = reply_to_board(bobs, ADDRESSES["bob"], "chat", comment="Always.")
    server.send(reply, ADDRESSES["bob"], [bobs["Reply-To"].addresses[0].addr_spec])
    chats = sink.wait(2)
    assert {m["Subject"] for m in chats} == {"Cephalopod chat 101 bob"}
    assert body_of(to(chats, "alice")).startswith("bob writes about Cephalopod board 101:\n\nAlways.\n")
    assert moves(server) == 0


def test_only_a_player_of_the_board_chats_there(server, sink):
    at_board_101(server, sink)
    server.send(mail(ADDRESSES["carol"], "cephalopod chat 101 carol carol-pw\n\nHi!"), ADDRESSES["carol"])
    (refusal,) = sink.wait(1)
    assert refusal["To"].addresses[0].addr_spec == ADDRESSES["carol"]
    assert "carol does not play in Cephalopod board 101" in body_of(refusal)


def test_a_chat_with_nothing_to_say_is_refused(server, sink):
    at_board_101(server, sink)
    server.send(mail(ADDRESSES["alice"], "cephalopod chat 101 alice alice-pw"), ADDRESSES["alice"])
    (refusal,) = sink.wait(1)
    assert "There is nothing to pass on" in body_of(refusal)


def test_a_message_reaches_the_players_named_without_anyones_address(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    server.send(
        mail(ADDRESSES["alice"], "message alice alice-pw bob carol\n\nA club night on Friday?"), ADDRESSES["alice"]
    )
    sent = sink.wait(3)
    for userid in ("bob", "carol"):
        received = to(sent, userid)
        assert received["Subject"] == "Message from alice"
        text = body_of(received)
        assert text.startswith("alice writes to bob, carol:\n\nA club night on Friday?\n")
        assert not any(address in text for address in ADDRESSES.values())
    confirmation = to(sent, "alice")
    assert confirmation["Subject"] == "Message sent to bob, carol"


def test_a_message_to_nobody_signed_up_is_refused(server, sink):
    signed_up(server, sink, "alice")
    server.send(mail(ADDRESSES["alice"], "message alice alice-pw zed\n\nHello?"), ADDRESSES["alice"])
    (refusal,) = sink.wait(1)
    assert "No player is signed up as zed" in body_of(refusal)
