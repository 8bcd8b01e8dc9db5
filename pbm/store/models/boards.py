"""Boards: their seats, moves, events, talk and offers, and what waits at a board (a submitted or
queued move, a bot's turn, who watches it, who wants to hear of its end)."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbm.store.models.base import Base, Id, StatusColumn, UTCDateTime, utcnow
from pbm.store.models.players import Player


class BoardStatus(enum.StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    """Over, with a result: winners, or a tie among them."""
    CANCELLED = "cancelled"
    """Called off before it counted (ended before every player had moved): no result, not rated."""


class BoardCounter(Base):
    """The next board number per game type (boards count from 101 per type)."""

    __tablename__ = "board_counters"

    game_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    next_board: Mapped[int] = mapped_column(Integer)


class Board(Base):
    """One board: its players (seats), engine state and status."""

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("game_type", "board"),
        Index("ix_games_status_updated", "status", "updated_at"),
        Index("ix_games_type_status_board", "game_type", "status", "board"),
        # The web's lists: a type's most recently active games, and what changed lately.
        Index("ix_games_type_status_updated", "game_type", "status", "updated_at"),
        Index("ix_games_updated", "updated_at"),
        Index("ix_games_challenger_created", "challenger_id", "created_at"),
        Index("ix_games_due", "due_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    game_type: Mapped[str] = mapped_column(String(32))
    board: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[BoardStatus] = mapped_column(StatusColumn(BoardStatus), default=BoardStatus.ACTIVE)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The engine's `dump` of the current position."""
    secret: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """Hidden engine state (a dice seed): never shown before the game ends."""
    move_count: Mapped[int] = mapped_column(Integer, default=0)
    to_move: Mapped[int | None] = mapped_column(Integer, default=0)
    """Seat to move while active, kept beside the state so lists need no engine."""
    winners: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    end_code: Mapped[str | None] = mapped_column(String(32), default=None)
    """The kind of ending: the engine's `pbm.games.Result.code` (``most-cells``, ``merged`` ...),
    or ``resigned``, or for a cancelled game ``cancelled``."""
    end_fact: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """How it ended, as a fact (`pbm.facts.Fact.to_json`) whose words follow the winners' names:
    the engine's `pbm.games.Result.fact` (``won, holding 15 of the 25 cells``), or one of
    `pbm.store.messages` (``won when alice resigned``); for a cancelled game, why. Never words."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    challenger_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), default=None)
    """Who started the game, so challenges per sender can be counted."""
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """The game's time rules (`pbm.timekeeping.clocks.TimeControl.to_json`); None: the club's defaults."""
    turn_since: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the player to move got the turn: their wait (and their clock) runs from here."""
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the time pass must next look at this board (a reminder, a forfeit, a vote to settle):
    never later than the next thing due, sometimes earlier; None once the game is over."""
    reminders_sent: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Reminders the player to move was sent in this turn (the last warning counts apart)."""
    warned: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Whether the player to move had the last warning before the forfeit in this turn."""
    chain_head: Mapped[str | None] = mapped_column(String(64), default=None)
    """The hash of the game's move chain after its last move (`pbm.crypto.chain`): the header's
    hash before any. A board mail's receipt signs it; the next move links to it."""
    exhibition: Mapped[bool] = mapped_column(default=False, server_default=false())
    """A game of the server's bots alone that an administrator started to be watched: it plays on
    with no person in it, where any other game with bots ends once no person is left in play
    (`pbm.commands.play.no_person_left`)."""

    seats: Mapped[list[Seat]] = relationship(order_by="Seat.seat", cascade="all, delete-orphan", lazy="selectin")
    offer: Mapped[Offer | None] = relationship(cascade="all, delete-orphan", lazy="select")
    """The draw or undo waiting for votes, if any (`pbm.store.offers`): loaded once per transaction,
    however many times a move asks."""


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        Index("ix_seats_player_game", "player_id", "game_id"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    thinking_seconds: Mapped[float] = mapped_column(default=0.0, server_default="0")
    """The time this player has had the turn, time away not counted (``--totaltime`` counts it)."""
    bank_seconds: Mapped[float | None] = mapped_column(default=None)
    """What is left in this player's bank (``--clock``) at the start of their turn; None without one."""

    player: Mapped[Player] = relationship(lazy="joined")


class MoveRecord(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    notation: Mapped[str] = mapped_column(String(64))
    """The move in canonical notation, or ``resign``."""
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), default=None)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """What the move did, as the engine decided when it was played (`pbm.games.MoveReport` as
    JSON, `pbm.views.moves.report_data`): its fact, who it put out of the game and why (a fact), and
    every seat's count at that moment. Kept because the state after the move no longer shows
    who was eliminated, or why. Facts, never words."""
    auto: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Played for the player from their queue (shown ``(Auto)``), not sent as a move."""
    chain_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    """The move chain's hash after this move (`pbm.crypto.chain.link_hash`), written with it."""


