"""Step 6: what applying decided, into the outbox, and the mail marked done.

The replies are composed within the volume limits (`pbm.mail.outgoing`), in the transaction
that applied the mail: they are queued if and only if its changes are committed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm.mail.outgoing import Outgoing
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.apply import Decision
from pbm.store import inbox
from pbm.store.models import InboundStatus


def queue_replies(
    session: Session, outgoing: Outgoing, inbound_id: int, mail: ParsedMail, decision: Decision, *, now: datetime
) -> None:
    """Queue the mails of `decision` and finish the received mail with its status and notes
    (and what the outbox noted: mails held back or not sent). An ignored mail is answered by
    nothing."""
    notes = list(decision.notes)
    if decision.status is not InboundStatus.IGNORED:
        notes.extend(outgoing.queue(session, inbound_id, mail, decision.mails, now=now))
    elif decision.mails:  # what an automatic mail (a bounce) makes others hear: no answer to it
        notes.extend(outgoing.queue_unprompted(session, decision.mails, now=now))
    inbox.finish(session, inbound_id, decision.status, "; ".join(notes), now)
