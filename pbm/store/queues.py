"""Queued moves: what a player asked to have played for them when their turn comes.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from pbm.store.models import Board, Player, QueuedMove


def put(session: Session, board: Board, player: Player, lines: Sequence[dict[str, Any]], now: datetime) -> None:
    """Queue `lines` for `player` at `board`, in place of what was queued before."""
    session.merge(
        QueuedMove(game_id=board.id, player_id=player.id, at_move=board.move_count, lines=list(lines), created_at=now)
    )


def of(session: Session, board: Board, player: Player) -> QueuedMove | None:
    return session.get(QueuedMove, (board.id, player.id))


def at(session: Session, board: Board) -> dict[int, QueuedMove]:
    """Every queue at `board`, by player id."""
    return {row.player_id: row for row in session.scalars(_AT_BOARD, {"board_id": board.id})}


_AT_BOARD = select(QueuedMove).where(QueuedMove.game_id == bindparam("board_id"))
"""Built once: every move asks it."""


def take(session: Session, board: Board, player: Player) -> tuple[QueuedMove | None, dict[int, QueuedMove]]:
    """What `player` queued at `board`, which is forgotten now (played, dropped or cleared), and
    the queues left at the board, by player id (`at`, in the same round trip)."""
    left = at(session, board)
    found = left.pop(player.id, None)
    if found is not None:
        session.delete(found)
    return found, left


def forget_all(session: Session, board: Board) -> None:
    """The board's past changed (a move was taken back): what was queued on it no longer holds."""
    session.execute(delete(QueuedMove).where(QueuedMove.game_id == board.id))
