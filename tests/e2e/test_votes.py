"""Proposals the players vote on, over real SMTP: a draw, or taking back the last move.

One proposes with ``move BOARD USERID PASSWORD propose`` (or ``undo``); every
other player still in the game answers ``accept`` or ``reject``, by command or
as the first line of a reply to a board mail.
"""

from __future__ import annotations

import json

import httpx
import pytest
from sqlalchemy import select

from pbm.cli import main as pbm_main
from pbm.store.models import Board, MoveRecord, Rating
from tests.e2e.club import ADDRESSES, to
from tests.support import body_of, mail, reply_to_board


@pytest.fixture
def table(server, sink):
    """Sign up `userids` and start a Cephalopod game among them; returns a function that sends a line."""

    def seat(*userids: str, game: str = "cephalopod"):
        for userid in userids:
            server.send(mail(ADDRESSES[userid], f"signup {userid} {userid}-pw"), ADDRESSES[userid])
        sink.wait(len(userids))
        server.send(mail(ADDRESSES[userids[0]], f"{game} challenge {' '.join(userids)}"), ADDRESSES[userids[0]])
        sink.wait(len(userids))

        def say(userid: str, words: str, answers: int | None = None):
            command = f"{game} move 101 {userid} {userid}-pw {words}"
            server.send(mail(ADDRESSES[userid], command), ADDRESSES[userid])
            return sink.wait(len(userids) if answers is None else answers)

        return say

    return seat


def stored(server):
    """The board's (status, end code, winners, state, move count), its moves, and the ratings."""
    with server.server.database.reading() as session:
        board = session.scalars(select(Board)).one()
        moves = [
            tuple(row)
            for row in session.execute(select(MoveRecord.number, MoveRecord.notation).order_by(MoveRecord.number))
        ]
        ratings = {r.player.userid: (round(r.rating), r.draws) for r in session.scalars(select(Rating))}
        facts = (board.status, board.end_code, board.winners, board.state, board.move_count, board.to_move)
        return facts, moves, ratings


def test_a_draw_proposed_and_accepted_by_a_reply_ends_the_game_as_a_rated_tie(server, sink, table):
    say = table("alice", "bob")
    say("alice", "c3")
    say("bob", "a1")  # past the first round: only then does a draw count
    offered = say("alice", "propose")
    text = body_of(to(offered, "bob"))
    assert text.startswith("alice proposes a draw.\n")
    assert "alice proposes a draw; still to vote: bob.\n" in text
    bobs = to(offered, "bob")
    reply_address = bobs["Reply-To"].addresses[0].addr_spec
    server.send(reply_to_board(bobs, ADDRESSES["bob"], "accept"), ADDRESSES["bob"], [reply_address])
    final = sink.wait(2)
    assert {m["Subject"] for m in final} == {"Cephalopod Board 101 tie: alice and bob"}
    text = body_of(final[0])
    assert text.startswith("bob accepts alice's draw proposal.\n")
    assert "\nalice and bob tied by agreement.\n" in text
    board, _, ratings = stored(server)
    assert board[:3] == ("finished", "agreed", [0, 1])
    assert ratings == {"alice": (1600, 1), "bob": (1600, 1)}


def test_in_a_game_of_three_a_draw_needs_everyone_and_one_reject_ends_it(server, sink, table):
    say = table("alice", "bob", "carol")
    say("alice", "c3")
    say("bob", "a1")
    say("carol", "e5")
    say("bob", "propose")
    waiting = body_of(to(say("alice", "accept"), "carol"))
    assert waiting.startswith("alice accepts bob's draw proposal.\n")
    assert "bob proposes a draw; still to vote: carol.\n" in waiting
    rejected = body_of(to(say("carol", "reject"), "alice"))
    assert rejected.startswith("carol rejects bob's draw proposal; the game goes on.\n")
    assert "still to vote" not in rejected
    board, _, _ = stored(server)
    assert board[0] == "active"

    say("carol", "propose")
    say("alice", "accept")
    final = say("bob", "accept")
    assert "\nalice, bob and carol tied by agreement.\n" in body_of(final[0])


