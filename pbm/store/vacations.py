"""Vacations: the times players are away, booked ahead or ended early.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.orm import Session

from pbm.store.models import Board, BoardStatus, Player, Seat, Vacation
from pbm.timekeeping.clocks import Interval

KEPT = "pbm.store.vacations.kept"
"""The key, in a session's `info`, of the time away a move read for its next turn too
(`pbm.store.turns.end_turn`): booking or ending a vacation in the session forgets it."""


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
"""Built once: every move asks it, for the mover's time away and the next player's (`KEPT`)."""


def of(session: Session, player: Player, since: datetime) -> list[Vacation]:
    """`player`'s vacations that end after `since`, soonest first."""
    query = select(Vacation).where(Vacation.player_id == player.id, Vacation.ends_at > since)
    return list(session.scalars(query.order_by(Vacation.starts_at)))


def book(session: Session, player: Player, starts: datetime, ends: datetime, now: datetime) -> Vacation:
    vacation = Vacation(player_id=player.id, starts_at=starts, ends_at=ends, created_at=now)
    session.info.pop(KEPT, None)
    session.add(vacation)
    session.flush()
    return vacation


def end(session: Session, player: Player, now: datetime) -> tuple[Vacation | None, list[Vacation]]:
    """End `player`'s vacation now and call off those booked ahead: the one ended (its end is
    told by the time pass), and the ones called off (never told: they never began)."""
    ended, dropped = None, []
    session.info.pop(KEPT, None)
    for vacation in of(session, player, now):
        if vacation.starts_at <= now:
            vacation.ends_at = now
            ended = vacation
        else:
            dropped.append(vacation)
            session.delete(vacation)
    session.flush()
    return ended, dropped


def untold(session: Session, now: datetime) -> Sequence[Vacation]:
    """Vacations begun or over whose start or end nobody was told of yet, by player (locked;
    rows another pass holds are skipped)."""
    begun = and_(Vacation.start_told.is_(False), Vacation.starts_at <= now)
    over = and_(Vacation.end_told.is_(False), Vacation.ends_at <= now)
    query = select(Vacation).where(or_(begun, over)).order_by(Vacation.player_id, Vacation.starts_at)
    return session.scalars(query.with_for_update(skip_locked=True, of=Vacation)).all()


def heard_away(session: Session, player_id: int) -> Vacation | None:
    """The vacation the other players of `player_id` were told began and not yet that it ended."""
    query = select(Vacation).where(
        Vacation.player_id == player_id, Vacation.start_told.is_(True), Vacation.end_told.is_(False)
    )
    return session.scalars(query.order_by(Vacation.starts_at.desc())).first()


def away_at(session: Session, player_id: int, now: datetime) -> Vacation | None:
    """The vacation `player_id` is on at `now`, if any."""
    query = select(Vacation).where(Vacation.player_id == player_id, Vacation.starts_at <= now, Vacation.ends_at > now)
    return session.scalars(query).first()


def told(session: Session, vacation: Vacation, now: datetime) -> None:
    """The other players count as told of what `vacation` did by `now`: its start, its end."""
    vacation.start_told = vacation.start_told or vacation.starts_at <= now
    vacation.end_told = vacation.end_told or vacation.ends_at <= now
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
