"""How a game ends in the store: rated once every player has moved, called off before."""

from __future__ import annotations

from sqlalchemy import func, select

import pbm.games
from pbm.facts import Fact
from pbm.store import boards, players
from pbm.store.database import Database
from pbm.store.models import Board, BoardStatus, Rating, utcnow
from pbm.timekeeping import clocks
from tests.support import end_words

HOLDING_13 = Fact("cephalopod-most-cells", held=13, cells=25)


def seated_game(session, moves: list[tuple[int, str]]) -> Board:
    """A Cephalopod board of alice and bob after `moves` (seat, notation), as recorded."""
    now = utcnow()
    alice, bob = (
        players.sign_up(session, u, "hash", [f"{u}@example.org"], sender=None, now=now) for u in ("alice", "bob")
    )
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=2)
    board = boards.start(
        session,
        "cephalopod",
        players=[alice, bob],
        options={},
        state=engine.dump(state),
        secret=None,
        to_move=0,
        challenger=alice,
        now=now,
        time_control=clocks.TimeControl(),
    )
    for seat, notation in moves:
        boards.record_move(
            session, board, seat=seat, notation=notation, comment="", report={}, now=now, inbound_id=None
        )
    return board


def end(session, board: Board):
    return boards.finish(
        session,
        board,
        winners=[0],
        code="most-cells",
        reason=HOLDING_13,
        called_off=Fact("winners-result", winners=["alice"], result=HOLDING_13),
        now=utcnow(),
    )


def test_a_game_that_ends_before_every_player_has_moved_is_called_off_unrated(database: Database):
    with database.transaction() as session:
        board = seated_game(session, [(0, "c3")])
        assert end(session, board) == []
        assert board.status == BoardStatus.CANCELLED
        assert end_words(board) == "alice won, holding 13 of the 25 cells in the first round"
        assert not board.winners
        assert session.scalar(select(func.count()).select_from(Rating)) == 0


def test_a_game_that_ends_once_every_player_has_moved_is_rated(database: Database):
    with database.transaction() as session:
        board = seated_game(session, [(0, "c3"), (1, "a1")])
        changes = end(session, board)
        assert [change.userid for change in changes] == ["alice", "bob"]
        assert board.status == BoardStatus.FINISHED
        assert end_words(board) == "won, holding 13 of the 25 cells"


def test_leaving_and_a_move_taken_back_are_no_moves(database: Database):
    with database.transaction() as session:
        board = seated_game(session, [(0, "c3"), (1, "a1"), (1, "undo"), (1, "resign")])
        assert not boards.everyone_moved(session, board)
