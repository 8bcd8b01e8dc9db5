"""Offers: a draw or an undo proposed at a board, and the players' votes on it.

Everything here runs inside a session the caller owns (with the board locked);
nothing commits.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbm.store.models import Board, Offer, OfferKind


def pending(session: Session, board: Board) -> Offer | None:
    return session.scalar(select(Offer).where(Offer.game_id == board.id))


def propose(session: Session, board: Board, kind: OfferKind, proposer: int, now: datetime) -> Offer:
    offer = Offer(
        game_id=board.id, kind=kind, proposer=proposer, accepted=[proposer], at_move=board.move_count, created_at=now
    )
    session.add(offer)
    session.flush()
    return offer


def accept(offer: Offer, seat: int) -> None:
    offer.accepted = [*offer.accepted, seat]


def close(session: Session, board: Board) -> None:
    """The offer is settled: carried out, refused, or withdrawn by a move."""
    session.execute(delete(Offer).where(Offer.game_id == board.id))
