"""Answers to addresses nobody confirmed: counted per sending host and for the whole server.

Anyone can write any From. An answer to a From nobody confirmed goes to whoever owns that
address, from the club's domain: a forger's 150 distinct Froms would be 150 mails to strangers.
So those answers are counted here, by the host that handed their mail to us, and stop at the
limits (`pbm.mail.pipeline.apply`), as confirmation requests do. Rows older than a day go as new
ones come. Everything runs inside the caller's session; nothing commits.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from pbm.store.models import UnconfirmedAnswer

KEPT = timedelta(days=1)
"""How long an answer is remembered: longer than any window it is counted in."""


def record(session: Session, host: str | None, count: int, *, now: datetime) -> None:
    """Count `count` answers sent now for mail from `host` (None: unknown), forgetting old ones."""
    session.execute(delete(UnconfirmedAnswer).where(UnconfirmedAnswer.answered_at < now - KEPT))
    session.add_all(UnconfirmedAnswer(host=host or "", answered_at=now) for _ in range(count))


def since(session: Session, since: datetime, *, host: str | None = None, any_host: bool = False) -> int:
    """How many answers went since `since`: for mail from `host` (None: unknown), or from any host."""
    query = select(func.count()).select_from(UnconfirmedAnswer).where(UnconfirmedAnswer.answered_at >= since)
    if not any_host:
        query = query.where(UnconfirmedAnswer.host == (host or ""))
    return session.scalar(query) or 0
