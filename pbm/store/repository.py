"""Queries the commands need, written once for SQLite and PostgreSQL.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

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


def password_hash(session: Session, userid: str, *, now: datetime) -> str | None:
    """The password hash of an active player whose password commands are not waiting out a back-off."""
    row = session.execute(
        select(Player.password_hash, Player.password_locked_until).where(
            Player.userid == userid.lower(), Player.signed_off_at.is_(None)
        )
    ).first()
    if row is None or (row.password_locked_until is not None and row.password_locked_until > now):
        return None
    return row.password_hash


def reply_names(session: Session, game_id: int, player_id: int) -> tuple[str, str, int] | None:
    """The (userid, game type, board) a reply address's game and player ids stand for."""
    row = session.execute(
        select(Player.userid, Game.game_type, Game.board)
        .join(Seat, Seat.player_id == Player.id)
        .join(Game, Game.id == Seat.game_id)
        .where(Game.id == game_id, Player.id == player_id)
    ).first()
    return (row.userid, row.game_type, row.board) if row is not None else None


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


def ratings_of(session: Session, players: Sequence[Player], game_type: str) -> list[Rating]:
    """The players' rating rows in `game_type` (in the order given), locked; new ones at the start value.

    Locked in the order of player ids, whatever the order of the seats: two games
    ending at once with the same players never wait for each other in a circle.
    """
    found = {
        rating.player_id: rating
        for rating in session.scalars(
            select(Rating)
            .where(Rating.player_id.in_([p.id for p in players]), Rating.game_type == game_type)
            .order_by(Rating.player_id)
            .with_for_update(of=Rating)
        )
    }
    for player in players:
        if player.id not in found:
            found[player.id] = Rating(
                player=player, game_type=game_type, rating=1600.0, games=0, wins=0, losses=0, draws=0
            )
            session.add(found[player.id])
    return [found[player.id] for player in players]


def signups_from(session: Session, address: str, *, since: datetime) -> list[datetime]:
    """When players signed up from `address` since `since`, oldest first."""
    query = (
        select(Player.created_at)
        .where(Player.signup_sender == address, Player.created_at >= since)
        .order_by(Player.created_at)
    )
    return list(session.scalars(query))


def challenges_by(session: Session, player_id: int, *, since: datetime) -> list[datetime]:
    """When `player_id` started games since `since`, oldest first."""
    query = (
        select(Game.created_at)
        .where(Game.challenger_id == player_id, Game.created_at >= since)
        .order_by(Game.created_at)
    )
    return list(session.scalars(query))


def note_password_check(session: Session, player_id: int, *, right: bool, now: datetime, allowed: int) -> None:
    """Count a wrong password, or clear the count after a right one.

    After `allowed` wrong ones in a row, password commands wait a minute, then
    twice as long after each further wrong one, a day at most.
    """
    player = session.get(Player, player_id)
    if player is None:
        return
    if right:
        player.password_failures = 0
        player.password_locked_until = None
        return
    player.password_failures += 1
    beyond = player.password_failures - allowed
    if beyond >= 0:
        # 2**11 minutes is past a day already; a bigger power would only overflow.
        player.password_locked_until = now + min(timedelta(minutes=1) * 2 ** min(beyond, 11), timedelta(days=1))


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
