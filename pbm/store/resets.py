"""Password resets: one-time, expiring reply addresses mailed to a player's registered addresses.

Only a SHA-256 hash of each token is stored: whoever reads the database cannot
use a reset that is still open. Everything here runs inside a session the
caller owns; nothing commits.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.store.models import PasswordReset, Player

TOKEN_PREFIX = "reset-"
"""How a reset's reply address (``pbm+reset-...@domain``) differs from a board mail's."""


def _hash(token: str) -> str:
    """The hash a token is stored and found by: of its handle alone, marked sealed, for a token
    with a MAC (which delivery writes into it, `pbm.mail.tokens`, and the mail layer checks); of
    the whole token for one of the older kind (so a handle read in the database is none)."""
    token = token.strip().lower()
    mac = _WITH_MAC.search(token)
    return hashlib.sha256((f"sealed:{token[: mac.start()]}" if mac else token).encode()).hexdigest()


_WITH_MAC = re.compile(r"-[a-z0-9]{20}$")
SEALED = "-" + "0" * 20
"""What stands for a token's MAC until its mail is handed over (`pbm.mail.tokens.SEAL`)."""


def start(session: Session, player: Player, *, now: datetime, expires_at: datetime) -> str:
    """A new reset for `player`; returns its token, which is not kept anywhere (only its hash is)."""
    # The handle: 128 bits, lower-case (mail systems may fold case); sealed until the mail is handed
    # over, so the token that works is never written anywhere (its MAC is made from the key then).
    token = TOKEN_PREFIX + secrets.token_hex(16) + SEALED
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


def use(reset: PasswordReset, now: datetime) -> None:
    """`reset` has set a password: it works no more."""
    reset.used_at = now


def is_reset_token(token: str) -> bool:
    return token.lower().startswith(TOKEN_PREFIX)
