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


def active_games(session: Session, player: Player, game_type: str) -> int:
    """How many games of `game_type` the player is playing now."""
    query = (
        select(func.count())
        .select_from(Seat)
        .join(Board, Board.id == Seat.game_id)
        .where(Seat.player_id == player.id, Board.game_type == game_type, Board.status == BoardStatus.ACTIVE)
    )
    return session.scalar(query) or 0
