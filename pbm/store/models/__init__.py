"""The database schema: players, boards and their move records, ratings, and every mail in and out.

Alembic migrations in ``migrations/`` create these tables; the models here are
the source of truth for both. A game row carries its engine state (the engine's
`dump`), so applying a move loads one row, plays, and writes it back: a move
costs the same in game 1 and game 100 000, in move 3 and move 300.

The models are grouped by concern, a module each (`base`, `players`, `boards`, `challenges`,
`mail`, `keys`); every name is also here, where the rest of pbm imports them from, and importing
this package defines every table.
"""

from __future__ import annotations

from pbm.store.models.base import NAMING, Base, Id, StatusColumn, UTCDateTime, utcnow
from pbm.store.models.boards import (
    Board,
    BoardCounter,
    BoardEvent,
    BoardStatus,
    BotTurn,
    EndNotice,
    MoveRecord,
    Offer,
    OfferKind,
    QueuedMove,
    Seat,
    Submission,
    Subscription,
    Talk,
    TalkKind,
)
from pbm.store.models.challenges import ChallengePolicy, OpenChallenge, Seek
from pbm.store.models.keys import ClubKey
from pbm.store.models.mail import (
    MAX_KEY,
    BouncedAddress,
    HoldReason,
    InboundKey,
    InboundMessage,
    InboundStatus,
    MailboxMessage,
    MailboxReader,
    OutboxMessage,
    OutboxStatus,
)
from pbm.store.models.players import (
    AddressConfirmation,
    PasswordReset,
    PasswordWait,
    Player,
    PlayerAddress,
    Rating,
    UnconfirmedAnswer,
    Vacation,
)

__all__ = [
    "AddressConfirmation",
    "Base",
    "Board",
    "BoardCounter",
    "BoardEvent",
    "BoardStatus",
    "BotTurn",
    "BouncedAddress",
    "ChallengePolicy",
    "ClubKey",
    "EndNotice",
    "HoldReason",
    "Id",
    "InboundKey",
    "InboundMessage",
    "InboundStatus",
    "MAX_KEY",
    "MailboxMessage",
    "MailboxReader",
    "MoveRecord",
    "NAMING",
    "Offer",
    "OfferKind",
    "OpenChallenge",
    "OutboxMessage",
    "OutboxStatus",
    "PasswordReset",
    "PasswordWait",
    "Player",
    "PlayerAddress",
    "QueuedMove",
    "Rating",
    "Seat",
    "Seek",
    "StatusColumn",
    "Submission",
    "Subscription",
    "Talk",
    "TalkKind",
    "UTCDateTime",
    "UnconfirmedAnswer",
    "Vacation",
    "utcnow",
]
