"""Watching games without playing, over real SMTP: subscriptions, and a mail when a game ends."""

from __future__ import annotations

import random

import pbm.games
from tests.e2e.club import ADDRESSES, send, signed_up, to
from tests.support import body_of


def play_to_the_end(server, sink, board: int):
    """alice and bob play `board` (3x3) to its end; returns the mails the last move caused."""
    engine, chooser = pbm.games.get("cephalopod"), random.Random(1)
    state = engine.new(options={"size": 3})
    while engine.result(state) is None:
        move = chooser.choice(engine.legal_moves(state))
        userid = ("alice", "bob")[state.to_move]
        send(server, userid, f"cephalopod move {board} {userid} {userid}-pw {move}")
        mails = sink.wait(2)
        state = engine.play(state, move)
    return mails + sink.once_settled(server)


def test_a_subscriber_gets_every_board_mail_without_a_reply_address(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge alice bob")
    sink.wait(2)
    send(server, "carol", "cephalopod subscribe 101 carol carol-pw")
    (confirmation,) = sink.wait(1)
    assert confirmation["Subject"] == "Watching Cephalopod Board 101"
    send(server, "alice", "cephalopod move 101 alice alice-pw c3")
    watched = to(sink.wait(3), "carol")
    assert watched["Subject"] == "Cephalopod Board 101 bob"
    assert watched["Reply-To"] is None
    text = body_of(watched)
    assert text.startswith("alice played c3.\n")
    assert "It is your turn" not in text

    send(server, "carol", "cephalopod unsub 101 carol carol-pw")
    assert sink.wait(1)[0]["Subject"] == "No longer watching Cephalopod Board 101"
    send(server, "bob", "cephalopod move 101 bob bob-pw b3")
    assert sorted(m["To"].addresses[0].addr_spec for m in sink.wait(2)) == [ADDRESSES["alice"], ADDRESSES["bob"]]
    assert sink.once_settled(server) == []


def test_subscribing_to_all_watches_every_game_of_the_type_that_starts_later(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge alice bob")
    sink.wait(2)
    send(server, "carol", "cephalopod subscribe carol carol-pw all")
    sink.wait(1)
    send(server, "bob", "cephalopod challenge bob alice")
    new = to(sink.wait(3), "carol")
    assert new["Subject"] == "New Cephalopod Board 102 bob"
    send(server, "alice", "cephalopod move 101 alice alice-pw c3")
    assert len(sink.wait(2)) == 2 and sink.once_settled(server) == []  # board 101 started before


def test_a_player_asks_to_hear_when_any_game_ends(server, sink):
    signed_up(server, sink, "alice", "bob", "dave")
    send(server, "dave", "cephalopod notify dave dave-pw")
    assert sink.wait(1)[0]["Subject"] == "Cephalopod notices for dave"
    send(server, "alice", "cephalopod challenge -size=3 alice bob")
    sink.wait(2)
    final = play_to_the_end(server, sink, 101)
    notice = to(final, "dave")
    assert notice["Subject"].startswith("Cephalopod Board 101 is over: won by ")
    assert "Cells at the end:" in body_of(notice)


def test_a_player_at_the_board_cannot_subscribe_to_it(server, sink):
    signed_up(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod challenge alice bob")
    sink.wait(2)
    send(server, "bob", "cephalopod subscribe 101 bob bob-pw")
    (refusal,) = sink.wait(1)
    assert "bob plays at Cephalopod board 101, and gets its mails already" in body_of(refusal)


def test_unsubscribing_from_what_one_does_not_watch_is_refused(server, sink):
    signed_up(server, sink, "carol")
    send(server, "carol", "cephalopod unsubscribe carol carol-pw all")
    (refusal,) = sink.wait(1)
    assert "carol does not watch every new Cephalopod game" in body_of(refusal)


def test_a_subscriber_hears_the_chat_of_the_board_too(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod challenge alice bob")
    sink.wait(2)
    send(server, "carol", "cephalopod subscribe 101 carol carol-pw")
    sink.wait(1)
    send(server, "alice", "cephalopod chat 101 alice alice-pw\n\nWelcome, watchers!")
    heard = to(sink.wait(3), "carol")
    assert heard["Subject"] == "Cephalopod chat 101 alice" and heard["Reply-To"] is None
    assert "Welcome, watchers!" in body_of(heard)
