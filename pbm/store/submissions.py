"""Submitted moves: seen privately first, played when their player confirms them.

A submission remembers the board's move count when it was made, so a confirm can
tell it is stale (and say so) rather than find it gone; there is at most one per
player and board, replaced by the next or taken by a confirm.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm.store.models import Board, Player, Submission


def submit(session: Session, board: Board, player: Player, move: str, now: datetime) -> None:
    """Keep `move` (canonical) for `player` at `board`, in place of any move submitted before."""
    session.merge(
        Submission(game_id=board.id, player_id=player.id, move=move, at_move=board.move_count, created_at=now)
    )


def take(session: Session, board: Board, player: Player) -> Submission | None:
    """The move `player` submitted at `board`, which is forgotten now (confirmed or stale)."""
    found = session.get(Submission, (board.id, player.id))
    if found is not None:
        session.delete(found)
    return found
