"""Games not yet begun: how a player takes challenges, the games they seek, open challenges."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbm.store.models.base import Base, Id, UTCDateTime, utcnow
from pbm.store.models.players import Player


class ChallengePolicy(Base):
    """How a player takes challenges to one game type: at all, and up to how many games at once."""

    __tablename__ = "challenge_policies"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    game_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    accepts: Mapped[bool] = mapped_column(default=True)
    """False: every challenge to this type is refused."""
    most_games: Mapped[int | None] = mapped_column(Integer, default=None)
    """No more active games of this type than this (None: no limit)."""


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
