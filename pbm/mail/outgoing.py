"""Putting what one received mail caused into the outbox: composed, within the volume limits.

A mail from anyone can cause mail to anyone (a signup names any address), so
what it may cause is bounded: replies per received mail (the rest replaced by
one word to the sender), mails to one address per hour, and error answers to
one address per hour, which also breaks loops with auto-responders that do
not say they are one. A mail held back is still written to the outbox, marked
suppressed with the limit it met: nothing is lost, and the operator can see it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from pbm.commands.effects import OutgoingMail
from pbm.commands.plan import Plan
from pbm.config import Limits
from pbm.mail import headers
from pbm.mail.answers import Answers, capital, sentence
from pbm.mail.compose import Answering, Composer
from pbm.mail.parse import ParsedMail
from pbm.store import outbox

ERROR_KINDS = ("error", "failure")
"""Templates that answer a mistake: counted apart, to break loops with auto-responders."""
BULK_KINDS = ("broadcast",)
"""Templates an administrator sends to every player: not bounded by the mails one mail may cause."""
WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class Outgoing:
    composer: Composer
    limits: Limits
    answers: Answers

    def queue(
        self,
        session: Session,
        inbound_id: int,
        mail: ParsedMail,
        mails: list[OutgoingMail],
        *,
        now: datetime,
        answer_sender: bool = True,
    ) -> list[str]:
        """Compose `mails`, caused by the received `mail`, into the outbox; returns notes on what was held back.

        `answer_sender`: past the limit of one mail, tell its sender so.
        """
        notes = []
        mails = [m for m in mails if m.to]
        bulk = [m for m in mails if m.template in BULK_KINDS]
        mails = [m for m in mails if m.template not in BULK_KINDS]
        limit = self.limits.replies_per_mail
        if len(mails) > limit:
            notes.append(f"{len(mails) - limit + 1} replies not sent: over {limit} for one mail")
            summary = (
                f"Your mail caused {len(mails)} answers, more than the {limit} one mail may; "
                f"only the first {limit - 1} were sent"
            )
            mails = mails[: limit - 1]
            if answer_sender:
                mails.append(self.answers.error(mail.from_address, mail.body, Plan(), summary))
        answering = Answering(mail.message_id, mail.references)
        for outgoing in [*bulk, *mails]:
            if mail.notes and headers.mail_address(outgoing.to) == mail.from_address:
                told = [sentence(capital(note)) for note in mail.notes]
                outgoing = replace(outgoing, context={**outgoing.context, "mail_notes": told})
            notes += self._enqueue(session, outgoing, now=now, inbound_id=inbound_id, answering=answering)
        return notes

    def queue_unprompted(self, session: Session, mails: list[OutgoingMail], *, now: datetime) -> list[str]:
        """Compose mails no received mail caused (an open challenge expired) into the outbox,
        within the per-address limits; returns notes on what was held back."""
        return [note for outgoing in mails if outgoing.to for note in self._enqueue(session, outgoing, now=now)]

    def _enqueue(
        self,
        session: Session,
        outgoing: OutgoingMail,
        *,
        now: datetime,
        inbound_id: int | None = None,
        answering: Answering | None = None,
    ) -> list[str]:
        recipient = headers.mail_address(outgoing.to)
        if recipient is None:
            return ["a reply to an address that cannot be written to was not sent"]
        held, last = self._held_back(session, recipient, outgoing.template, now)
        if last:
            outgoing = replace(outgoing, context={**outgoing.context, "last_answer": True})
        composed = self.composer.compose(outgoing, now=now, answering=answering)
        outbox.enqueue(
            session,
            recipient=recipient,
            message_id=composed.message_id,
            raw=composed.raw,
            kind=outgoing.template,
            now=now,
            inbound_id=inbound_id,
            game_id=outgoing.board_id,
            suppressed=held,
        )
        return [f"a {outgoing.template} mail was not sent: {held}"] if held else []

    def _held_back(self, session: Session, recipient: str, kind: str, now: datetime) -> tuple[str | None, bool]:
        """Why a mail to `recipient` must not be sent (or None), and whether it is the last error answer for a while."""
        since = now - WINDOW
        last = False
        if kind in ERROR_KINDS:
            errors = outbox.mails_to(session, recipient, since, kinds=ERROR_KINDS)
            allowed = self.limits.error_replies_per_sender_per_hour
            if errors >= allowed:
                return f"{allowed} error answers were sent to this address within the hour (a mail loop?)", False
            last = errors == allowed - 1
        allowed = self.limits.mails_per_address_per_hour
        if outbox.mails_to(session, recipient, since) >= allowed:
            return f"{allowed} mails were sent to this address within the hour", False
        return None, last
