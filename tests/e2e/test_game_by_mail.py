"""A whole game over real SMTP: players sign up, challenge, and play to the end,
one by mailed `move` commands and the other by replying to board mails."""

from __future__ import annotations

import random

import pbm.games
from tests.support import body_of, mail, reply_to_board

ALICE, BOB = "alice@example.org", "bob@example.net"


def addressed_to(messages, address):
    return [m for m in messages if m["To"].addresses[0].addr_spec == address]


def test_a_whole_cephalopod_game_by_commands_and_by_replies(server, sink):
    engine = pbm.games.get("cephalopod")
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    assert [m["Subject"] for m in sink.wait(2)] == [
        "Welcome to the PBeM Server, alice",
        "Welcome to the PBeM Server, bob",
    ]

    server.send(mail(ALICE, "cephalopod challenge alice bob\n\nA game, Bob?"), ALICE)
    boards = sink.wait(2)
    assert {m["Subject"] for m in boards} == {"New Cephalopod Board 101 alice **"}, "' **': a comment inside"
    bob_board = addressed_to(boards, BOB)[0]
    assert "alice writes:\n\nA game, Bob?" in body_of(bob_board)

    state = engine.new(players=2)
    chooser = random.Random(7)
    while engine.result(state) is None:
        move = chooser.choice(engine.legal_moves(state))
        if state.to_move == 0:
            server.send(mail(ALICE, f"cephalopod move 101 alice alice-pw {move}#{state.ply + 1}"), ALICE)
        else:
            reply = reply_to_board(bob_board, BOB, move, comment="Your move.")
            server.send(reply, BOB, [bob_board["Reply-To"].addresses[0].addr_spec])
        state = engine.play(state, move)
        boards = sink.wait(2)
        bob_board = addressed_to(boards, BOB)[0]
        assert engine.render(state).rstrip() in body_of(bob_board)

    result = engine.result(state)
    winner = ["alice", "bob"][result.winners[0]]
    commented = " **" if state.to_move == 0 else ""  # bob's replies carry a comment, alice's commands none
    assert {m["Subject"] for m in boards} == {f"Cephalopod Board 101 won by {winner}{commented}"}
    assert f"\n{winner} {result.reason}.\n" in body_of(boards[0])
    assert engine.render(state).strip() in body_of(boards[0])

    server.send(mail(ALICE, "cephalopod standings"), ALICE)
    standings = body_of(sink.wait(1)[0])
    loser = "bob" if winner == "alice" else "alice"
    provisional = standings.split("\nProvisional\n")[1]
    assert f"    1  {winner.ljust(16)}    1616      1    1     0      0       0/-" in provisional
    assert f"    2  {loser.ljust(16)}    1584      1    0     1      0       0/-" in provisional


def test_board_mails_thread_per_game_and_say_they_are_automatic(server, sink):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    first = addressed_to(sink.wait(2), ALICE)[0]
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    second = addressed_to(sink.wait(2), ALICE)[0]
    assert second["In-Reply-To"] == first["Message-ID"]
    assert second["References"] == first["Message-ID"]
    for message in (first, second):
        assert message["Auto-Submitted"] == "auto-replied"
        assert message["X-PBM-Loop"] == "pbm@localhost"
        assert message["From"].addresses[0].addr_spec == "pbm@localhost"
