"""Players: their addresses and the confirmation of each, password waits and resets, vacations,
ratings, and the answers sent to addresses nobody confirmed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbm.addresses import comparable_column
from pbm.elo import START
from pbm.store.models.base import Base, Id, UTCDateTime, utcnow


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
