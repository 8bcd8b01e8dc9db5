"""Proposals waiting at a board (a draw, an undo) and what just happened to one."""

from __future__ import annotations

from dataclasses import dataclass

from pbm.views.moves import MoveView


@dataclass(frozen=True)
class OfferView:
    """A proposal waiting at a board: who made it, what it would do, who still has to answer."""

    kind: str
    """``draw`` or ``undo``."""
    proposer: str
    waiting: list[str]
    """The userids that have not voted yet."""
    takes_back: MoveView | None = None
    """For an undo, the move it would take back."""


@dataclass(frozen=True)
class OfferNews:
    """What just happened to a proposal, for the first line of the mails it causes."""

    kind: str
    userid: str
    """Who did it: the proposer, or the player who voted."""
    action: str
    """``proposed``, ``accepted``, ``rejected``, or ``withdrawn`` (by a move)."""
    proposer: str