def test_a_move_withdraws_a_pending_proposal(server, sink, table):
    say = table("alice", "bob")
    say("alice", "c3")
    say("alice", "propose")
    moved = body_of(to(say("bob", "d3"), "alice"))
    assert moved.startswith("bob played d3.\nalice's draw proposal is withdrawn by this move.\n")
    (refusal,) = say("bob", "accept", answers=1)
    assert "Nothing is waiting for votes at Cephalopod board 101" in body_of(refusal)


def test_an_undo_everyone_accepts_takes_the_move_back_and_is_numbered_like_a_move(server, sink, table):
    say = table("alice", "bob")
    say("alice", "c3")
    asked = body_of(to(say("alice", "undo"), "bob"))
    assert asked.startswith("alice proposes to take back move 1 (c3).\n")
    undone = body_of(to(say("bob", "accept"), "alice"))
    assert undone.startswith(
        "bob accepts alice's proposal to take back a move.\n"
        "alice took back move 1 (c3), as everyone agreed: UNDO successful.\n"
    )
    assert "It is alice's turn (Paren)." in undone
    assert "   1 c3\n   2 UNDO\n" in undone
    assert "3  ... ... ... ... ...  3" in undone
    say("alice", "d3#3")
    _, moves, _ = stored(server)
    assert moves == [(1, "c3"), (2, "undo"), (3, "d3")]


def test_an_undo_in_a_game_of_three_waits_for_both_others(server, sink, table):
    say = table("alice", "bob", "carol")
    say("alice", "c3")
    say("bob", "b3")
    assert "bob proposes to take back move 2 (b3); still to vote: alice, carol." in body_of(say("bob", "undo")[0])
    assert "bob proposes to take back move 2 (b3); still to vote: alice." in body_of(say("carol", "accept")[0])
    undone = body_of(to(say("alice", "accept"), "bob"))
    assert "bob took back move 2 (b3), as everyone agreed: UNDO successful." in undone
    assert "It is bob's turn (Angle)." in undone


@pytest.mark.parametrize(
    ("steps", "refusal"),
    [
        ([("bob", "accept")], "Nothing is waiting for votes at Cephalopod board 101"),
        ([("alice", "c3"), ("alice", "propose"), ("alice", "accept")], "You proposed it"),
        ([("alice", "c3"), ("alice", "propose"), ("bob", "undo")], "A draw proposal is already waiting for votes"),
        ([("alice", "undo")], "There is no move to take back"),
    ],
)
def test_a_vote_or_proposal_that_cannot_be_is_refused_and_changes_nothing(server, sink, table, steps, refusal):
    say = table("alice", "bob")
    for userid, words in steps[:-1]:
        say(userid, words)
    before = stored(server)
    userid, words = steps[-1]
    (answer,) = say(userid, words, answers=1)
    assert answer["Subject"] == "Cephalopod Board 101 Error"
    assert refusal in body_of(answer)
    assert stored(server)[:2] == before[:2]


def test_a_dodeca_game_with_an_undone_reroll_keeps_a_dice_record_that_verifies(server, sink, table, tmp_path):
    say = table("alice", "bob", game="dodeca")
    board, _, _ = stored(server)
    first = ("alice", "bob")[board[5]]
    other = "bob" if first == "alice" else "alice"
    say(first, "roll a1" if first == "alice" else "roll a10")
    say(first, "undo")
    say(other, "accept")
    server.send(mail(ADDRESSES[first], f"dodeca resign 101 {first} {first}-pw"), ADDRESSES[first])
    sink.wait(2)
    record = httpx.get(f"http://127.0.0.1:{server.http_port}/api/dodeca/101/dice", timeout=10).json()
    assert "undo" in record["moves"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert pbm_main(["verify-dice", str(path)]) == 0


def test_accept_and_reject_with_a_board_are_votes_too(server, sink, table):
    say = table("alice", "bob")
    say("alice", "c3")
    say("bob", "a1")
    say("alice", "propose")
    server.send(mail(ADDRESSES["bob"], "cephalopod reject 101 bob bob-pw"), ADDRESSES["bob"])
    assert body_of(sink.wait(2)[0]).startswith("bob rejects alice's draw proposal; the game goes on.\n")
    say("alice", "propose")
    server.send(mail(ADDRESSES["bob"], "cephalopod accept 101 bob bob-pw"), ADDRESSES["bob"])
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 tie: alice and bob"}
