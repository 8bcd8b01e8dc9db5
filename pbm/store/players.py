"""Players: finding them, signing them up, their passwords, addresses and signing off.

Everything here runs inside a session the caller owns; nothing commits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, case, delete, exists, select
from sqlalchemy.orm import Session

from pbm.addresses import comparable, comparable_column, distinct
from pbm.store.models import AddressConfirmation, BouncedAddress, PasswordWait, Player, PlayerAddress

LONGEST_PASSWORD_WAIT = timedelta(days=1)
OTHER_ADDRESSES = ""
"""The sender that every address a player has not registered counts as, for wrong passwords:
one count for them all, so that a guesser gains nothing by writing from a new address each time
(no address is empty)."""
FROM_HOST = "host "
"""Before a sending host, the count of wrong passwords from mail that names a player's address
as its From but that our MTA could not vouch for (no address holds a space)."""


def find(session: Session, userid: str) -> Player | None:
    return session.scalar(select(Player).where(Player.userid == userid.lower()))


def named(session: Session, userids: Sequence[str]) -> dict[str, Player]:
    """The players of these userids that exist, by userid."""
    if not userids:
        return {}
    return {player.userid: player for player in session.scalars(select(Player).where(Player.userid.in_(userids)))}


def by_ids(session: Session, ids: Sequence[int]) -> list[Player]:
    return list(session.scalars(select(Player).where(Player.id.in_(ids)))) if ids else []


def addresses_of(session: Session, player_id: int) -> list[str]:
    """The addresses `player_id` registered, first first; one query, the player's row unread."""
    return list(session.scalars(_ADDRESSES_OF, {"player_id": player_id}))


_ADDRESSES_OF = (
    select(PlayerAddress.address)
    .where(PlayerAddress.player_id == bindparam("player_id"))
    .order_by(PlayerAddress.position)
)
"""Built once: every reply to a board mail asks it, to check the address its token is tied to."""


def with_address(session: Session, address: str) -> list[Player]:
    """Active players who registered `address`, however its case is written (`pbm.addresses`)."""
    return list(session.scalars(_WITH_ADDRESS, {"address": comparable(address)}).unique())


_WITH_ADDRESS = (
    select(Player)
    .join(PlayerAddress)
    .where(comparable_column(PlayerAddress.address) == bindparam("address"), Player.signed_off_at.is_(None))
    .order_by(Player.id)
)
"""Built once: every mail asks it, for its sender."""


@dataclass(frozen=True)
class Writer:
    """What applying a mail must know of the address it came from (`writing_from`)."""

    players: list[Player]
    """The active players who registered it (`with_address`)."""
    bounced: bool
    """Whether bounces were reported of it (`pbm.store.bounces.resume` forgets them)."""
    confirmed: bool
    """Whether anyone confirmed it (`pbm.store.confirmations.is_confirmed`)."""


def writing_from(session: Session, address: str) -> Writer:
    """`with_address`, and whether bounces were reported of `address` and anyone confirmed it: one
    statement for a player's mail (the answers ride on each player's row), two for a stranger's,
    where they were three for every mail."""
    parameters = {"address": comparable(address)}
    rows = session.execute(_WRITING_FROM, parameters).unique().all()
    if rows:
        return Writer([row[0] for row in rows], bool(rows[0][1]), bool(rows[0][2]))
    bounced, confirmed = session.execute(_BOUNCED_AND_CONFIRMED, parameters).one()
    return Writer([], bool(bounced), bool(confirmed))


_BOUNCED = select(BouncedAddress.address).where(BouncedAddress.address == bindparam("address")).exists()
_CONFIRMED = (
    select(AddressConfirmation.address)
    .where(AddressConfirmation.address == bindparam("address"), AddressConfirmation.confirmed_at.is_not(None))
    .exists()
)
_WRITING_FROM = _WITH_ADDRESS.add_columns(_BOUNCED, _CONFIRMED)
_BOUNCED_AND_CONFIRMED = select(_BOUNCED, _CONFIRMED)


def readers(session: Session, ids: Iterable[int], addresses: Iterable[str]) -> Readers:
    """The languages and zones chosen by the players of `ids` and by the active players of
    `addresses` (the first of them who chose one): who reads a mail in which language, and on
    which wall clock. One query each."""
    ids = set(ids)
    by_id: dict[int, tuple[str | None, str | None]] = {}
    if ids:
        query = select(Player.id, Player.language, Player.time_zone).where(Player.id.in_(ids))
        by_id = {row.id: (row.language, row.time_zone) for row in session.execute(query)}
    wanted = {comparable(address) for address in addresses}
    languages: dict[str, str] = {}
    zones: dict[str, str] = {}
    if wanted:
        rows = session.execute(
            select(comparable_column(PlayerAddress.address), Player.language, Player.time_zone)
            .join(Player)
            .where(
                comparable_column(PlayerAddress.address).in_(wanted),
                Player.signed_off_at.is_(None),
                Player.language.is_not(None) | Player.time_zone.is_not(None),
            )
            .order_by(Player.id)
        )
        for address, language, zone in rows:
            if language is not None:
                languages.setdefault(address, language)
            if zone is not None:
                zones.setdefault(address, zone)
    return Readers(by_id, languages, zones)


