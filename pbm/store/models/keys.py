"""The club's keys: which secret and signing keys every worker of the club uses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from pbm.store.models.base import Base, Id, UTCDateTime, utcnow


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
