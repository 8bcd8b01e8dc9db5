"""Queries the web pages need: lists of games, a player's games, standings, recent changes.

Every list is paged and walks an index, so a page costs the same with a hundred
games stored or a hundred thousand:

- a type's current games, most recently active first: ``ix_games_type_status_updated``;
- a type's boards by number (``before``/``after`` a board, not an offset):
  ``ix_games_type_status_board``, or the unique (game_type, board) for all statuses;
- a player's games: ``ix_seats_player_game``;
- games changed lately (live updates): ``ix_games_updated``.

List queries leave out the engine state and the secret: a list line needs
neither, and the secret has no business outside the engine.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, func, select, union_all
from sqlalchemy.orm import Session, load_only, selectinload

from pbm.store.models import Game, Player, Rating, Seat

STATUSES = ("active", "finished", "cancelled")

_LIST_COLUMNS = load_only(
    Game.id,
    Game.game_type,
    Game.board,
    Game.status,
    Game.move_count,
    Game.to_move,
    Game.winners,
    Game.end_reason,
    Game.created_at,
    Game.updated_at,
    Game.finished_at,
)


def _listed() -> Select[tuple[Game]]:
    return select(Game).options(_LIST_COLUMNS, selectinload(Game.seats))


def counts_by_type(session: Session) -> dict[str, dict[str, int]]:
    """How many games of each type are in each status: ``{"cephalopod": {"active": 3, ...}}``."""
    query = select(Game.game_type, Game.status, func.count()).group_by(Game.game_type, Game.status)
    counts: dict[str, dict[str, int]] = {}
    for game_type, status, count in session.execute(query):
        counts.setdefault(game_type, {})[status] = count
    return counts


def latest_games(session: Session, game_types: Sequence[str], status: str, *, limit: int) -> dict[str, list[Game]]:
    """Per type, the `limit` games in `status` with the most recent activity, newest first.

    One statement for all types (a union of one short index walk per type), so
    the front page costs the same few round trips however many types there are.
    """
    newest = [
        select(Game.id)
        .where(Game.game_type == game_type, Game.status == status)
        .order_by(Game.updated_at.desc(), Game.id.desc())
        .limit(limit)
        .subquery()
        for game_type in game_types
    ]
    found: dict[str, list[Game]] = {game_type: [] for game_type in game_types}
    if not newest:
        return found
    ids = union_all(*(select(each.c.id) for each in newest))
    query = _listed().where(Game.id.in_(ids)).order_by(Game.updated_at.desc(), Game.id.desc())
    for game in session.scalars(query):
        found[game.game_type].append(game)
    return found


def _filtered(query: Select, game_type: str, statuses: Sequence[str], player: Player | None) -> Select:
    query = query.where(Game.game_type == game_type)
    if len(statuses) == 1:
        query = query.where(Game.status == statuses[0])
    elif set(statuses) != set(STATUSES):
        query = query.where(Game.status.in_(statuses))
    if player is not None:
        query = query.where(Game.id.in_(select(Seat.game_id).where(Seat.player_id == player.id)))
    return query


@dataclass(frozen=True)
class BoardPage:
    """One page of a type's boards, highest board number first."""

    games: list[Game]
    total: int
    """How many games match the filter, on all pages."""
    newer: int | None
    """Show the page after this board (``after=``) for newer boards; ``None`` on the first page."""
    older: int | None
    """Show the page before this board (``before=``) for older boards; ``None`` on the last page."""


def boards(
    session: Session,
    game_type: str,
    *,
    statuses: Sequence[str] = STATUSES,
    player: Player | None = None,
    before: int | None = None,
    after: int | None = None,
    limit: int = 50,
) -> BoardPage:
    """A page of boards: the `limit` highest below `before`, or the `limit` lowest above `after`."""
    query = _filtered(_listed(), game_type, statuses, player)
    if after is not None:
        query = query.where(Game.board > after).order_by(Game.board.asc())
    else:
        if before is not None:
            query = query.where(Game.board < before)
        query = query.order_by(Game.board.desc())
    found = list(session.scalars(query.limit(limit + 1)))
    more = len(found) > limit
    found = found[:limit]
    if after is not None:
        found.reverse()
        newer_exists, older_exists = more, True
    else:
        newer_exists, older_exists = before is not None, more
    total = session.scalar(_filtered(select(func.count()).select_from(Game), game_type, statuses, player))
    return BoardPage(
        games=found,
        total=total or 0,
        newer=found[0].board if found and newer_exists else None,
        older=found[-1].board if found and older_exists else None,
    )


def games_of(session: Session, player: Player, *, statuses: Sequence[str], limit: int) -> list[Game]:
    """A player's games in those statuses, most recently active first."""
    query = (
        _listed()
        .join(Seat, Seat.game_id == Game.id)
        .where(Seat.player_id == player.id, Game.status.in_(statuses))
        .order_by(Game.updated_at.desc(), Game.id.desc())
        .limit(limit)
    )
    return list(session.scalars(query))


def ratings_of(session: Session, player: Player) -> list[Rating]:
    query = select(Rating).where(Rating.player_id == player.id, Rating.games > 0).order_by(Rating.game_type)
    return list(session.scalars(query))


def standings_page(session: Session, game_type: str, *, offset: int, limit: int) -> tuple[list[Rating], int]:
    """A page of a type's rated players, best first, and how many there are in all."""
    rated = (Rating.game_type == game_type, Rating.games > 0)
    query = (
        select(Rating)
        .where(*rated)
        .order_by(Rating.rating.desc(), Rating.games.desc(), Rating.id)
        .offset(offset)
        .limit(limit)
    )
    total = session.scalar(select(func.count()).select_from(Rating).where(*rated))
    return list(session.scalars(query)), total or 0


ChangeMark = tuple[datetime, int, str]
"""What tells one state of a game from the next: (updated_at, move_count, status)."""


def change_marks(session: Session, since: datetime) -> dict[int, ChangeMark]:
    """The change marks of games changed at or after `since`, by game id: a short index range, no rows loaded."""
    query = select(Game.id, Game.updated_at, Game.move_count, Game.status).where(Game.updated_at >= since)
    return {
        game_id: (updated_at, move_count, status) for game_id, updated_at, move_count, status in session.execute(query)
    }


def listed_games(session: Session, ids: Collection[int]) -> list[Game]:
    """The games with these ids, as lists show them, oldest change first."""
    if not ids:
        return []
    query = _listed().where(Game.id.in_(ids)).order_by(Game.updated_at, Game.id)
    return list(session.scalars(query))
