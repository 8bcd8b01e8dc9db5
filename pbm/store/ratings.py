"""Ratings: each player's Elo rating per game type, changed when a game is rated.

The arithmetic is `pbm.elo`; this keeps the rows. Everything here runs inside a
session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm import elo
from pbm.store import bot_players
from pbm.store.database import dialect_insert
from pbm.store.models import Player, Rating


def rate(
    session: Session, players: Sequence[Player], game_type: str, winners: Set[int], now: datetime
) -> list[elo.RatingChange]:
    """Rate a finished game of `players` (in seat order) won by the seats `winners`.

    A bot plays at its rating from the ladder (`bot_players.rating`), which no game changes; its
    games are counted all the same, so the standings show it. Only the others' changes are returned."""
    rows = _locked(session, players, game_type)
    for player, row in zip(players, rows):
        if player.bot_level is not None:
            row.rating = bot_players.rating(game_type, player.bot_level)
    new = elo.rate([row.rating for row in rows], winners)
    changes = []
    for seat, (row, value) in enumerate(zip(rows, new)):
        before = round(row.rating)
        bot = players[seat].bot_level is not None
        row.rating = row.rating if bot else value
        row.games += 1
        row.last_rated_at = now
        if seat in winners and len(winners) == 1:
            row.wins += 1
        elif seat in winners:
            row.draws += 1
        else:
            row.losses += 1
        if not bot:
            changes.append(elo.RatingChange(players[seat].userid, before, round(value), elo.is_provisional(row.games)))
    return changes


def _locked(session: Session, players: Sequence[Player], game_type: str) -> list[Rating]:
    """The players' rating rows in `game_type` (in the order given), locked; new ones at the start value.

    A missing row is inserted first, where another transaction may be inserting
    the same one (two games of a new player ending at once): the insert gives
    way to theirs. Rows are inserted and locked in the order of player ids,
    whatever the order of the seats, so two games ending at once with the same
    players never wait for each other in a circle.
    """
    ids = sorted({p.id for p in players})
    insert = dialect_insert(session)
    fresh = {"game_type": game_type, "rating": elo.START, "games": 0, "wins": 0, "losses": 0, "draws": 0}
    for player_id in ids:
        session.execute(insert(Rating).values(player_id=player_id, **fresh).on_conflict_do_nothing())
    found = {
        rating.player_id: rating
        for rating in session.scalars(
            select(Rating)
            .where(Rating.player_id.in_(ids), Rating.game_type == game_type)
            .order_by(Rating.player_id)
            .with_for_update(of=Rating)
            .execution_options(populate_existing=True)
        )
    }
    return [found[player.id] for player in players]


def standings(
    session: Session, game_type: str, *, offset: int = 0, limit: int | None = None
) -> tuple[list[Rating], int]:
    """The type's rated players, best first (a page of them when `limit` is given), and how many there are."""
    rated = (Rating.game_type == game_type, Rating.games > 0)
    query = select(Rating).where(*rated).order_by(Rating.rating.desc(), Rating.games.desc(), Rating.id)
    total = session.scalar(select(func.count()).select_from(Rating).where(*rated))
    return list(session.scalars(query.offset(offset).limit(limit))), total or 0


def of_player(session: Session, player: Player) -> list[Rating]:
    """The player's ratings in the types they have finished a rated game of."""
    query = select(Rating).where(Rating.player_id == player.id, Rating.games > 0).order_by(Rating.game_type)
    return list(session.scalars(query))


def current(session: Session, player_ids: Sequence[int], game_type: str) -> dict[int, float]:
    """Each player's rating in `game_type`; the starting rating for those who have none yet."""
    query = select(Rating.player_id, Rating.rating).where(
        Rating.game_type == game_type, Rating.player_id.in_(player_ids)
    )
    found = {player_id: rating for player_id, rating in session.execute(query)}
    return {player_id: found.get(player_id, elo.START) for player_id in player_ids}
