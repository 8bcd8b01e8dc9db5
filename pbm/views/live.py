"""A board as one command or one page reads it: its row, its engine and its state, read once
(`LiveBoard`); and everything a view of it shows, read once for every reader (`Snapshot`).

A command that moves, votes or mails the board works on one `LiveBoard`: the state is
resumed from the row the first time it is asked for, and a move sets the new one
(`LiveBoard.advance`), so nothing resumes the same position twice. A `Snapshot` is what
the board mails of a command and the game page alike are made of: the move list, the
proposal waiting, the time, the events; each reader's view (`Snapshot.view`) differs only
by the seat it is seen from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

import pbm.games
from pbm.games import Game
from pbm.store import boards, offers, turns
from pbm.store.models import Board, BoardEvent, BoardStatus, MoveRecord, Offer, Player, Seat
from pbm.timekeeping import clocks
from pbm.views.board import BoardView, board_view
from pbm.views.timing import TimeView, time_view


class LiveBoard:
    """A board's row with its engine, and its state resumed at most once."""

    def __init__(self, row: Board, engine: Game[Any] | None = None, state: Any = None) -> None:
        self.row = row
        self.engine = engine if engine is not None else pbm.games.get(row.game_type)
        self._state = state

    @property
    def state(self) -> Any:
        """The position as the row keeps it (resumed on first use), or as the last `advance` left it."""
        if self._state is None:
            self._state = self.engine.resume(self.row.state, self.row.secret)
        return self._state

    def advance(self, after: Any) -> None:
        """The game is at `after` now: the row keeps it, and so does this board."""
        boards.set_position(self.row, self.engine.dump(after), after.to_move)
        self._state = after

    @property
    def seats(self) -> list[Seat]:
        return list(self.row.seats)

    @property
    def title(self) -> str:
        return self.engine.title

    @property
    def active(self) -> bool:
        return self.row.status == BoardStatus.ACTIVE

    def seat_of(self, player: Player) -> int | None:
        return boards.seat_of(self.row, player)

    def player_at(self, seat: int) -> Player:
        return self.row.seats[seat].player

    def seats_in_play(self) -> tuple[int, ...]:
        return tuple(self.engine.seats_in_play(self.state))

    def replayed(self, moves: Sequence[MoveRecord]) -> Any:
        """The state after `moves` (the first of the list, from the start): an earlier position."""
        start = self.engine.new(players=len(self.row.seats), options=self.row.options, seed=self.row.secret)
        return self.engine.replay(start, [(move.seat, move.notation) for move in moves])


def load(session: Session, game_type: str, number: int, *, for_update: bool = False) -> LiveBoard | None:
    """The board `number` of `game_type`, None when there is none; `for_update` locks its row."""
    row = boards.find(session, game_type, number, for_update=for_update)
    return LiveBoard(row) if row is not None else None


@dataclass(frozen=True)
class Snapshot:
    """Everything the views of a board show, read once: a mail to each seat and to the watchers,
    or a page, are views of one snapshot (`view`).

    `state` and `moves` are the board's as it stands, or as it stood after move `at_move`;
    `moves_before` and `widest_move` say what a move list cut to its last rows left out."""

    board: LiveBoard
    state: Any
    moves: Sequence[MoveRecord]
    offer: Offer | None = None
    time: TimeView | None = None
    events: Sequence[BoardEvent] = field(default_factory=tuple)
    at_move: int | None = None
    moves_before: int = 0
    widest_move: int = 0

    def view(self, viewer: int | None = None, *, queued: Sequence[str] = (), with_cells: bool = False) -> BoardView:
        """The board as the player at seat `viewer` sees it (nobody's seat: as a watcher or a page
        reader does), with `queued`, that player's own queue."""
        return board_view(
            self.board.engine,
            self.board.row,
            self.state,
            self.moves,
            viewer=viewer,
            at_move=self.at_move,
            with_cells=with_cells,
            offer=self.offer,
            queued=queued,
            time=self.time,
            events=self.events,
            moves_before=self.moves_before,
            widest_move=self.widest_move,
        )


def time_of(session: Session, row: Board, now: datetime, club_rules: clocks.TimeControl) -> TimeView:
    """`row`'s time rules, clocks and the turn under way, as of `now` (`club_rules` for games
    from before rules were kept)."""
    rules = turns.rules_of(row, club_rules)
    return time_view(row, rules, turns.turn_of(session, row, now, club_rules))


def snapshot(
    session: Session,
    board: LiveBoard,
    *,
    now: datetime,
    club_rules: clocks.TimeControl,
    last_moves: int | None = None,
) -> Snapshot:
    """`board` as it stands now: the whole move list, or only its last `last_moves` entries (what
    a mail about a move shows: it costs the same at move 3 and 300)."""
    if last_moves is not None:
        recent = boards.recent_moves(session, board.row, last_moves)
        moves: Sequence[MoveRecord] = recent.moves
        before, widest = recent.earlier, recent.widest
    else:
        moves, before, widest = boards.moves_of(session, board.row), 0, 0
    return Snapshot(
        board,
        board.state,
        moves,
        offer=offers.pending(session, board.row),
        time=time_of(session, board.row, now, club_rules),
        events=boards.events_of(session, board.row),
        moves_before=before,
        widest_move=widest,
    )


def earlier(session: Session, board: LiveBoard, at_move: int, moves: Sequence[MoveRecord] | None = None) -> Snapshot:
    """`board` as it stood after move `at_move` (no proposal, no clock: those are of now)."""
    moves = boards.moves_of(session, board.row) if moves is None else moves
    shown = moves[:at_move]
    return Snapshot(board, board.replayed(shown), shown, events=boards.events_of(session, board.row), at_move=at_move)
