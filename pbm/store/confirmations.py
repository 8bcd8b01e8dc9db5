"""Confirmed addresses: which of a player's addresses agreed to get the server's mail.

A request is mailed to an address with a one-time reply address; a reply
from that address confirms it for the player it was mailed for, for good
(the row stays when the player's addresses change). An address in use before
confirmations began, or given while the club does without them, is vouched
for: a row confirmed without a request. Only a SHA-256 hash of each token is
stored, as for password resets.

Addresses are kept and compared in their comparable form (`pbm.addresses`). Everything here
runs inside a
session the caller owns; nothing commits.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from pbm.addresses import comparable, comparable_column
from pbm.store.database import execute_plain
from pbm.store.models import AddressConfirmation, Player, PlayerAddress

TOKEN_PREFIX = "confirm-"
"""How a confirmation's reply address (``pbm+confirm-...@domain``) differs from the others."""


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


def is_confirmation_token(token: str | None) -> bool:
    return token is not None and token.lower().startswith(TOKEN_PREFIX)


def request(session: Session, player: Player, address: str, *, now: datetime, expires_at: datetime) -> str:
    """A request to confirm `address` for `player`; returns its token, which is kept nowhere (its hash is)."""
    # The handle: 128 bits, lower-case (mail systems may fold case); sealed until the mail is handed
    # over, so the token that works is never written anywhere (its MAC is made from the key then).
    token = TOKEN_PREFIX + secrets.token_hex(16) + SEALED
    session.add(
        AddressConfirmation(
            player_id=player.id,
            address=comparable(address),
            token_hash=_hash(token),
            created_at=now,
            expires_at=expires_at,
        )
    )
    return token


def vouch(session: Session, player: Player, addresses: Sequence[str], *, now: datetime) -> None:
    """Count `addresses` as confirmed for `player` without asking (the club does without confirmations)."""
    session.add_all(
        AddressConfirmation(player_id=player.id, address=comparable(a), created_at=now, confirmed_at=now)
        for a in addresses
    )


def requests_since(session: Session, since: datetime, *, address: str | None = None) -> list[datetime]:
    """When requests were mailed since `since` (to `address`, or to anyone), oldest first."""
    query = select(AddressConfirmation.created_at).where(
        AddressConfirmation.token_hash.is_not(None), AddressConfirmation.created_at >= since
    )
    if address is not None:
        query = query.where(AddressConfirmation.address == comparable(address))
    return list(session.scalars(query.order_by(AddressConfirmation.created_at)))


def left_unanswered(session: Session, address: str, now: datetime) -> bool:
    """Whether a request to `address` expired unanswered and nobody ever confirmed the address: its
    owner was silent for a week, so it is asked no more (a forger naming it gets nothing more)."""
    rows = session.execute(
        select(AddressConfirmation.expires_at, AddressConfirmation.confirmed_at).where(
            AddressConfirmation.address == comparable(address)
        )
    ).all()
    if any(row.confirmed_at is not None for row in rows):
        return False
    return any(row.expires_at is not None and row.expires_at <= now for row in rows)


def find(session: Session, token: str) -> AddressConfirmation | None:
    """The request `token` stands for, confirmed or not, expired or not."""
    return session.scalars(select(AddressConfirmation).where(AddressConfirmation.token_hash == _hash(token))).first()


def userid_of(session: Session, token: str, now: datetime) -> str | None:
    """The userid of the active player whose request `token` stands for, while a reply confirms it."""
    confirmation = find(session, token)
    if confirmation is None or (confirmation.confirmed_at is None and not is_open(confirmation, now)):
        return None
    player = session.get(Player, confirmation.player_id)
    return player.userid if player is not None and player.active else None


def is_open(confirmation: AddressConfirmation, now: datetime) -> bool:
    """Whether a reply to `confirmation`'s request still confirms the address (it has not expired)."""
    return confirmation.expires_at is not None and confirmation.expires_at > now


def confirm(session: Session, confirmation: AddressConfirmation, now: datetime) -> None:
    """Confirm the address of `confirmation`'s request, written at once: whom a mail may go to is
    read past the session (`confirmed_by`)."""
    if confirmation.confirmed_at is None:
        confirmation.confirmed_at = now
        session.flush()


def unconfirmed(session: Session, player: Player, addresses: Sequence[str]) -> list[str]:
    """Those of `addresses` that `player` has not confirmed, in order."""
    confirmed = set(
        session.scalars(
            select(AddressConfirmation.address).where(
                AddressConfirmation.player_id == player.id,
                AddressConfirmation.address.in_([comparable(a) for a in addresses]),
                AddressConfirmation.confirmed_at.is_not(None),
            )
        )
    )
    return [a for a in addresses if comparable(a) not in confirmed]


def has_confirmed_address(session: Session, player: Player) -> bool:
    """Whether one of `player`'s addresses now is confirmed for them."""
    query = (
        select(AddressConfirmation.id)
        .join(
            PlayerAddress,
            (PlayerAddress.player_id == AddressConfirmation.player_id)
            & (comparable_column(PlayerAddress.address) == AddressConfirmation.address),
        )
        .where(AddressConfirmation.player_id == player.id, AddressConfirmation.confirmed_at.is_not(None))
        .limit(1)
    )
    return session.scalar(query) is not None


def is_confirmed(session: Session, address: str) -> bool:
    """Whether anyone confirmed `address` (in any letter case)."""
    return bool(confirmed_by(session, [address]))


def confirmed_by(session: Session, addresses: Collection[str]) -> dict[str, set[int]]:
    """By the comparable form (`pbm.addresses`) of each of `addresses` that anyone confirmed: the
    players it is confirmed for. Read past the session's objects (`execute_plain`): what was
    confirmed here was written at once."""
    if not addresses:
        return {}
    found: dict[str, set[int]] = {}
    keys = sorted({comparable(address) for address in addresses})
    for address, player_id in execute_plain(session, _CONFIRMED_BY, {"addresses": keys}):
        found.setdefault(address, set()).add(player_id)
    return found


_CONFIRMED_BY = select(AddressConfirmation.address, AddressConfirmation.player_id).where(
    AddressConfirmation.address.in_(bindparam("addresses", expanding=True)),
    AddressConfirmation.confirmed_at.is_not(None),
)
"""Built once: every mail that causes mail asks it, for its recipients."""
