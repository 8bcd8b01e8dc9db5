"""Open challenges: games with free seats, waiting for players to ``join``.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbm.store import boards
from pbm.store.models import OpenChallenge, Player


def open_(
    session: Session,
    game_type: str,
    *,
    challenger: Player,
    seats: Sequence[Player | None],
    options: dict[str, Any],
    time_control: dict[str, Any],
    now: datetime,
    expires_at: datetime,
) -> OpenChallenge:
    """An open challenge with `seats` (None where a seat is free), numbered as the next board of its type."""
    challenge = OpenChallenge(
        game_type=game_type,
        board=boards.next_number(session, game_type),
        challenger_id=challenger.id,
        seats=[player.id if player is not None else None for player in seats],
        options=dict(options),
        time_control=time_control,
        created_at=now,
        expires_at=expires_at,
    )
    challenge.challenger = challenger
    session.add(challenge)
    session.flush()
    return challenge


def at(session: Session, game_type: str, board: int) -> OpenChallenge | None:
    """The open challenge numbered `board`, locked until the caller's transaction ends."""
    query = select(OpenChallenge).where(OpenChallenge.game_type == game_type, OpenChallenge.board == board)
    return session.scalars(query.with_for_update(of=OpenChallenge)).first()


def waiting(session: Session, game_type: str, now: datetime) -> list[OpenChallenge]:
    """The open challenges of `game_type` that can still be joined, oldest first."""
    query = select(OpenChallenge).where(OpenChallenge.game_type == game_type, OpenChallenge.expires_at > now)
    return list(session.scalars(query.order_by(OpenChallenge.board)))


def take_seat(challenge: OpenChallenge, player: Player) -> None:
    seats = list(challenge.seats)
    seats[seats.index(None)] = player.id
    challenge.seats = seats  # a new list: JSON columns notice assignment, not changes in place


def give_up_seat(challenge: OpenChallenge, player: Player) -> None:
    challenge.seats = [None if seat == player.id else seat for seat in challenge.seats]


def close(session: Session, challenge: OpenChallenge) -> None:
    """The challenge became a game, or expired: its row goes (the board number stays used)."""
    session.execute(delete(OpenChallenge).where(OpenChallenge.id == challenge.id))


def claim_expired(session: Session, now: datetime, limit: int = 100) -> list[OpenChallenge]:
    """Open challenges past their time, locked and skipped by any other worker claiming them at once."""
    query = select(OpenChallenge).where(OpenChallenge.expires_at <= now).order_by(OpenChallenge.expires_at)
    return list(session.scalars(query.limit(limit).with_for_update(of=OpenChallenge, skip_locked=True)))
