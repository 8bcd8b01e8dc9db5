"""A player's rating in one game type, as the standings and a player's page show it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbm import elo
from pbm.games import Game
from pbm.store.models import Rating

INACTIVE_AFTER = timedelta(days=180)
"""A player with no rated game of a type finished in this long is listed apart in its standings."""


@dataclass(frozen=True)
class RatingView:
    """A player's rating in one game type, as standings and a player's page show it."""

    game_type: str
    title: str
    userid: str
    rating: int
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool
    last_rated_at: datetime | None = None
    active_games: int = 0
    """Games of the type the player plays now."""
    limit: int | None = None
    """The most games of the type the player takes at once (None: no limit)."""
    seeking: int = 0
    """More games of the type the player seeks (``seek``)."""

    def inactive(self, now: datetime) -> bool:
        """No rated game of the type finished within `INACTIVE_AFTER` of `now`."""
        return self.last_rated_at is None or now - self.last_rated_at > INACTIVE_AFTER


def rating_view(
    engine: Game[Any], rating: Rating, *, active_games: int = 0, limit: int | None = None, seeking: int = 0
) -> RatingView:
    return RatingView(
        game_type=rating.game_type,
        title=engine.title,
        userid=rating.player.userid,
        rating=round(rating.rating),
        games=rating.games,
        wins=rating.wins,
        losses=rating.losses,
        draws=rating.draws,
        provisional=elo.is_provisional(rating.games),
        last_rated_at=rating.last_rated_at,
        active_games=active_games,
        limit=limit,
        seeking=seeking,
    )