class BoardEvent(Base):
    """Something that happened at a board between moves (a player went away, came back): the move
    list shows it after move `after_move`."""

    __tablename__ = "board_events"
    __table_args__ = (Index("ix_board_events_game", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    after_move: Mapped[int] = mapped_column(Integer)
    fact: Mapped[dict[str, Any]] = mapped_column(JSON)
    """What happened, as a fact (`pbm.facts.Fact.to_json`): the move list says it in its reader's words."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TalkKind(enum.StrEnum):
    CHAT = "chat"
    """To the players of a board."""
    MESSAGE = "message"
    """To players named by userid."""


class Talk(Base):
    """A chat or message a player sent: counted, so that nobody can flood the others."""

    __tablename__ = "talks"
    __table_args__ = (Index("ix_talks_player_created", "player_id", "created_at"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    kind: Mapped[TalkKind] = mapped_column(StatusColumn(TalkKind))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OfferKind(enum.StrEnum):
    DRAW = "draw"
    """End the game as a tie among the players still in it."""
    UNDO = "undo"
    """Take back the last move."""


class Offer(Base):
    """A proposal to the other players of a board that needs every one's yes: a draw, or an undo.

    At most one per board. One reject, or any move, ends it; when every player
    still in the game has accepted, it is carried out.
    """

    __tablename__ = "offers"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[OfferKind] = mapped_column(StatusColumn(OfferKind))
    proposer: Mapped[int] = mapped_column(Integer)
    """The seat that proposed it (its yes is counted)."""
    accepted: Mapped[list[int]] = mapped_column(JSON)
    """The seats that said yes, the proposer first."""
    at_move: Mapped[int] = mapped_column(Integer)
    """The board's move count when it was proposed: an undo takes back the move before."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reminders_sent: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Reminders sent to the players who have not voted yet."""


class Submission(Base):
    """A move a player submitted to see it privately first; ``confirm`` plays it if the board is unchanged."""

    __tablename__ = "submissions"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    move: Mapped[str] = mapped_column(String(64))
    """In canonical notation."""
    at_move: Mapped[int] = mapped_column(Integer)
    """The board's move count when it was submitted: a confirm after any change is refused."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QueuedMove(Base):
    """What a player asked to play for them when their turn comes: one or more lines, each a
    move to play, most with the moves the others must have played first (``queue``)."""

    __tablename__ = "queued_moves"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    at_move: Mapped[int] = mapped_column(Integer)
    """The board's move count when it was queued: the conditions are about the moves after it."""
    lines: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """``{"if": [NOTATION...], "then": MOVE}`` in the order written; ``if`` empty on the line
    played whatever the others play."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class BotTurn(Base):
    """What a bot is working out at a board (`pbm.mail.bot_turns`): its move, or its vote on a
    proposal; claimed by one server worker for a lease, so that several workers on one database
    think about each turn once.

    `task` names what was asked (``move 12``: the move after move 12); the decision goes into
    the inbox as the bot's reply to that board (`inbound_id`), ordered with the mail naming the
    board, and a decision the board has moved past is refused there as a stale reply would be.
    """

    __tablename__ = "bot_turns"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    task: Mapped[str] = mapped_column(String(64))
    worker: Mapped[str | None] = mapped_column(String(128), default=None)
    """The worker thinking about `task` (host:pid:nonce), until `claimed_until`."""
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    """Times `task` was claimed: a decision refused for a reason that does not pass is not tried for ever."""
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), default=None)
    """The decision in the inbox, once made."""


class Subscription(Base):
    """A player who watches a board: every board mail of it, without a reply address.

    A subscription to a whole game type (`game_id` None) stands for every game
    of that type that starts later: each such game gets a subscription of its
    own when it starts, so that one can be ended alone.
    """

    __tablename__ = "subscriptions"
    __table_args__ = (
        UniqueConstraint("player_id", "game_type", "game_id"),
        Index("ix_subscriptions_game", "game_id"),
        Index("ix_subscriptions_type", "game_type", "game_id"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    game_type: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    player: Mapped[Player] = relationship(lazy="joined")


class EndNotice(Base):
    """A player who wants a mail when a game ends: one board, or any game of a type (`game_id` None)."""

    __tablename__ = "end_notices"
    __table_args__ = (
        UniqueConstraint("player_id", "game_type", "game_id"),
        Index("ix_end_notices_type", "game_type", "game_id"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    game_type: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    player: Mapped[Player] = relationship(lazy="joined")
