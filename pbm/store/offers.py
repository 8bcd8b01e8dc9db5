"""Offers: a draw or an undo proposed at a board, and the players' votes on it.

Everything here runs inside a session the caller owns (with the board locked);
nothing commits.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm.store.models import Board, Offer, OfferKind


def pending(session: Session, board: Board) -> Offer | None:
    return board.offer


def propose(session: Session, board: Board, kind: OfferKind, proposer: int, now: datetime) -> Offer:
    board.offer = Offer(kind=kind, proposer=proposer, accepted=[proposer], at_move=board.move_count, created_at=now)
    session.flush()
    return board.offer


def accept(offer: Offer, seat: int) -> None:
    offer.accepted = [*offer.accepted, seat]


def reminded(offer: Offer, count: int) -> None:
    """Those who have not voted on `offer` have had `count` reminders."""
    offer.reminders_sent = count


def close(session: Session, board: Board) -> None:
    """The offer is settled: carried out, refused, or withdrawn by a move."""
    board.offer = None
    session.flush()
