"""Challenge policies: whether players take challenges to a game type, and how many games at once.

A player without a policy row takes every challenge, with no limit. Everything
here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm.store.models import Board, BoardStatus, ChallengePolicy, Player, Seat


def of(session: Session, player: Player, game_type: str) -> ChallengePolicy:
    """The player's policy for `game_type` (a new default one, not yet stored, if none was set)."""
    found = session.get(ChallengePolicy, (player.id, game_type))
    return found or ChallengePolicy(player_id=player.id, game_type=game_type, accepts=True, most_games=None)


def store(session: Session, policy: ChallengePolicy) -> None:
    session.merge(policy)


def active_counts(session: Session, game_type: str) -> dict[int, int]:
    """How many games of `game_type` each player is playing now, by player id (only those playing)."""
    query = (
        select(Seat.player_id, func.count())
        .join(Board, Board.id == Seat.game_id)
        .where(Board.game_type == game_type, Board.status == BoardStatus.ACTIVE)
        .group_by(Seat.player_id)
    )
    return {player_id: count for player_id, count in session.execute(query)}


def limits(session: Session, game_type: str) -> dict[int, int]:
    """Each player's limit of games of `game_type` at once, by player id (only those who set one)."""
    query = select(ChallengePolicy.player_id, ChallengePolicy.most_games).where(
        ChallengePolicy.game_type == game_type, ChallengePolicy.most_games.is_not(None)
    )
    return {player_id: most for player_id, most in session.execute(query) if most is not None}


def active_games(session: Session, player: Player, game_type: str) -> int:
    """How many games of `game_type` the player is playing now."""
    query = (
        select(func.count())
        .select_from(Seat)
        .join(Board, Board.id == Seat.game_id)
        .where(Seat.player_id == player.id, Board.game_type == game_type, Board.status == BoardStatus.ACTIVE)
    )
    return session.scalar(query) or 0
