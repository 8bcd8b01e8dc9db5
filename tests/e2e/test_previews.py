"""Seeing a move before it counts, over real SMTP: submit and confirm, and preview (prev).

``submit`` mails the mover alone the board after the move; ``confirm`` plays
it unless the board changed since. ``preview`` plays moves on a copy of a
board, or of a new game, and saves nothing. No preview may show a Dodeca
game's real next roll.
"""

from __future__ import annotations

import re

from sqlalchemy import select

from pbm.store.models import Board, MoveRecord
from tests.e2e.club import ADDRESSES, send, signed_up
from tests.support import body_of


def board_101(server, sink, *userids: str, game: str = "cephalopod", options: str = "") -> None:
    signed_up(server, sink, *userids)
    send(server, userids[0], f"{game} challenge {options} {' '.join(userids)}".replace("  ", " "))
    sink.wait(len(userids))


def moves(server) -> list[str]:
    with server.server.database.reading() as session:
        return list(session.scalars(select(MoveRecord.notation).order_by(MoveRecord.number)))


def test_a_submitted_move_is_mailed_to_its_player_alone_and_counts_once_confirmed(server, sink):
    board_101(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod submit 101 alice alice-pw c3")
    (preview,) = sink.wait(1)
    assert preview["To"].addresses[0].addr_spec == ADDRESSES["alice"]
    assert preview["Subject"] == "Cephalopod Board 101 preview"
    text = body_of(preview)
    assert text.startswith("This is how the board looks after your move c3, but nothing has\nbeen played yet.")
    assert "cephalopod confirm 101 alice PASSWORD" in text
    assert "   1 alice: c3\n" in text
    assert "Then bob would be to move." in text
    assert "alice-pw" not in text
    assert sink.once_settled(server) == []
    assert moves(server) == []

    send(server, "alice", "cephalopod confirm 101 alice alice-pw")
    played = sink.wait(3)
    assert {m["Subject"] for m in played} == {"Cephalopod Board 101 bob"}
    assert moves(server) == ["c3"]
    send(server, "alice", "cephalopod confirm 101 alice alice-pw")
    (refusal,) = sink.wait(1)
    assert "alice has no move submitted at this board: submit one first" in body_of(refusal)


def test_a_confirm_after_the_board_changed_plays_nothing(server, sink):
    board_101(server, sink, "alice", "bob", "carol")
    send(server, "alice", "cephalopod move 101 alice alice-pw c3")
    sink.wait(3)
    send(server, "carol", "cephalopod submit 101 carol carol-pw a1")
    assert "It is not your turn: bob is to move" in body_of(sink.wait(1)[0])
    send(server, "bob", "cephalopod submit 101 bob bob-pw a1")
    sink.wait(1)
    for userid, move in (("bob", "b3"), ("carol", "e5"), ("alice", "a5")):
        send(server, userid, f"cephalopod move 101 {userid} {userid}-pw {move}")
        sink.wait(3)
    send(server, "bob", "cephalopod confirm 101 bob bob-pw")
    (refusal,) = sink.wait(1)
    assert refusal["Subject"] == "Cephalopod Board 101 Error"
    assert "The board changed since bob submitted a1 (it is at move 5 now), so nothing was played" in body_of(refusal)
    assert moves(server) == ["c3", "b3", "e5", "a5"]


def test_an_illegal_submission_is_refused_and_keeps_nothing(server, sink):
    board_101(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod submit 101 alice alice-pw z9")
    (refusal,) = sink.wait(1)
    assert refusal["Subject"] == "Cephalopod Board 101 Error"
    assert "Illegal move" in body_of(refusal)
    send(server, "alice", "cephalopod confirm 101 alice alice-pw")
    assert "alice has no move submitted" in body_of(sink.wait(1)[0])
    send(server, "alice", "cephalopod submit 101 alice wrong-pw c3")
    assert "password" in body_of(sink.wait(1)[0]).lower()
    assert moves(server) == []


def test_preview_plays_moves_on_a_copy_of_the_board_and_saves_nothing(server, sink):
    board_101(server, sink, "alice", "bob")
    send(server, "alice", "cephalopod move 101 alice alice-pw c3")
    sink.wait(2)
    send(server, "carol", "cephalopod preview 101 b3 a1")
    (preview,) = sink.wait(1)
    assert preview["To"].addresses[0].addr_spec == ADDRESSES["carol"]
    assert preview["Subject"] == "Cephalopod Board 101 preview"
    text = body_of(preview)
    assert "these moves were played on a copy of Cephalopod board 101; nothing was saved" in text
    assert "   2 bob: b3\n   3 alice: a1\n" in text
    assert "Then bob would be to move." in text

    send(server, "carol", "cephalopod prev 101#0 e5")
    text = body_of(sink.wait(1)[0])
    assert "   1 alice: e5\n" in text
    assert moves(server) == ["c3"]


def test_preview_of_a_new_game_takes_the_players_and_options(server, sink):
    signed_up(server, sink, "carol")
    send(server, "carol", "cephalopod preview new 3 -size=3 a1 a2 a3")
    (preview,) = sink.wait(1)
    text = body_of(preview)
    assert preview["Subject"] == "Cephalopod preview"
    assert "these moves were played on a copy of a new game; nothing was saved" in text
    assert re.search(r"   1 \w+: a1\n   2 \w+: a2\n   3 \w+: a3\n", text)


def test_a_preview_that_cannot_be_played_says_where_it_stopped(server, sink):
    board_101(server, sink, "alice", "bob")
    send(server, "carol", "cephalopod preview 101 c3 c3")
    text = body_of(sink.wait(1)[0])
    assert "Illegal move" in text and "(at 'c3', bob to move, after 1 moves previewed)" in text
    send(server, "carol", "cephalopod preview 101#5 c3")
    assert "Cephalopod board 101 has 0 moves, not 5" in body_of(sink.wait(1)[0])
    send(server, "carol", "cephalopod preview 999 c3")
    assert "999" in body_of(sink.wait(1)[0])


def test_no_preview_shows_the_real_next_roll_of_a_dodeca_game(server, sink):
    """Every preview of the same roll is rolled afresh: were the real seed used, they would all agree."""
    board_101(server, sink, "alice", "bob", game="dodeca")
    with server.server.database.reading() as session:
        first = ("alice", "bob")[session.scalars(select(Board)).one().to_move]
    roll = "roll a1" if first == "alice" else "roll a10"
    previewed, submitted = set(), set()
    for _ in range(8):
        send(server, "carol", f"dodeca preview 101 {roll}")
        text = body_of(sink.wait(1)[0])
        assert "The dice here are rolled for this preview only" in text
        previewed.add(text)
        send(server, first, f"dodeca submit 101 {first} {first}-pw {roll}")
        submitted.add(body_of(sink.wait(1)[0]))
    assert len(previewed) > 1 and len(submitted) > 1
    send(server, first, f"dodeca confirm 101 {first} {first}-pw")
    sink.wait(2)
    assert moves(server)[0].startswith(roll)
