"""Where a game stands, said the same way by a whole board and by one line of a list
(`Standing`); `GameSummary` is that line, made from the stored row alone, without the
engine's state, so lists of many games stay cheap."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm.facts import Fact
from pbm.games import Game
from pbm.store.models import Board, BoardStatus
from pbm.views.seats import SeatView


def end_fact(game: Board) -> Fact | None:
    """How the game at `game` ended, as the row keeps it (`Board.end_fact`); None while it goes on."""
    return Fact.from_json(game.end_fact) if game.end_fact is not None else None


@dataclass(frozen=True, kw_only=True)
class Standing:
    """Where a game stands: its status, whose turn it is, or who won and how; and those in words."""

    status: BoardStatus
    to_move: SeatView | None
    winners: list[SeatView]
    end_fact: Fact | None
    """How it ended, as a fact whose words follow the winners' names (`Board.end_fact`); for a
    cancelled game, why. None while the game goes on."""
    end_code: str = ""
    """The kind of ending (`Board.end_code`); empty while the game goes on."""

    @property
    def result_fact(self) -> Fact:
        """How a game that is over ended: ``bob won, holding 13 of the 25 cells``, ``cancelled: ...``."""
        assert self.end_fact is not None, "only a game that is over has a result"
        if self.status == BoardStatus.CANCELLED:
            return Fact("cancelled-because", why=self.end_fact)
        return Fact("winners-result", winners=[s.userid for s in self.winners], result=self.end_fact)

    @property
    def sentence_fact(self) -> Fact:
        """One sentence: ``It is bob's turn (Angle).``, ``bob won, holding 13 of the 25 cells.``"""
        if self.status == BoardStatus.CANCELLED:
            return Fact("game-was-cancelled", why=self.end_fact)
        if self.status == BoardStatus.FINISHED:
            return Fact("game-result", result=self.result_fact)
        assert self.to_move is not None
        return Fact("turn-of", userid=self.to_move.userid, seat=self.to_move.said_name)

    @property
    def standing_fact(self) -> Fact:
        """A few words for a list or a subject: ``bob to move``, ``won by bob``, ``tie: alice and bob``."""
        if self.status == BoardStatus.CANCELLED:
            return Fact("standing-cancelled")
        if self.status == BoardStatus.FINISHED:
            names = [s.userid for s in self.winners]
            return Fact("standing-won-by", userid=names[0]) if len(names) == 1 else Fact("standing-tie", userids=names)
        if self.to_move is not None:
            return Fact("standing-to-move", userid=self.to_move.userid)
        return Fact("standing-active")


@dataclass(frozen=True, kw_only=True)
class GameSummary(Standing):
    """One game in a list: who plays, how far it got, whose turn or who won."""

    game_type: str
    title: str
    board: int
    seats: list[SeatView]
    move_count: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


def game_summary(engine: Game[Any], game: Board) -> GameSummary:
    """The list line of `game`, from its row and seats alone (the state is not read)."""
    seats = [SeatView(s.seat, engine.seat_names[s.seat], s.player.userid) for s in game.seats]
    to_move = seats[game.to_move] if game.status == BoardStatus.ACTIVE and game.to_move is not None else None
    return GameSummary(
        game_type=game.game_type,
        title=engine.title,
        board=game.board,
        status=game.status,
        seats=seats,
        move_count=game.move_count,
        to_move=to_move,
        winners=[seats[i] for i in (game.winners or [])],
        end_fact=end_fact(game),
        end_code=game.end_code or "",
        created_at=game.created_at,
        updated_at=game.updated_at,
        finished_at=game.finished_at,
    )
