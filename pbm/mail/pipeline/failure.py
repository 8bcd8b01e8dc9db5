"""Step 7: a mail whose reading or applying failed is marked so, and its sender told.

Recording a failure needs nothing from the mail but its id, so it cannot fail the way the
mail did. The sender is told only where there is one to tell: a usable From address, on a
mail that is not automatic. A mail to a password reset's reply address holds a password, so
its failure mail quotes none of it; nor does one to an address nobody confirmed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from pbm.addresses import mail_address
from pbm.mail.answers import Answers
from pbm.mail.outgoing import Outgoing
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.reply_address import ReplyAddresses
from pbm.store import confirmations, inbox
from pbm.store.models import InboundMessage


def record_failure(
    session: Session,
    inbound_id: int,
    note: str,
    *,
    mail: ParsedMail | None,
    answers: Answers,
    outgoing: Outgoing,
    reply_addresses: ReplyAddresses,
    now: datetime,
) -> None:
    """Mark `inbound_id` failed with `note`, and queue the mail telling its sender.

    `mail`: what reading found, for a mail that failed before it was stored; else what was
    stored of its reading is read back.
    """
    parsed = inbox.what_was_read(session, inbound_id)
    inbox.record_failure(session, inbound_id, note, now)
    if mail is None and parsed is not None:
        mail = ParsedMail.from_json(parsed)
    if mail is None:
        return
    address = mail_address(mail.from_address)
    if not address or mail.auto_reason:
        return
    inbound = session.get(InboundMessage, inbound_id)
    envelope_to = tuple(inbound.envelope_to.splitlines()) if inbound is not None else ()
    private = reply_addresses.to_reset_address(envelope_to)
    # To an address nobody confirmed (it may be forged), the failure mail quotes nothing.
    stranger = outgoing.confirm_addresses and not confirmations.is_confirmed(session, address)
    failure = replace(answers, stranger=stranger).failure(address, "" if private else mail.body)
    outgoing.queue(session, inbound_id, mail, [failure], now=now, answer_sender=False)
