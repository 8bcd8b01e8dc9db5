"""An open challenge as its mails and ``games open`` show it: its seats in order of play,
None where a seat is free (the edge says what a free seat is called)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm.games import Game
from pbm.store.models import OpenChallenge, Player
from pbm.views.board import options_text


@dataclass(frozen=True)
class OpenChallengeView:
    """An open challenge as its mails and ``games open`` show it."""

    game_type: str
    title: str
    board: int
    seats: tuple[str | None, ...]
    """Each seat's userid in order of play, None where it is free."""
    options: str
    expires_at: datetime

    @property
    def free(self) -> int:
        return self.seats.count(None)


def open_challenge_view(
    engine: Game[Any], challenge: OpenChallenge, seated: Sequence[Player | None]
) -> OpenChallengeView:
    """`challenge` with `seated`, the player in each of its seats (None where free)."""
    return OpenChallengeView(
        game_type=engine.name,
        title=engine.title,
        board=challenge.board,
        seats=tuple(p.userid if p is not None else None for p in seated),
        options=options_text(engine, challenge.options),
        expires_at=challenge.expires_at,
    )
