"""Lists of boards: a type's current games, pages of boards, a player's games, what changed lately.

The web pages and the `games` and `history` commands read the same lists. Every
list is bounded and walks an index, so it costs the same with a hundred games
stored or a hundred thousand:

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
from typing import Any, TypeVar

from sqlalchemy import Select, distinct, func, select, union_all
from sqlalchemy.orm import Session, load_only, selectinload

from pbm.store.models import Board, BoardStatus, Player, Seat

_Query = TypeVar("_Query", bound=Select[Any])

STATUSES = tuple(BoardStatus)
ENDED = (BoardStatus.FINISHED, BoardStatus.CANCELLED)

_LIST_COLUMNS = load_only(
    Board.id,
    Board.game_type,
    Board.board,
    Board.status,
    Board.move_count,
    Board.to_move,
    Board.winners,
    Board.end_code,
    Board.end_fact,
    Board.created_at,
    Board.updated_at,
    Board.finished_at,
    Board.time_control,
    Board.turn_since,
)


def _listed() -> Select[Board]:
    return select(Board).options(_LIST_COLUMNS, selectinload(Board.seats))


def counts_by_type(session: Session) -> dict[str, dict[str, int]]:
    """How many games of each type are in each status: ``{"cephalopod": {"active": 3, ...}}``."""
    query = select(Board.game_type, Board.status, func.count()).group_by(Board.game_type, Board.status)
    counts: dict[str, dict[str, int]] = {}
    for game_type, status, count in session.execute(query):
        counts.setdefault(game_type, {})[status] = count
    return counts


def latest_games(session: Session, game_types: Sequence[str], status: str, *, limit: int) -> dict[str, list[Board]]:
    """Per type, the `limit` games in `status` with the most recent activity, newest first.

    One statement for all types (a union of one short index walk per type), so
    the front page costs the same few round trips however many types there are.
    """
    newest = [
        select(Board.id)
        .where(Board.game_type == game_type, Board.status == status)
        .order_by(Board.updated_at.desc(), Board.id.desc())
        .limit(limit)
        .subquery()
        for game_type in game_types
    ]
    found: dict[str, list[Board]] = {game_type: [] for game_type in game_types}
    if not newest:
        return found
    ids = union_all(*(select(each.c.id) for each in newest))
    query = _listed().where(Board.id.in_(ids)).order_by(Board.updated_at.desc(), Board.id.desc())
    for game in session.scalars(query):
        found[game.game_type].append(game)
    return found


def data_version(session: Session) -> tuple[datetime | None, int | None]:
    """What changes whenever a count of games by type and status may: the latest ``updated_at``
    (every new game and every end sets it) and the highest id; two ends of two indexes, no scan."""
    # One subquery per max: SQLite reads a lone max() from the end of an index, but two in one
    # SELECT make it scan the whole index.
    latest = select(func.max(Board.updated_at)).scalar_subquery()
    highest = select(func.max(Board.id)).scalar_subquery()
    found, top = session.execute(select(latest, highest)).one()
    return found, top


def _seated(game_type: str, statuses: Sequence[str], player_id: int) -> Select[int]:
    """The ids of a type's boards in `statuses` where `player_id` sits, found from the player's
    seats (a few hundred rows), not by checking every board of the type one by one."""
    seats = select(Seat.game_id).join(Board, Board.id == Seat.game_id).where(Seat.player_id == player_id)
    return _filtered(seats, game_type, statuses)


def _filtered(query: _Query, game_type: str, statuses: Sequence[str], player_ids: Sequence[int] = ()) -> _Query:
    """`query` narrowed to a type's boards in `statuses` where any of `player_ids` sits (if any are given)."""
    query = query.where(Board.game_type == game_type)
    if len(statuses) == 1:
        query = query.where(Board.status == statuses[0])
    elif set(statuses) != set(STATUSES):
        query = query.where(Board.status.in_(statuses))
    if player_ids:
        query = query.where(Board.id.in_(select(Seat.game_id).where(Seat.player_id.in_(player_ids))))
    return query


