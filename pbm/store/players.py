"""Players: finding them, signing them up, their passwords, addresses and signing off.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from pbm.store.models import Player, PlayerAddress

LONGEST_PASSWORD_WAIT = timedelta(days=1)


def find(session: Session, userid: str) -> Player | None:
    return session.scalar(select(Player).where(Player.userid == userid.lower()))


def named(session: Session, userids: Sequence[str]) -> dict[str, Player]:
    """The players of these userids that exist, by userid."""
    if not userids:
        return {}
    return {player.userid: player for player in session.scalars(select(Player).where(Player.userid.in_(userids)))}


def by_ids(session: Session, ids: Sequence[int]) -> list[Player]:
    return list(session.scalars(select(Player).where(Player.id.in_(ids)))) if ids else []


def with_address(session: Session, address: str) -> list[Player]:
    """Active players who registered `address` (compared case-insensitively)."""
    return list(session.scalars(_WITH_ADDRESS, {"address": address.lower()}).unique())


_WITH_ADDRESS = (
    select(Player)
    .join(PlayerAddress)
    .where(func.lower(PlayerAddress.address) == bindparam("address"), Player.signed_off_at.is_(None))
    .order_by(Player.id)
)
"""Built once: every mail asks it, for its sender."""


def checkable_password_hash(session: Session, userid: str, *, now: datetime) -> str | None:
    """The password hash of an active player whose password commands are not waiting out a back-off."""
    row = session.execute(
        select(Player.password_hash, Player.password_locked_until).where(
            Player.userid == userid.lower(), Player.signed_off_at.is_(None)
        )
    ).first()
    if row is None or (row.password_locked_until is not None and row.password_locked_until > now):
        return None
    return row.password_hash


def sign_up(
    session: Session,
    userid: str,
    password_hash: str,
    addresses: Sequence[str],
    *,
    sender: str | None,
    host: str | None = None,
    now: datetime,
) -> Player:
    """A new player writing to `addresses` (the first is where the server writes), signed up by a
    mail from `sender`, sent by `host` where known."""
    player = Player(userid=userid, password_hash=password_hash, created_at=now, signup_sender=sender, signup_host=host)
    player.addresses = [PlayerAddress(address=a, position=i) for i, a in enumerate(addresses)]
    session.add(player)
    session.flush()
    return player


def everyone_active(session: Session) -> list[Player]:
    """Every player still signed up, by userid."""
    return list(session.scalars(select(Player).where(Player.signed_off_at.is_(None)).order_by(Player.userid)))


def signups_since(
    session: Session, since: datetime, *, sender: str | None = None, host: str | None = None
) -> list[datetime]:
    """When players signed up since `since` by mail from `sender`, or sent by `host`, oldest first."""
    by = Player.signup_sender == sender if sender is not None else Player.signup_host == host
    query = select(Player.created_at).where(by, Player.created_at >= since).order_by(Player.created_at)
    return list(session.scalars(query))


def set_password(player: Player, password_hash: str) -> None:
    player.password_hash = password_hash


def clear_password_wait(player: Player) -> None:
    """Forget the wrong passwords counted so far (a reset proved the player is who they say)."""
    player.password_failures = 0
    player.password_locked_until = None


def set_addresses(session: Session, player: Player, addresses: Sequence[str]) -> list[str]:
    """Replace the player's addresses with `addresses`; returns the ones it had."""
    old = [a.address for a in player.addresses]
    player.addresses.clear()
    session.flush()  # the old rows go before the new ones take their positions
    player.addresses.extend(PlayerAddress(address=a, position=i) for i, a in enumerate(addresses))
    return old


def add_addresses(player: Player, addresses: Sequence[str]) -> list[str]:
    """Add to the player's addresses those of `addresses` it does not have; returns the ones it had."""
    old = [a.address for a in player.addresses]
    known = {a.lower() for a in old}
    fresh = [a for a in addresses if a.lower() not in known]
    player.addresses.extend(PlayerAddress(address=a, position=len(old) + i) for i, a in enumerate(fresh))
    return old


def sign_off(player: Player, now: datetime) -> None:
    player.signed_off_at = now


def note_password_check(session: Session, player_id: int, *, right: bool, now: datetime, allowed: int) -> None:
    """Count a wrong password, or clear the count after a right one.

    After `allowed` wrong ones in a row, password commands wait a minute, then
    twice as long after each further wrong one, a day at most.
    """
    player = session.get(Player, player_id)
    if player is None:
        return
    if right:
        clear_password_wait(player)
        return
    player.password_failures += 1
    beyond = player.password_failures - allowed
    if beyond >= 0:
        # 2**11 minutes is past a day already; a bigger power would only overflow.
        player.password_locked_until = now + min(timedelta(minutes=1) * 2 ** min(beyond, 11), LONGEST_PASSWORD_WAIT)
