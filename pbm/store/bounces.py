"""Addresses our mail does not reach: what bounces reported, and whether mail to them stops.

A permanent failure stops mail to the address at once; temporary ones stop it when
`TEMPORARY_FAILURES_TO_STOP` come in a row. Mail from the address (or the operator) ends
that: the address works again, and what was held back for it goes.

A report counts once for the mail it names, and only within `REPORTED_WITHIN` of its sending
(`counts`): a bounce address replayed later, after the player wrote again, stops nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm.addresses import comparable
from pbm.store import outbox
from pbm.store.models import BouncedAddress, HoldReason, OutboxMessage

TEMPORARY_FAILURES_TO_STOP = 5
"""Temporary failures in a row after which mail to an address stops (a mailbox full for days)."""


REPORTED_WITHIN = timedelta(days=7)
"""How long after a mail was sent a report of its bounce counts: mail systems give up on a
mail within days (Postfix after 5), so a report later than that is a replay."""
_REPORTED = "bounced: "
"""How a mail's `OutboxMessage.last_error` says a report of it was counted (and which kind)."""


def counts(mail: OutboxMessage, *, permanent: bool, now: datetime) -> bool:
    """Whether a report of `mail`'s bounce counts: the mail was sent (or made) at most
    `REPORTED_WITHIN` ago, and no report of it counted before (but a permanent failure after a temporary one,
    as a mail system gives up on a mail it first delayed)."""
    if now - (mail.sent_at or mail.created_at) > REPORTED_WITHIN:
        return False
    said = mail.last_error or ""
    if not said.startswith(_REPORTED):
        return True
    return permanent and not said.startswith(_REPORTED + "permanent")


@dataclass(frozen=True)
class Recorded:
    """What a bounce changed: the address it is about, whether mail to it stops now (it did not
    before), and the player the bounced mail was for, if any."""

    address: str
    stopped_now: bool
    player_id: int | None


def bounced_mail(session: Session, outbox_id: int) -> OutboxMessage | None:
    return session.get(OutboxMessage, outbox_id)


def record(session: Session, mail: OutboxMessage, *, permanent: bool, status: str, now: datetime) -> Recorded:
    """A bounce of `mail` (the outbox row its address names) reported, and one that `counts`."""
    mail.last_error = f"{_REPORTED}{'permanent' if permanent else 'temporary'} {status[:16]}"
    address = comparable(mail.recipient)
    row = session.get(BouncedAddress, address)
    if row is None:
        row = BouncedAddress(address=address, temporary_failures=0, status="", reported_at=now)
        session.add(row)
    was_stopped = row.stopped_at is not None
    row.status, row.reported_at = status[:16], now
    if not permanent:
        row.temporary_failures += 1
    if not was_stopped and (permanent or row.temporary_failures >= TEMPORARY_FAILURES_TO_STOP):
        row.stopped_at = now
    return Recorded(mail.recipient, row.stopped_at is not None and not was_stopped, mail.player_id)


def stopped(session: Session, recipients: Collection[str]) -> set[str]:
    """The comparable forms of those of `recipients` mail does not go to now."""
    keys = sorted({comparable(r) for r in recipients})
    if not keys:
        return set()
    query = select(BouncedAddress.address).where(
        BouncedAddress.address.in_(keys), BouncedAddress.stopped_at.is_not(None)
    )
    return set(session.scalars(query))


def of_addresses(session: Session, addresses: Collection[str]) -> dict[str, BouncedAddress]:
    """What bounces reported of `addresses`, by comparable form (those with nothing reported left out)."""
    keys = sorted({comparable(a) for a in addresses})
    if not keys:
        return {}
    return {row.address: row for row in session.scalars(select(BouncedAddress).where(BouncedAddress.address.in_(keys)))}


def reported(session: Session) -> list[BouncedAddress]:
    """Every address bounces were reported of, stopped ones first, the latest report first."""
    query = select(BouncedAddress).order_by(BouncedAddress.stopped_at.is_(None), BouncedAddress.reported_at.desc())
    return list(session.scalars(query))


def resume(session: Session, address: str, now: datetime) -> int | None:
    """Mail goes to `address` again: what bounces reported is forgotten, and the mail held back for
    it goes (the time pass lets it go, within the limits). Returns how many mails waited; None when
    no bounce was reported of it (most mail: one indexed look)."""
    row = session.get(BouncedAddress, comparable(address))
    if row is None:
        return None
    session.delete(row)
    return outbox.release(session, address, HoldReason.BOUNCED, now)
