"""Vacations: the times players are away, booked ahead or ended early.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from pbm.clocks import Interval
from pbm.store.models import Board, BoardStatus, Player, Seat, Vacation


def away(session: Session, player_ids: Iterable[int], since: datetime) -> dict[int, list[Interval]]:
    """Every time each of `player_ids` is away that ends after `since`, booked ahead too."""
    ids = list(set(player_ids))
    intervals: dict[int, list[Interval]] = defaultdict(list)
    if not ids:
        return intervals
    for player_id, starts, ends in session.execute(_AWAY, {"ids": ids, "since": since}):
        intervals[player_id].append(Interval(starts, ends))
    return intervals


_AWAY = (
    select(Vacation.player_id, Vacation.starts_at, Vacation.ends_at)
    .where(Vacation.player_id.in_(bindparam("ids", expanding=True)), Vacation.ends_at > bindparam("since"))
    .order_by(Vacation.starts_at)
)
"""Built once: every move asks it (twice: the mover's time away, and the next player's)."""


def of(session: Session, player: Player, since: datetime) -> list[Vacation]:
    """`player`'s vacations that end after `since`, soonest first."""
    query = select(Vacation).where(Vacation.player_id == player.id, Vacation.ends_at > since)
    return list(session.scalars(query.order_by(Vacation.starts_at)))


def book(session: Session, player: Player, starts: datetime, ends: datetime, now: datetime) -> Vacation:
    vacation = Vacation(player_id=player.id, starts_at=starts, ends_at=ends, created_at=now)
    session.add(vacation)
    session.flush()
    return vacation


def end(session: Session, player: Player, now: datetime) -> tuple[Vacation | None, list[Vacation]]:
    """End `player`'s vacation now and call off those booked ahead: the one ended (its end is
    told by the time pass), and the ones called off (never told: they never began)."""
    ended, dropped = None, []
    for vacation in of(session, player, now):
        if vacation.starts_at <= now:
            vacation.ends_at = now
            ended = vacation
        else:
            dropped.append(vacation)
            session.delete(vacation)
    session.flush()
    return ended, dropped


def starting(session: Session, now: datetime) -> Sequence[Vacation]:
    """Vacations begun whose start nobody was told of yet (locked; rows another pass holds are skipped)."""
    query = select(Vacation).where(Vacation.start_told.is_(False), Vacation.starts_at <= now)
    return session.scalars(query.order_by(Vacation.starts_at).with_for_update(skip_locked=True, of=Vacation)).all()


def ending(session: Session, now: datetime) -> Sequence[Vacation]:
    """Vacations over whose end nobody was told of yet (locked as `starting`)."""
    query = select(Vacation).where(Vacation.end_told.is_(False), Vacation.ends_at <= now)
    return session.scalars(query.order_by(Vacation.ends_at).with_for_update(skip_locked=True, of=Vacation)).all()


def told(session: Session, vacation: Vacation, *, start: bool) -> None:
    """The other players have been told that `vacation` began (`start`) or ended."""
    if start:
        vacation.start_told = True
    else:
        vacation.end_told = True
    session.flush()


def shared_boards(session: Session, player: Player) -> Sequence[Board]:
    """The active boards `player` sits at."""
    query = (
        select(Board)
        .join(Seat, Seat.game_id == Board.id)
        .where(Seat.player_id == player.id, Board.status == BoardStatus.ACTIVE)
        .order_by(Board.game_type, Board.board)
    )
    return session.scalars(query).all()