@dataclass(frozen=True)
class BoardPage:
    """One page of a type's boards, highest board number first."""

    games: list[Board]
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
    total: int | None = None,
) -> BoardPage:
    """A page of boards: the `limit` highest below `before`, or the `limit` lowest above `after`;
    `total`: their `count` when the caller knows it (`pbm.web.reads` keeps counts per data version)."""
    if player is not None:
        query = _listed().where(Board.id.in_(_seated(game_type, statuses, player.id)))
    else:
        query = _filtered(_listed(), game_type, statuses)
    if after is not None:
        query = query.where(Board.board > after).order_by(Board.board.asc())
    else:
        if before is not None:
            query = query.where(Board.board < before)
        query = query.order_by(Board.board.desc())
    found = list(session.scalars(query.limit(limit + 1)))
    more = len(found) > limit
    found = found[:limit]
    if after is not None:
        found.reverse()
        newer_exists, older_exists = more, True
    else:
        newer_exists, older_exists = before is not None, more
    return BoardPage(
        games=found,
        total=count(session, game_type, statuses, player) if total is None else total,
        newer=found[0].board if found and newer_exists else None,
        older=found[-1].board if found and older_exists else None,
    )


def count(session: Session, game_type: str, statuses: Sequence[str], player: Player | None = None) -> int:
    """How many of a type's boards are in `statuses` (where `player` sits, if given)."""
    if player is not None:
        query = select(func.count(distinct(Board.id))).where(Board.id.in_(_seated(game_type, statuses, player.id)))
    else:
        query = _filtered(select(func.count()).select_from(Board), game_type, statuses)
    return session.scalar(query) or 0


def of_players(
    session: Session, game_type: str, *, player_ids: Sequence[int] = (), statuses: Sequence[str], limit: int = 200
) -> list[Board]:
    """A type's boards in those statuses where any of the players sits (or all of them), by number."""
    query = _filtered(_listed(), game_type, statuses, player_ids)
    return list(session.scalars(query.order_by(Board.board).limit(limit)))


def playing(session: Session, player_id: int, *, limit: int = 200) -> list[Board]:
    """The active boards of every type where `player_id` sits, by type and number."""
    query = _listed().where(
        Board.status == BoardStatus.ACTIVE,
        Board.id.in_(select(Seat.game_id).where(Seat.player_id == player_id)),
    )
    return list(session.scalars(query.order_by(Board.game_type, Board.board).limit(limit)))


def waiting_for(session: Session, player_id: int, game_type: str | None = None, *, limit: int = 200) -> list[Board]:
    """The active boards where `player_id` is to move, of `game_type` (or every type), by type and number."""
    to_move = select(Seat.game_id).where(
        Seat.player_id == player_id, Seat.game_id == Board.id, Seat.seat == Board.to_move
    )
    query = _listed().where(Board.status == BoardStatus.ACTIVE, to_move.exists())
    if game_type is not None:
        query = query.where(Board.game_type == game_type)
    return list(session.scalars(query.order_by(Board.game_type, Board.board).limit(limit)))


def ended(session: Session, game_type: str, *, player_ids: Sequence[int] = (), limit: int = 100) -> list[Board]:
    """A type's boards that are over, where any of the players sits (or all of them), the latest first."""
    query = _filtered(_listed(), game_type, ENDED, player_ids)
    return list(session.scalars(query.order_by(Board.finished_at.desc(), Board.id.desc()).limit(limit)))


def games_of(session: Session, player: Player, *, statuses: Sequence[str], limit: int) -> list[Board]:
    """A player's games in those statuses, most recently active first.

    Found from the player's seats (a few hundred rows at most), then sorted: joined to the games
    directly, SQLite walked every game in one status newest first (the status and time index
    gives that order for free) to find the player's, some 60 ms at 100 000 games (issue 45)."""
    seated = (
        select(Seat.game_id)
        .join(Board, Board.id == Seat.game_id)
        .where(Seat.player_id == player.id, Board.status.in_(statuses))
    )
    query = _listed().where(Board.id.in_(seated)).order_by(Board.updated_at.desc(), Board.id.desc()).limit(limit)
    return list(session.scalars(query))


ChangeMark = tuple[datetime, int, str]
"""What tells one state of a game from the next: (updated_at, move_count, status)."""


def change_marks(session: Session, since: datetime) -> dict[int, ChangeMark]:
    """The change marks of games changed at or after `since`, by game id: a short index range, no rows loaded."""
    query = select(Board.id, Board.updated_at, Board.move_count, Board.status).where(Board.updated_at >= since)
    return {
        game_id: (updated_at, move_count, status) for game_id, updated_at, move_count, status in session.execute(query)
    }


def listed_games(session: Session, ids: Collection[int]) -> list[Board]:
    """The games with these ids, as lists show them, oldest change first."""
    if not ids:
        return []
    query = _listed().where(Board.id.in_(ids)).order_by(Board.updated_at, Board.id)
    return list(session.scalars(query))
