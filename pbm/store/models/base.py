"""What every table shares: the declarative base and its naming convention, UTC timestamps,
status words, ids."""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    BigInteger,
    DateTime,
    Integer,
    MetaData,
    String,
)
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

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
