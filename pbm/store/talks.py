"""Talk: the chats and messages players send, kept as counts so that nobody floods the others.

What was said is mailed, not stored. Everything here runs inside a session
the caller owns; nothing commits.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.store.models import Board, Player, Talk, TalkKind


def record(session: Session, player: Player, kind: TalkKind, now: datetime, board: Board | None = None) -> None:
    session.add(Talk(player_id=player.id, kind=kind, game_id=board.id if board else None, created_at=now))


def sent_since(session: Session, player: Player, since: datetime) -> list[datetime]:
    """When `player` chatted or sent a message since `since`, oldest first."""
    query = select(Talk.created_at).where(Talk.player_id == player.id, Talk.created_at >= since)
    return list(session.scalars(query.order_by(Talk.created_at)))
