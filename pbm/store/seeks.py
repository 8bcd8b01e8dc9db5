"""Seeks: players who want more games of a type, until the server pairs them.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.store.models import Player, Seek


def of(session: Session, player: Player, game_type: str) -> Seek | None:
    return session.get(Seek, (player.id, game_type))


def put(session: Session, player: Player, game_type: str, wanted: int, options: dict[str, Any], now: datetime) -> None:
    """`player` wants `wanted` more games (0: none); a seek already waiting keeps its place in line
    unless the options change."""
    seek = of(session, player, game_type)
    if wanted == 0:
        if seek is not None:
            session.delete(seek)
        return
    if seek is None:
        session.add(Seek(player_id=player.id, game_type=game_type, wanted=wanted, options=dict(options), since=now))
        return
    if seek.options != options:
        seek.options, seek.since = dict(options), now
    seek.wanted = wanted


def took_one(session: Session, seek: Seek) -> None:
    """`seek`'s player got one of the games they wanted."""
    seek.wanted -= 1
    if seek.wanted <= 0:
        session.delete(seek)


def waiting(session: Session, game_type: str) -> list[Seek]:
    """Every seek of `game_type`, longest waiting first; locked until the caller's transaction ends,
    so that two mails cannot pair the same seeker twice."""
    query = select(Seek).where(Seek.game_type == game_type, Seek.wanted > 0).order_by(Seek.since, Seek.player_id)
    return list(session.scalars(query.with_for_update(of=Seek)))


def waited_since(session: Session, before: datetime) -> list[Seek]:
    """Every seek of any type waiting since `before` or longer, longest waiting first; locked until
    the caller's transaction ends (those another transaction holds are left to it)."""
    query = select(Seek).where(Seek.since <= before, Seek.wanted > 0).order_by(Seek.since, Seek.player_id)
    return list(session.scalars(query.with_for_update(of=Seek, skip_locked=True)))


def wanted_by_player(session: Session, game_type: str) -> dict[int, int]:
    """How many more games each seeker of `game_type` wants, by player id (standings show it)."""
    query = select(Seek.player_id, Seek.wanted).where(Seek.game_type == game_type)
    return {player_id: wanted for player_id, wanted in session.execute(query)}
