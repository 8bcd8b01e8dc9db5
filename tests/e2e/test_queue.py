"""Queued moves, over real SMTP: played for a player when their turn comes, marked (Auto).

``queue BOARD USERID PASSWORD MOVE`` plays MOVE whatever the others play;
``if MOVES then MOVE; ...; else MOVE`` chooses by the others' moves up to the
player's turn. Only the player who queued ever sees the queue.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbm.store.models import MoveRecord
from tests.e2e.club import ADDRESSES, send, signed_up, to
from tests.support import body_of


def board_101(server, sink, *userids: str) -> None:
    signed_up(server, sink, *userids)
    send(server, userids[0], f"cephalopod challenge {' '.join(userids)}")
    sink.wait(len(userids))


def move(server, sink, userid: str, text: str, answers: int) -> list:
    send(server, userid, f"cephalopod move 101 {userid} {userid}-pw {text}")
    return sink.wait(answers)


def record(server) -> list[tuple[str, bool]]:
    with server.server.database.reading() as session:
        return [tuple(row) for row in session.execute(select(MoveRecord.notation, MoveRecord.auto))]


def test_a_conditional_queue_answers_the_move_it_names_and_is_marked_auto(server, sink):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", "cephalopod queue 101 alice alice-pw if a1 then e5; else a5")
    (queued,) = sink.wait(1)
    assert queued["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert queued["Subject"] == "Cephalopod Board 101 queue"
    text = body_of(queued)
    assert text.startswith("Queued for alice at Cephalopod board 101:\n    if a1 then e5\n    else a5\n")
    assert "alice-pw" not in text

    send(server, "bob", "cephalopod show 101")
    assert "queue" not in body_of(sink.wait(1)[0]).lower()

    mails = move(server, sink, "bob", "a1", 4)
    bobs = [m for m in mails if m["To"].addresses[0].addr_spec == ADDRESSES["bob"]]
    assert [m["Subject"] for m in bobs] == ["Cephalopod Board 101 alice", "Cephalopod Board 101 bob"]
    auto = body_of(bobs[1])
    assert auto.startswith("alice played e5 (Auto).\n")
    assert "   3 e5 (Auto)" in auto
    assert "Your queue" not in auto and "if a1" not in "".join(body_of(m) for m in bobs)
    assert record(server) == [("c3", False), ("a1", False), ("e5", True)]


def test_the_line_without_if_is_played_when_no_condition_matches(server, sink):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", "cephalopod qmove 101 alice alice-pw if a1 then e5; else a5")
    sink.wait(1)
    move(server, sink, "bob", "e1", 4)
    assert record(server)[-1] == ("a5", True)


def test_with_no_match_and_no_other_line_nothing_is_played_and_the_player_is_told(server, sink):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", "cephalopod queue 101 alice alice-pw if a1 then e5")
    sink.wait(1)
    mails = move(server, sink, "bob", "e1", 2)
    text = body_of(to(mails, "alice"))
    assert "None of your queued lines matched the moves played (e1), so nothing was played for you." in text
    assert "None of your" not in body_of(to(mails, "bob"))
    assert record(server) == [("c3", False), ("e1", False)]


def test_a_queued_move_that_became_illegal_is_dropped_with_an_unexpected_error_mail(server, sink):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", "cephalopod queue 101 alice alice-pw a1")
    assert "Queued for alice at Cephalopod board 101:\n    a1\n" in body_of(sink.wait(1)[0])
    mails = move(server, sink, "bob", "a1", 3)
    (dropped,) = [m for m in mails if m["Subject"].startswith("Unexpected error")]
    assert dropped["Subject"] == "Unexpected error (Cephalopod Board 101)"
    assert dropped["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert "Your queued move a1 at Cephalopod board 101 could not be\nplayed" in body_of(dropped)
    assert "Illegal move" in body_of(dropped)
    assert record(server) == [("c3", False), ("a1", False)]
    move(server, sink, "alice", "e5", 2)


def test_a_queue_sent_on_your_own_turn_is_a_move(server, sink):
    board_101(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod moveq 101 alice alice-pw c3")
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 bob"}
    assert record(server) == [("c3", False)]
    send(server, "bob", "cephalopod queue 101 bob bob-pw if a1 then e5")
    assert "It is your turn already" in body_of(sink.wait(1)[0])


def test_the_queue_is_shown_to_its_owner_and_off_forgets_it(server, sink):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", "cephalopod boardq 101 alice alice-pw")
    assert body_of(sink.wait(1)[0]).startswith("alice has nothing queued at Cephalopod board 101.\n")
    send(server, "alice", "cephalopod qboard 101 alice alice-pw e5")
    sink.wait(1)
    send(server, "alice", "cephalopod queue 101 alice alice-pw")
    assert body_of(sink.wait(1)[0]).startswith("alice has queued at Cephalopod board 101:\n    e5\n")
    send(server, "alice", "cephalopod show 101")
    assert "Your queue (played for you when your turn comes; only you see it):\n    e5\n" in body_of(sink.wait(1)[0])
    send(server, "alice", "cephalopod queue 101 alice alice-pw off")
    assert body_of(sink.wait(1)[0]).startswith("alice's queue at Cephalopod board 101 is cleared.\n")
    move(server, sink, "bob", "a1", 2)
    assert record(server) == [("c3", False), ("a1", False)]


@pytest.mark.parametrize(
    ("queue", "refusal"),
    [
        ("if a1 then c3", "After 'if a1', 'c3' would be illegal"),
        ("if z9 then e5", "Illegal move"),
        ("if a1 e1 then e5", "your own turn comes before the last move"),
        ("if a1 then e5 then", "'e5 then' would be illegal"),
        ("if a1 e5", "has no 'then'"),
        ("e5; a5", "at most one line without 'if'"),
    ],
)
def test_a_queue_that_cannot_be_played_as_written_is_refused_and_keeps_nothing(server, sink, queue, refusal):
    board_101(server, sink, "alice", "bob")
    move(server, sink, "alice", "c3", 2)
    send(server, "alice", f"cephalopod queue 101 alice alice-pw {queue}")
    (answer,) = sink.wait(1)
    assert refusal in body_of(answer)
    send(server, "alice", "cephalopod queue 101 alice alice-pw")
    assert "alice has nothing queued" in body_of(sink.wait(1)[0])


def test_in_a_game_of_three_the_conditions_name_both_others_moves(server, sink):
    board_101(server, sink, "alice", "bob", "carol")
    move(server, sink, "alice", "c3", 3)
    send(server, "alice", "cephalopod queue 101 alice alice-pw if a1 then e5")
    assert "After 'if a1' it is carol's turn, not yours" in body_of(sink.wait(1)[0])
    send(server, "alice", "cephalopod queue 101 alice alice-pw if a1 e1 then e5; if a1 a5 then e1; else e3")
    sink.wait(1)
    send(server, "carol", "cephalopod queue 101 carol carol-pw a5")
    sink.wait(1)
    mails = move(server, sink, "bob", "a1", 9)  # bob's move, carol's and alice's queued answers
    assert [m["Subject"] for m in mails if m["To"].addresses[0].addr_spec == ADDRESSES["bob"]] == [
        "Cephalopod Board 101 carol",
        "Cephalopod Board 101 alice",
        "Cephalopod Board 101 bob",
    ]
    assert record(server) == [("c3", False), ("a1", False), ("a5", True), ("e1", True)]


def test_help_queue_explains_the_syntax(server, sink):
    send(server, "alice", "help queue")
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "How to queue moves on the PBeM Server"
    assert "if MOVES then MOVE; if MOVES then MOVE; else MOVE" in body_of(answer)
