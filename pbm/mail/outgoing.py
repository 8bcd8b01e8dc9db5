"""Putting what one received mail caused into the outbox: composed, within the volume limits.

A mail from anyone can cause mail to anyone (a signup names any address), so
what it may cause is bounded: replies per received mail (the rest replaced by
one word to the sender), mails to one address per hour, and error answers to
one address per hour, which also breaks loops with auto-responders that do
not say they are one. A mail held back is still written to the outbox, marked
suppressed with the limit it met: nothing is lost, and the operator can see it.
"""

from __future__ import annotations

from collections import Counter
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
        counted = _Counted.load(session, [*bulk, *mails], now - WINDOW)
        queued = []
        for outgoing in [*bulk, *mails]:
            if mail.notes and headers.mail_address(outgoing.to) == mail.from_address:
                told = [sentence(capital(note)) for note in mail.notes]
                outgoing = replace(outgoing, context={**outgoing.context, "mail_notes": told})
            queued += self._composed(outgoing, counted, notes, now=now, answering=answering)
        outbox.enqueue(session, queued, now=now, inbound_id=inbound_id)
        return notes

    def queue_unprompted(self, session: Session, mails: list[OutgoingMail], *, now: datetime) -> list[str]:
        """Compose mails no received mail caused (an open challenge expired) into the outbox,
        within the per-address limits; returns notes on what was held back."""
        mails = [m for m in mails if m.to]
        counted = _Counted.load(session, mails, now - WINDOW)
        notes: list[str] = []
        queued = [composed for outgoing in mails for composed in self._composed(outgoing, counted, notes, now=now)]
        outbox.enqueue(session, queued, now=now)
        return notes

    def _composed(
        self,
        outgoing: OutgoingMail,
        counted: _Counted,
        notes: list[str],
        *,
        now: datetime,
        answering: Answering | None = None,
    ) -> list[outbox.Queued]:
        """`outgoing` composed for the outbox (none if it has no address), counted in `counted`
        unless held back; what was held back is said in `notes`."""
        recipient = headers.mail_address(outgoing.to)
        if recipient is None:
            notes.append("a reply to an address that cannot be written to was not sent")
            return []
        held, last = self._held_back(counted, recipient, outgoing.template)
        if last:
            outgoing = replace(outgoing, context={**outgoing.context, "last_answer": True})
        composed = self.composer.compose(outgoing, now=now, answering=answering)
        if held:
            notes.append(f"a {outgoing.template} mail was not sent: {held}")
        else:
            counted.add(recipient, outgoing.template)
        queued = outbox.Queued(
            recipient,
            composed.message_id,
            composed.raw,
            outgoing.template,
            outgoing.board_id,
            held,
            raw_without_secret=composed.raw_without_secret,
        )
        return [queued]

    def _held_back(self, counted: _Counted, recipient: str, kind: str) -> tuple[str | None, bool]:
        """Why a mail to `recipient` must not be sent (or None), and whether it is the last error answer for a while."""
        last = False
        if kind in ERROR_KINDS:
            errors = counted.errors[recipient]
            allowed = self.limits.error_replies_per_sender_per_hour
            if errors >= allowed:
                return f"{allowed} error answers were sent to this address within the hour (a mail loop?)", False
            last = errors == allowed - 1
        allowed = self.limits.mails_per_address_per_hour
        if counted.mails[recipient] >= allowed:
            return f"{allowed} mails were sent to this address within the hour", False
        return None, last


@dataclass
class _Counted:
    """The mails queued to each recipient within the window, and of them the error answers:
    read for all of one mail's recipients at once, and counted on as its replies are queued."""

    mails: Counter[str]
    errors: Counter[str]

    @classmethod
    def load(cls, session: Session, mails: list[OutgoingMail], since: datetime) -> _Counted:
        recipients = {r for r in (headers.mail_address(m.to) for m in mails) if r is not None}
        counts = outbox.recent_counts(session, recipients, since, kinds=ERROR_KINDS)
        return cls(
            Counter({r: every for r, (every, _) in counts.items()}),
            Counter({r: errors for r, (_, errors) in counts.items()}),
        )

    def add(self, recipient: str, kind: str) -> None:
        self.mails[recipient] += 1
        if kind in ERROR_KINDS:
            self.errors[recipient] += 1
