"""A club's mailbox at a provider, as the database knows it: who reads it, and what is stored.

The reader (`pbm.mail.mailbox`) takes each new mail of the mailbox in two steps: it stores the
mail in the inbox, then moves it to the folder of processed mail. Between the two, the mail is
in the inbox *and* still in the folder it came to; `store_fetched` records its UID with the
inbox row in one transaction, so a reader that crashed between the steps finds the UID recorded
(`stored_uids`) and only moves it. A UID means something only with the folder's UIDVALIDITY:
when that changes (`note_uidvalidity`), what was recorded names nothing, and a mail found again
is stored again, where the inbox's own duplicate rule (the Message-ID and a digest of what the
author wrote) records it as a copy, never processed twice.

One worker reads a mailbox at a time: `take_lease` gives it for a while, renewed as the reader
goes; another worker takes it when the lease ends, or at once when it knows the holder is gone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from pbm.store.database import dialect_insert
from pbm.store.inbox import Received, Stored, store_received
from pbm.store.models import MailboxMessage, MailboxReader


def take_lease(
    session: Session,
    mailbox: str,
    *,
    worker: str,
    now: datetime,
    lease: timedelta,
    gone: Callable[[str], bool] = lambda holder: False,
) -> bool:
    """Whether `worker` holds `mailbox` until `now + lease` (it held it, or it was free, or its
    holder is `gone`). The row is locked until the caller's transaction ends: two workers never
    both take it."""
    session.execute(dialect_insert(session)(MailboxReader).values(mailbox=mailbox).on_conflict_do_nothing())
    locked = select(MailboxReader).where(MailboxReader.mailbox == mailbox).with_for_update()
    row = session.scalars(locked.execution_options(populate_existing=True)).one()
    free = row.holder is None or row.held_until is None or row.held_until <= now or gone(row.holder)
    if row.holder != worker and not free:
        return False
    row.holder, row.held_until = worker, now + lease
    return True


def let_go(session: Session, mailbox: str, *, worker: str) -> None:
    """`worker` stops reading `mailbox`: another may take it at once."""
    session.execute(
        update(MailboxReader)
        .where(MailboxReader.mailbox == mailbox, MailboxReader.holder == worker)
        .values(holder=None, held_until=None)
    )


def holder_of(session: Session, mailbox: str) -> tuple[str | None, datetime | None]:
    row = session.get(MailboxReader, mailbox)
    return (None, None) if row is None else (row.holder, row.held_until)


def note_uidvalidity(session: Session, mailbox: str, uidvalidity: int) -> int | None:
    """Record the folder's UIDVALIDITY; returns the one recorded before when it changed (None: it
    did not, or none was). UIDs recorded under another UIDVALIDITY are forgotten: they name nothing."""
    row = session.get(MailboxReader, mailbox)
    if row is None:
        session.add(MailboxReader(mailbox=mailbox, uidvalidity=uidvalidity))
        return None
    before, row.uidvalidity = row.uidvalidity, uidvalidity
    if before == uidvalidity:
        return None
    session.execute(
        delete(MailboxMessage).where(MailboxMessage.mailbox == mailbox, MailboxMessage.uidvalidity != uidvalidity)
    )
    return before


def stored_uids(session: Session, mailbox: str, uidvalidity: int, uids: Collection[int]) -> set[int]:
    """Those of `uids` whose mail is stored already (and not yet moved)."""
    if not uids:
        return set()
    query = select(MailboxMessage.uid).where(
        MailboxMessage.mailbox == mailbox,
        MailboxMessage.uidvalidity == uidvalidity,
        MailboxMessage.uid.in_(sorted(uids)),
    )
    return set(session.scalars(query))


def store_fetched(session: Session, mailbox: str, uidvalidity: int, uid: int, mail: Received, now: datetime) -> Stored:
    """Store a mail fetched from the mailbox in the inbox, and record its UID, in one transaction."""
    stored = store_received(session, mail)
    row = {"mailbox": mailbox, "uidvalidity": uidvalidity, "uid": uid, "inbound_id": stored.id, "stored_at": now}
    # Another reader (its lease taken over while it still ran) may have recorded it: the first record stays.
    session.execute(dialect_insert(session)(MailboxMessage).values(**row).on_conflict_do_nothing())
    return stored


def forget_moved(session: Session, mailbox: str, uidvalidity: int, uids: Collection[int]) -> None:
    """`uids` were moved out of the folder: nothing more to remember of them."""
    if uids:
        session.execute(
            delete(MailboxMessage).where(
                MailboxMessage.mailbox == mailbox,
                MailboxMessage.uidvalidity == uidvalidity,
                MailboxMessage.uid.in_(sorted(uids)),
            )
        )


def waiting(session: Session, mailbox: str) -> int:
    """Mails stored and not yet moved (for the health report)."""
    return len(session.scalars(select(MailboxMessage.uid).where(MailboxMessage.mailbox == mailbox)).all())