@dataclass(frozen=True)
class Readers:
    """Who reads which language, on which wall clock (`readers`): by player, and by address for a
    mail to an address."""

    by_id: dict[int, tuple[str | None, str | None]]
    """(language, zone) by player id."""
    languages: dict[str, str]
    zones: dict[str, str]

    def language_of(self, player_id: int | None, address: str) -> str | None:
        """The language of a mail for `player_id` (when it is for a player) at `address`; None: the
        club's default."""
        chosen = self.by_id.get(player_id, (None, None))[0] if player_id is not None else None
        return chosen or self.languages.get(comparable(address))

    def zone_of(self, player_id: int | None, address: str) -> str | None:
        """The zone a mail for `player_id` (when it is for a player) at `address` writes its dates
        in; None: UTC."""
        chosen = self.by_id.get(player_id, (None, None))[1] if player_id is not None else None
        return chosen or self.zones.get(comparable(address))


def set_language(player: Player, language: str | None) -> None:
    player.language = language


def password_sender(address: str | None, *, registered: bool, unproven_host: str | None = None) -> str:
    """Which count wrong passwords from `address` go to, for a player who `registered` it or not:
    the address's own (compared case-insensitively), or that of `OTHER_ADDRESSES`. A stranger's
    guesses never make the player's own addresses wait.

    A mail whose From our MTA could not vouch for (`unproven_host`: the host that sent it) may
    forge a registered address: its guesses count for that host (`FROM_HOST`), not the owner."""
    if registered and address and unproven_host is not None:
        return FROM_HOST + unproven_host
    return comparable(address) if registered and address else OTHER_ADDRESSES


def checkable_password_hash(session: Session, userid: str, address: str | None, *, now: datetime) -> str | None:
    """The password hash of an active player, unless password commands for the player from
    `address` wait out a back-off (then None: the password is not checked)."""
    row = session.execute(_CHECKABLE, {"userid": userid.lower(), "address": comparable(address or "")}).first()
    if row is None or (row.until is not None and row.until > now):
        return None
    password_hash: str = row.password_hash
    return password_hash


_REGISTERED = exists().where(
    PlayerAddress.player_id == Player.id, comparable_column(PlayerAddress.address) == bindparam("address")
)
_CHECKABLE = (
    select(Player.password_hash, PasswordWait.until)
    .outerjoin(
        PasswordWait,
        and_(
            PasswordWait.player_id == Player.id,
            PasswordWait.sender == case((_REGISTERED, bindparam("address")), else_=OTHER_ADDRESSES),
        ),
    )
    .where(Player.userid == bindparam("userid"), Player.signed_off_at.is_(None))
)
"""Built once: the reading step asks it for every password a mail carries."""


def password_wait(session: Session, player: Player, sender: str) -> datetime | None:
    """Until when password commands for `player` from `sender` (`password_sender`) wait, if they do."""
    wait = session.get(PasswordWait, (player.id, sender))
    return wait.until if wait is not None else None


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
    """Every person still signed up, by userid: the bots are not among them."""
    query = select(Player).where(Player.signed_off_at.is_(None), Player.bot_level.is_(None))
    return list(session.scalars(query.order_by(Player.userid)))


def signups_since(
    session: Session, since: datetime, *, sender: str | None = None, host: str | None = None
) -> list[datetime]:
    """When players signed up since `since` by mail from `sender` (however its case is written), or
    sent by `host`, oldest first."""
    if sender is not None:
        by = comparable_column(Player.signup_sender) == comparable(sender)
    else:
        by = Player.signup_host == host
    query = select(Player.created_at).where(by, Player.created_at >= since).order_by(Player.created_at)
    return list(session.scalars(query))


def set_password(player: Player, password_hash: str) -> None:
    player.password_hash = password_hash


def clear_password_waits(session: Session, player: Player) -> None:
    """Forget the wrong passwords counted so far, from every sender (a reset proved the player
    is who they say)."""
    session.execute(delete(PasswordWait).where(PasswordWait.player_id == player.id))


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
    known = {comparable(a) for a in old}
    fresh = [a for a in distinct(addresses) if comparable(a) not in known]
    player.addresses.extend(PlayerAddress(address=a, position=len(old) + i) for i, a in enumerate(fresh))
    return old


def sign_off(player: Player, now: datetime) -> None:
    player.signed_off_at = now


def note_password_check(
    session: Session, player_id: int, sender: str, *, right: bool, now: datetime, allowed: int
) -> None:
    """Count a wrong password for `player_id` from `sender` (`password_sender`), or clear that
    sender's count after a right one.

    After `allowed` wrong ones in a row, password commands for the player from
    that sender wait a minute, then twice as long after each further wrong one,
    a day at most.
    """
    wait = session.get(PasswordWait, (player_id, sender))
    if right:
        if wait is not None:
            session.delete(wait)
        return
    if wait is None:
        wait = PasswordWait(player_id=player_id, sender=sender, failures=0)
        session.add(wait)
    wait.failures += 1
    beyond = wait.failures - allowed
    if beyond >= 0:
        # 2**11 minutes is past a day already; a bigger power would only overflow.
        wait.until = now + min(timedelta(minutes=1) * 2 ** min(beyond, 11), LONGEST_PASSWORD_WAIT)
