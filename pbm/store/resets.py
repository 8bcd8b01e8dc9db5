"""Password resets: one-time, expiring reply addresses mailed to a player's registered addresses.

Only a SHA-256 hash of each token is stored: whoever reads the database cannot
use a reset that is still open. Everything here runs inside a session the
caller owns; nothing commits.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.store.models import PasswordReset, Player

TOKEN_PREFIX = "reset-"
"""How a reset's reply address (``pbm+reset-...@domain``) differs from a board mail's."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.strip().lower().encode()).hexdigest()


def start(session: Session, player: Player, *, now: datetime, expires_at: datetime) -> str:
    """A new reset for `player`; returns its token, which is not kept anywhere (only its hash is)."""
    token = TOKEN_PREFIX + secrets.token_hex(16)  # 128 bits, lower-case: mail systems may fold case
    session.add(PasswordReset(player_id=player.id, token_hash=_hash(token), created_at=now, expires_at=expires_at))
    return token


def sent_since(session: Session, player: Player, since: datetime) -> int:
    """Resets mailed to `player` since `since`."""
    query = select(PasswordReset.id).where(PasswordReset.player_id == player.id, PasswordReset.created_at >= since)
    return len(session.scalars(query).all())


def find(session: Session, token: str) -> PasswordReset | None:
    """The reset `token` stands for, used or not (mails naming its player are applied one at a time)."""
    return session.scalars(select(PasswordReset).where(PasswordReset.token_hash == _hash(token))).first()


def player_of(session: Session, token: str, now: datetime) -> Player | None:
    """The player whose reset `token` still works: not used, not expired."""
    reset = find(session, token)
    if reset is None or reset.used_at is not None or reset.expires_at <= now:
        return None
    return session.get(Player, reset.player_id)


def is_reset_token(token: str) -> bool:
    return token.lower().startswith(TOKEN_PREFIX)
