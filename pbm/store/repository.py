"""Queries the commands need, written once for SQLite and PostgreSQL.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, selectinload

from pbm.store.models import BoardCounter, Game, Move, Player, PlayerAddress, Rating, Seat

FIRST_BOARD = 101


def find_player(session: Session, userid: str) -> Player | None:
    return session.scalar(select(Player).where(Player.userid == userid.lower()))


def players_with_address(session: Session, address: str) -> list[Player]:
    """Active players who registered `address` (compared case-insensitively)."""
    query = (
        select(Player)
        .join(PlayerAddress)
        .where(func.lower(PlayerAddress.address) == address.lower(), Player.signed_off_at.is_(None))
        .order_by(Player.id)
    )
    return list(session.scalars(query).unique())


def find_game(session: Session, game_type: str, board: int, *, for_update: bool = False) -> Game | None:
    """The game row; `for_update` locks it so moves on one game are serialised."""
    query = select(Game).where(Game.game_type == game_type, Game.board == board)
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def game_by_id(session: Session, game_id: int, *, for_update: bool = False) -> Game | None:
    query = select(Game).where(Game.id == game_id)
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def allocate_board(session: Session, game_type: str) -> int:
    """The next board number of `game_type`, from 101; safe under concurrency."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(
        insert(BoardCounter).values(game_type=game_type, next_board=FIRST_BOARD).on_conflict_do_nothing()
    )
    counter = session.scalars(
        select(BoardCounter).where(BoardCounter.game_type == game_type).with_for_update()
    ).one()
    board = counter.next_board
    counter.next_board = board + 1
    return board


def moves_of(session: Session, game: Game, *, up_to: int | None = None) -> list[Move]:
    query = select(Move).where(Move.game_id == game.id).order_by(Move.number)
    if up_to is not None:
        query = query.where(Move.number <= up_to)
    return list(session.scalars(query))


def rating_of(session: Session, player: Player, game_type: str) -> Rating:
    """The player's rating row in `game_type`, created at the start value if new."""
    rating = session.scalar(
        select(Rating).where(Rating.player_id == player.id, Rating.game_type == game_type)
    )
    if rating is None:
        rating = Rating(player=player, game_type=game_type, rating=1600.0, games=0, wins=0, losses=0, draws=0)
        session.add(rating)
    return rating


def standings(session: Session, game_type: str) -> list[Rating]:
    query = (
        select(Rating)
        .where(Rating.game_type == game_type, Rating.games > 0)
        .order_by(Rating.rating.desc(), Rating.games.desc())
    )
    return list(session.scalars(query))


def games_query(
    game_type: str | None = None,
    *,
    player_ids: Sequence[int] = (),
    statuses: Sequence[str] = ("active",),
    to_move_player: int | None = None,
) -> Select[tuple[Game]]:
    """Games filtered by type, players (any of them seated), status and who is to move."""
    query = select(Game).options(selectinload(Game.seats))
    if game_type is not None:
        query = query.where(Game.game_type == game_type)
    if statuses:
        query = query.where(Game.status.in_(statuses))
    if player_ids:
        seated = select(Seat.game_id).where(Seat.player_id.in_(player_ids))
        query = query.where(Game.id.in_(seated))
    if to_move_player is not None:
        to_move = select(Seat.game_id).where(
            Seat.player_id == to_move_player, Seat.game_id == Game.id, Seat.seat == Game.to_move
        )
        query = query.where(to_move.exists())
    return query


def find_games(
    session: Session, query: Select[tuple[Game]], *, limit: int = 200, newest_first: bool = False
) -> list[Game]:
    """The games `query` selects: by board, or the most recently finished first."""
    order = (Game.finished_at.desc(), Game.id.desc()) if newest_first else (Game.game_type, Game.board)
    return list(session.scalars(query.order_by(*order).limit(limit)))


def seat_of(game: Game, player: Player) -> int | None:
    for seat in game.seats:
        if seat.player_id == player.id:
            return seat.seat
    return None


def players_named(session: Session, userids: Sequence[str]) -> dict[str, Player]:
    if not userids:
        return {}
    found = session.scalars(select(Player).where(Player.userid.in_(userids)))
    return {player.userid: player for player in found}
