"""The database schema: players, boards and their move records, ratings, and every mail in and out.

Alembic migrations in ``migrations/`` create these tables; the models here are
the source of truth for both. A game row carries its engine state (the engine's
`dump`), so applying a move loads one row, plays, and writes it back: a move
costs the same in game 1 and game 100 000, in move 3 and move 300.
"""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from pbm.addresses import comparable_column
from pbm.elo import START

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """Timestamps stored in UTC and always read back in UTC, timezone-aware (SQLite forgets the
    zone; PostgreSQL gives the session's, a `ZoneInfo`, which would read as a player's clock:
    `pbm.timekeeping.local_time.on_a_named_clock`)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(timezone.utc) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


class BoardStatus(enum.StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    """Over, with a result: winners, or a tie among them."""
    CANCELLED = "cancelled"
    """Called off before it counted (ended before every player had moved): no result, not rated."""


class InboundStatus(enum.StrEnum):
    PENDING = "pending"
    PROCESSED = "processed"
    IGNORED = "ignored"
    """Not answered: automatic mail (a bounce, an auto-reply, our own mail come back)."""
    DUPLICATE = "duplicate"
    """Another delivery of a mail already stored, which was processed instead."""
    FAILED = "failed"


class OutboxStatus(enum.StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    """Given up for good; `last_error` says why."""
    SUPPRESSED = "suppressed"
    """Never sent, nor to be: `last_error` says why (an error answer past the limit that breaks mail
    loops; a mail that waited for the digest of a player who signed off)."""
    HELD = "held"
    """Held back (`hold_reason`) until `release_at`, or until code releases it when that is None."""
    GATHERED = "gathered"
    """Went out inside one mail with the others held back for its recipient (`kind` "held_mail")."""


class HoldReason(enum.StrEnum):
    """Why a mail is held back instead of sent."""

    HOURLY_LIMIT = "hourly_limit"
    """Its recipient was sent as many mails within the hour as one address may be."""
    UNCONFIRMED = "unconfirmed"
    """Its recipient has not confirmed the address for the player it is for (`AddressConfirmation`):
    it waits until they do."""
    BOUNCED = "bounced"
    """Its recipient's mail system says our mail does not reach it (`BouncedAddress`): it waits
    until mail from the address, or the operator, says it works again."""
    DIGEST = "digest"
    """A board mail for a player who takes digests (`Player.digest_times`): their next digest
    tells of the game instead, and the mail goes no further (it is marked gathered)."""
    QUIET_HOURS = "quiet_hours"
    """It came in the quiet hours of the player it is for (`Player.quiet_from`): it waits until they end."""


_E = TypeVar("_E", bound=enum.StrEnum)


class StatusColumn(TypeDecorator[_E], Generic[_E]):
    """A status stored as its plain word in a short text column, read back as its enum member."""

    impl = String(16)
    cache_ok = True

    def __init__(self, enum_type: type[_E]) -> None:
        super().__init__()
        self.enum_type = enum_type

    def process_bind_param(self, value: _E | str | None, dialect: Any) -> str | None:
        return None if value is None else self.enum_type(value).value

    def process_result_value(self, value: str | None, dialect: Any) -> _E | None:
        return None if value is None else self.enum_type(value)


# BigInteger ids on PostgreSQL, but SQLite only auto-increments an INTEGER primary key.
Id = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Player(Base):
    """A signed-up player. `userid` is stored lower case: userids are case-insensitive."""

    __tablename__ = "players"
    __table_args__ = (
        Index("ix_players_signup_host_created", "signup_host", "created_at"),
        Index("ix_players_bot_level", "bot_level"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    userid: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    signed_off_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    signup_sender: Mapped[str | None] = mapped_column(String(254), default=None)
    """The address the signup came from, so signups per sender can be counted."""
    signup_host: Mapped[str | None] = mapped_column(String(64), default=None)
    """The host that sent the signup, where known (`pbm.mail.sending_host`), so signups per
    host can be counted."""
    language: Mapped[str | None] = mapped_column(String(8), default=None)
    """The language the player reads (`pbm.i18n.languages`); None: the club's default."""

    time_zone: Mapped[str | None] = mapped_column(String(64), default=None)
    """The IANA zone the player lives in (`pbm.timekeeping.local_time`); None: UTC."""
    quiet_from: Mapped[int | None] = mapped_column(Integer, default=None)
    """The start of the player's quiet hours, in minutes after local midnight: no mail for them
    goes from then until `quiet_until` (it waits in the outbox). None: no quiet hours."""
    quiet_until: Mapped[int | None] = mapped_column(Integer, default=None)
    digest_times: Mapped[str | None] = mapped_column(String(64), default=None)
    """The local times of the player's digests (``07:30,19:00``): instead of a mail for each move,
    one mail at each of those times lists the games waiting for them. None: a mail for each."""
    digest_due_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the next digest goes (UTC): each is due once, at the next of `digest_times` after the last."""
    bot_level: Mapped[int | None] = mapped_column(Integer, default=None)
    """Set for the club's bots (``bot1``, ``bot2`` ...: `pbm.store.bot_players`): the level of
    `pbm.bots` they play every game at. A bot has no address and no usable password: it is never
    mailed, and moves through `pbm.mail.bot_turns`. None for every person."""

    addresses: Mapped[list[PlayerAddress]] = relationship(
        back_populates="player", order_by="PlayerAddress.position", cascade="all, delete-orphan"
    )

    @property
    def active(self) -> bool:
        return self.signed_off_at is None

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None

    @property
    def primary_address(self) -> str:
        """Where the server writes to the player; empty for a bot, which has no address (a mail
        to nobody is never queued: `pbm.mail.outgoing`)."""
        return self.addresses[0].address if self.addresses else ""


class PasswordWait(Base):
    """Wrong passwords for one player from one sender, in a row, and how long password commands
    for that player from that sender wait after too many.

    The sender is one of the player's registered addresses, in lower case, or
    `pbm.store.players.OTHER_ADDRESSES` for every other address together, or a sending host
    after `pbm.store.players.FROM_HOST` for mail naming a registered address that our MTA could
    not vouch for (`pbm.store.players.password_sender`). A right password from the sender
    ends its row.
    """

    __tablename__ = "password_waits"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    sender: Mapped[str] = mapped_column(String(320), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """Password commands for the player from the sender are refused until then, unchecked."""


class PlayerAddress(Base):
    """One of a player's mail addresses; position 0 is where the server writes."""

    __tablename__ = "player_addresses"
    __table_args__ = (UniqueConstraint("player_id", "position"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    address: Mapped[str] = mapped_column(String(320), index=True)
    position: Mapped[int] = mapped_column(Integer)

    player: Mapped[Player] = relationship(back_populates="addresses")


# Signups per sender are counted by address whatever its case (`pbm.store.players.signups_since`).
Index("ix_players_lower_signup_sender_created", comparable_column(Player.signup_sender), Player.created_at)
# Mail is matched to players by address whatever its case (`pbm.store.players.with_address`):
# without this, every received mail would read every address there is.
Index("ix_player_addresses_lower_address", comparable_column(PlayerAddress.address))


class AddressConfirmation(Base):
    """A player's address, confirmed or waiting to be: a request mailed to it (`token_hash` set), or
    an address vouched for without one (in use before confirmations began, or while the club
    does without them).

    A reply to the request confirms the address for that player (`confirmed_at`), for good: the
    row stays when the player's addresses change. Only a hash of the request's token is kept.
    """

    __tablename__ = "address_confirmations"
    __table_args__ = (
        Index("ix_address_confirmations_address_created", "address", "created_at"),
        Index("ix_address_confirmations_player_address", "player_id", "address"),
        Index("ix_address_confirmations_created", "created_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    address: Mapped[str] = mapped_column(String(320))
    """Lower case: an address is confirmed whatever case a mail writes it in."""
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """Until when a reply to the request confirms the address."""
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class UnconfirmedAnswer(Base):
    """An answer mailed to the sender of a mail whose address nobody confirmed, which may be forged:
    when, and the host that handed that mail to us ("" where unknown). Counted so that such
    answers stop per sending host and for the whole server (`pbm.store.unconfirmed_answers`); the
    address is not kept."""

    __tablename__ = "unconfirmed_answers"
    __table_args__ = (
        Index("ix_unconfirmed_answers_host_answered", "host", "answered_at"),
        Index("ix_unconfirmed_answers_answered", "answered_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    host: Mapped[str] = mapped_column(String(128), default="")
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


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
    (`pbm.commands.bot_games`)."""

    seats: Mapped[list[Seat]] = relationship(order_by="Seat.seat", cascade="all, delete-orphan", lazy="selectin")
    offer: Mapped[Offer | None] = relationship(cascade="all, delete-orphan", lazy="select")
    """The draw or undo waiting for votes, if any (`pbm.store.offers`): loaded once per transaction,
    however many times a move asks."""


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


class ChallengePolicy(Base):
    """How a player takes challenges to one game type: at all, and up to how many games at once."""

    __tablename__ = "challenge_policies"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    game_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    accepts: Mapped[bool] = mapped_column(default=True)
    """False: every challenge to this type is refused."""
    most_games: Mapped[int | None] = mapped_column(Integer, default=None)
    """No more active games of this type than this (None: no limit)."""


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


class Seek(Base):
    """A player wants more games of a type (``seek``): the server pairs them with other seekers."""

    __tablename__ = "seeks"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    game_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    wanted: Mapped[int] = mapped_column(Integer)
    """Games still wanted; the row goes when it reaches 0."""
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    """The options asked for; none means any game of the type will do."""
    since: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    """When the player started waiting: the longest waiting are paired first."""

    player: Mapped[Player] = relationship(lazy="joined")


class OpenChallenge(Base):
    """A challenge with free seats (``challenge alice open``): its board number is taken, and the
    game starts when ``join`` has filled every seat; until then it is no board at all."""

    __tablename__ = "open_challenges"
    __table_args__ = (UniqueConstraint("game_type", "board"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    game_type: Mapped[str] = mapped_column(String(32))
    board: Mapped[int] = mapped_column(Integer)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    seats: Mapped[list[int | None]] = mapped_column(JSON)
    """The player id in each seat, in order of play; None where a seat is free."""
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """The time rules the game will be played under (`pbm.timekeeping.clocks.TimeControl.to_json`)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)

    challenger: Mapped[Player] = relationship(lazy="joined")


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


class MailboxReader(Base):
    """Who reads a club's mailbox at a provider (`pbm.mail.mailbox`), and what it last saw there.

    One row per mailbox (``user@host/folder``): the worker holding it reads it until
    `held_until`, renewing as it goes, so that several workers on one database read it once; a
    worker that dies loses it when the lease ends, or at once when a worker on its host sees its
    process gone. `uidvalidity` is the folder's as last selected: a change means every UID known
    before names nothing any more (`MailboxMessage`).
    """

    __tablename__ = "mailbox_readers"

    mailbox: Mapped[str] = mapped_column(String(400), primary_key=True)
    holder: Mapped[str | None] = mapped_column(String(128), default=None)
    held_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger, default=None)


class MailboxMessage(Base):
    """A mail of the mailbox stored in the inbox (`inbound_id`) but not yet moved to the folder of
    processed mail: a reader that finds it still there after a crash moves it without storing it
    again. The row goes once the mail is moved."""

    __tablename__ = "mailbox_messages"

    mailbox: Mapped[str] = mapped_column(String(400), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    inbound_id: Mapped[int | None] = mapped_column(Id, default=None)
    stored_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PasswordReset(Base):
    """A ``password reset`` mailed to a player: the reply address it carries works once, until
    `expires_at`. Only a hash of that address's token is kept."""

    __tablename__ = "password_resets"

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class Vacation(Base):
    """A time a player is away (``vacation``): their clocks stop, nothing nags or forfeits them.

    The time pass tells each game's other players when it starts and when it ends,
    once each (`start_told`, `end_told`).
    """

    __tablename__ = "vacations"
    __table_args__ = (
        Index("ix_vacations_player_ends", "player_id", "ends_at"),
        Index("ix_vacations_start_told_starts", "start_told", "starts_at"),
        Index("ix_vacations_end_told_ends", "end_told", "ends_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    start_told: Mapped[bool] = mapped_column(default=False)
    end_told: Mapped[bool] = mapped_column(default=False)

    player: Mapped[Player] = relationship(lazy="joined")


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


class Rating(Base):
    """A player's Elo rating in one game type."""

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("player_id", "game_type"),
        Index("ix_ratings_type_rating", "game_type", "rating"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    game_type: Mapped[str] = mapped_column(String(32))
    rating: Mapped[float] = mapped_column(default=START)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    last_rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the player's last rated game of this type ended: the standings put long-idle players apart."""

    player: Mapped[Player] = relationship(lazy="joined")


class BouncedAddress(Base):
    """An address mail systems said our mail does not reach (`pbm.mail.bounces`).

    A permanent failure stops mail to it at once (`stopped_at`); temporary ones are counted,
    and stop it when they are many in a row. While it is stopped, mail to it is held back in the
    outbox, not dropped. Mail from the address ends the row (it works again), as does `pbm outbox
    --resume`.
    """

    __tablename__ = "bounced_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    """Lower case: one mailbox however a mail writes it."""
    temporary_failures: Mapped[int] = mapped_column(Integer, default=0)
    """Temporary failures reported in a row, since the last mail from the address."""
    status: Mapped[str] = mapped_column(String(16), default="")
    """The last status reported (``5.1.1``)."""
    reported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    stopped_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """Since when no mail goes to it; None while its failures are still being counted."""


class InboundMessage(Base):
    """Every mail accepted over SMTP, stored raw before the 250 is sent.

    `dedupe_key` (the Message-ID with a digest of what the author wrote, see
    `pbm.store.inbox.dedupe_key`) is unique, so the same mail delivered twice
    is stored twice but only the first copy carries the key and is processed;
    the second is recorded as a duplicate.

    A pending mail is processed in two steps (`pbm.mail.processing`): it is
    *read* (MIME to text, outside any write transaction; `read_at` and `parsed`
    are set and its `InboundKey` rows written), then *applied* in one
    transaction, in the order received among mails that share a key.
    """

    __tablename__ = "inbound_messages"
    __table_args__ = (Index("ix_inbound_status_id", "status", "id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    message_id: Mapped[str | None] = mapped_column(String(998), default=None)
    dedupe_key: Mapped[str | None] = mapped_column(String(128), unique=True, default=None)
    envelope_from: Mapped[str] = mapped_column(String(320), default="")
    envelope_to: Mapped[str] = mapped_column(Text, default="")
    peer: Mapped[str] = mapped_column(String(128), default="")
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    status: Mapped[InboundStatus] = mapped_column(StatusColumn(InboundStatus), default=InboundStatus.PENDING)
    note: Mapped[str] = mapped_column(Text, default="")
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When the mail was read; until then nothing received after it that could touch the same things is applied."""
    parsed: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """What reading found (`ParsedMail.to_json`): what applying works from."""
    read_claim: Mapped[str | None] = mapped_column(String(128), default=None)
    """The worker reading it now (host:pid:nonce), so a dead worker's claim can be taken over at once."""
    read_claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    read_attempts: Mapped[int] = mapped_column(Integer, default=0)
    """Times reading was started: a mail whose reading keeps killing the worker is given up."""
    read_seconds: Mapped[float | None] = mapped_column(default=None)
    """CPU seconds reading took; with `read_peak_kb`, what the mail cost the reader."""
    read_peak_kb: Mapped[int | None] = mapped_column(Integer, default=None)


MAX_KEY = 320
"""The longest key stored as it is; a longer one is stored as its digest (`pbm.store.inbox`)."""


class InboundKey(Base):
    """What a pending mail touches: its sender, the players and boards its commands name.

    A mail is applied only once every earlier pending mail sharing a key is
    done, so mail from one sender, and mail about one game or player, is
    applied in the order received however many workers run; mails that share
    nothing run side by side. Rows exist only while their mail is pending.
    """

    __tablename__ = "inbound_keys"
    __table_args__ = (Index("ix_inbound_keys_key_inbound", "key", "inbound_id"),)

    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound_messages.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(MAX_KEY), primary_key=True)


class OutboxMessage(Base):
    """A reply waiting for (or done with) delivery: the transactional outbox."""

    __tablename__ = "outbox_messages"
    __table_args__ = (
        Index("ix_outbox_status_due", "status", "next_attempt_at"),
        Index("ix_outbox_status_release", "status", "release_at"),
        # The time pass forgets sent mail after PBM_KEEP_SENT_DAYS (`pbm.store.outbox.prune_sent`).
        Index("ix_outbox_status_sent", "status", "sent_at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    recipient: Mapped[str] = mapped_column(String(320))
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    raw_without_secret: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    """`raw` without the secret it carries (a password reset's reply token), when it carries one:
    it replaces `raw` once the mail is sent or fails for good, so no secret outlives its use."""
    status: Mapped[OutboxStatus] = mapped_column(StatusColumn(OutboxStatus), default=OutboxStatus.PENDING)
    kind: Mapped[str] = mapped_column(String(32), default="")
    """The template it was made from (board, error, ...): error answers are counted apart."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    """When it may be sent; while a worker sends it, the end of that worker's lease."""
    held_by: Mapped[str | None] = mapped_column(String(128), default=None)
    """The worker whose lease holds it (host:pid:nonce), so a dead worker's lease can be ended at once."""
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    queued_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When it was queued to be sent, which the hourly limits count by; None while it is held
    back, and for a mail never to be sent."""
    hold_reason: Mapped[HoldReason | None] = mapped_column(StatusColumn(HoldReason), default=None)
    release_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    """When a mail held back may go; None: when code releases it (`pbm.store.outbox.release`)."""
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"), default=None, index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), default=None, index=True)
    player_id: Mapped[int | None] = mapped_column(Id, default=None)
    """The player it is for, when it is for one (`pbm.commands.effects.OutgoingMail.player_id`): a mail
    waiting for an address to be confirmed goes when that player confirms it. No foreign key, so
    that adding the column did not rewrite the outbox; players are never deleted."""


class ClubKey(Base):
    """A key the whole club shares, as its database knows it, so that every worker on the database,
    on any host, uses the same ones (`pbm.store.club_keys`).

    `kind` ``secret``: the secret key (reply and bounce addresses), known by its fingerprint
    alone. `kind` ``signing``: a signing key (receipts and records): its public key, and its
    private key sealed with a key derived from the secret key (never in clear: the database
    alone, or a backup of it, signs nothing). One signing key is `current`; the others were
    rotated away and stay listed so what they signed still verifies.
    """

    __tablename__ = "club_keys"
    __table_args__ = (UniqueConstraint("kind", "key_id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    key_id: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str | None] = mapped_column(String(64), default=None)
    sealed_private: Mapped[str | None] = mapped_column(String(255), default=None)
    current: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# Volume limits: what one address, however its case is written, was sent lately (`pbm.store.outbox.recent_counts`).
Index("ix_outbox_lower_recipient_queued", comparable_column(OutboxMessage.recipient), OutboxMessage.queued_at)
