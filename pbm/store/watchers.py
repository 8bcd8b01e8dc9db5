"""Watching games: players subscribed to boards, and players who want a mail when a game ends.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from pbm.store.models import Board, EndNotice, Player, Subscription


def subscribe(session: Session, player: Player, game_type: str, board: Board | None, now: datetime) -> bool:
    """Watch `board`, or (None) every game of `game_type` that starts from now on; False if already."""
    if _subscription(session, player, game_type, board) is not None:
        return False
    session.add(
        Subscription(player_id=player.id, game_type=game_type, game_id=board.id if board else None, created_at=now)
    )
    return True


def unsubscribe(
    session: Session, player: Player, game_type: str, board: Board | None, *, made_by: datetime | None = None
) -> bool:
    """Stop watching `board`, or (None) the games of `game_type` yet to start; False if not watching
    (or, given `made_by`, watching since a subscription made after it, which is not the one meant)."""
    found = _subscription(session, player, game_type, board)
    if found is None or made_by is not None and found.created_at > made_by:
        return False
    session.delete(found)
    return True


def _subscription(session: Session, player: Player, game_type: str, board: Board | None) -> Subscription | None:
    on_board = Subscription.game_id == board.id if board else Subscription.game_id.is_(None)
    query = select(Subscription).where(
        Subscription.player_id == player.id, Subscription.game_type == game_type, on_board
    )
    return session.scalar(query)


def watch_new_board(session: Session, board: Board) -> None:
    """Subscribe to `board`, which just started, everyone watching every game of its type."""
    query = select(Subscription.player_id).where(
        Subscription.game_type == board.game_type, Subscription.game_id.is_(None)
    )
    for player_id in session.scalars(query):
        session.add(
            Subscription(player_id=player_id, game_type=board.game_type, game_id=board.id, created_at=board.created_at)
        )


def watching(session: Session, board: Board) -> list[Player]:
    """The active players subscribed to `board` who do not play at it, in the order they subscribed."""
    seated = {seat.player_id for seat in board.seats}
    subscribed = session.scalars(_WATCHING, {"board_id": board.id})
    return [s.player for s in subscribed if s.player.active and s.player_id not in seated]


def watchers_among(session: Session, board: Board, player_ids: Sequence[int]) -> set[int]:
    """Those of `player_ids` subscribed to `board`, seated or not."""
    if not player_ids:
        return set()
    subscribed = Subscription.player_id.in_(player_ids)
    query = select(Subscription.player_id).where(Subscription.game_id == board.id, subscribed)
    return set(session.scalars(query))


_WATCHING = select(Subscription).where(Subscription.game_id == bindparam("board_id")).order_by(Subscription.id)
"""Built once: every move asks it."""


def notify_at_end(session: Session, player: Player, game_type: str, boards: Sequence[Board], now: datetime) -> None:
    """Mail `player` when these boards end, or (none named) when any game of `game_type` ends."""
    named: Sequence[Board | None] = boards or [None]
    for board in named:
        on_board = EndNotice.game_id == board.id if board else EndNotice.game_id.is_(None)
        query = select(EndNotice.id).where(EndNotice.player_id == player.id, EndNotice.game_type == game_type, on_board)
        if session.scalar(query) is None:
            game_id = board.id if board else None
            session.add(EndNotice(player_id=player.id, game_type=game_type, game_id=game_id, created_at=now))


def stop_notices(session: Session, player: Player, game_type: str, *, made_by: datetime | None = None) -> int:
    """No more mails when games of `game_type` end (given `made_by`, from the requests made by
    then, not from those made after it); returns how many requests that ended."""
    query = delete(EndNotice).where(EndNotice.player_id == player.id, EndNotice.game_type == game_type)
    if made_by is not None:
        query = query.where(EndNotice.created_at <= made_by)
    removed = session.execute(query)
    return int(removed.rowcount)  # type: ignore[attr-defined]  # a DELETE gives a CursorResult


def to_tell_of_the_end(session: Session, board: Board) -> list[Player]:
    """The active players who asked to hear when `board` ends (and do not play at it)."""
    query = select(EndNotice).where(
        EndNotice.game_type == board.game_type, (EndNotice.game_id == board.id) | EndNotice.game_id.is_(None)
    )
    seated = {seat.player_id for seat in board.seats}
    found = {notice.player_id: notice.player for notice in session.scalars(query.order_by(EndNotice.id))}
    return [player for player_id, player in found.items() if player.active and player_id not in seated]
