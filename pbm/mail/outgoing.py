"""Putting what one received mail caused into the outbox: composed, within the volume limits.

A mail from anyone can cause mail to anyone (a signup names any address), so
what it may cause is bounded: replies per received mail (the rest replaced by
one word to the sender), mails to one address per hour, and error answers to
one address per hour, which also breaks loops with auto-responders that do
not say they are one. A mail held back is still written to the outbox, marked
suppressed with the limit it met: nothing is lost, and the operator can see it.

Every mail passes here, so here an address that has not confirmed it wants
the server's mail gets nothing but the request to confirm it (`Reachable`):
a mail for a player goes only to an address that player confirmed, and
waits in the outbox until they do; any other mail goes only to a confirmed
address or, as an answer, to whoever sent the mail it answers. A watcher's
copy of a board's news is not one of the answers a mail may cause: sixty
watchers never turn a player's move into an error.
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
from pbm.store import confirmations, outbox

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
    confirm_addresses: bool = True
    """Whether mail waits for its address to be confirmed (`pbm.config.Club.confirm_addresses`)."""

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
        bulk = [m for m in mails if _unasked(m)]
        mails = [m for m in mails if not _unasked(m)]
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
        reachable = self._reachable(session, [*bulk, *mails], answering=mail.from_address)
        queued = []
        for outgoing in [*bulk, *mails]:
            if mail.notes and headers.mail_address(outgoing.to) == mail.from_address:
                told = [sentence(capital(note)) for note in mail.notes]
                outgoing = replace(outgoing, context={**outgoing.context, "mail_notes": told})
            queued += self._composed(outgoing, counted, reachable, notes, now=now, answering=answering)
        outbox.enqueue(session, queued, now=now, inbound_id=inbound_id)
        return notes

    def queue_unprompted(self, session: Session, mails: list[OutgoingMail], *, now: datetime) -> list[str]:
        """Compose mails no received mail caused (an open challenge expired) into the outbox,
        within the per-address limits; returns notes on what was held back."""
        mails = [m for m in mails if m.to]
        counted = _Counted.load(session, mails, now - WINDOW)
        reachable = self._reachable(session, mails, answering=None)
        notes: list[str] = []
        queued = [
            composed for outgoing in mails for composed in self._composed(outgoing, counted, reachable, notes, now=now)
        ]
        outbox.enqueue(session, queued, now=now)
        return notes

    def _reachable(self, session: Session, mails: list[OutgoingMail], *, answering: str | None) -> Reachable:
        if not self.confirm_addresses:
            return Reachable(None, answering)
        recipients = {r.lower() for r in (headers.mail_address(m.to) for m in mails) if r is not None}
        return Reachable(confirmations.confirmed_by(session, recipients), answering)

    def _composed(
        self,
        outgoing: OutgoingMail,
        counted: _Counted,
        reachable: Reachable,
        notes: list[str],
        *,
        now: datetime,
        answering: Answering | None = None,
    ) -> list[outbox.Queued]:
        """`outgoing` composed for the outbox (none if it has no address), counted in `counted`
        unless held back or waiting for its address to be confirmed; what was held back is said in `notes`."""
        recipient = headers.mail_address(outgoing.to)
        if recipient is None:
            notes.append("a reply to an address that cannot be written to was not sent")
            return []
        unconfirmed = not reachable(outgoing, recipient)
        held, last = (None, False) if unconfirmed else self._held_back(counted, recipient, outgoing.template)
        if last:
            outgoing = replace(outgoing, context={**outgoing.context, "last_answer": True})
        composed = self.composer.compose(outgoing, now=now, answering=answering)
        if unconfirmed:
            notes.append(f"a {outgoing.template} mail waits for its address to be confirmed")
        elif held:
            notes.append(f"a {outgoing.template} mail was not sent: {held}")
        else:
            counted.add(recipient, outgoing.template)
        return [
            outbox.Queued(
                recipient,
                composed.message_id,
                composed.raw,
                outgoing.template,
                outgoing.board_id,
                held,
                unconfirmed,
                outgoing.player_id,
            )
        ]

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


def _unasked(mail: OutgoingMail) -> bool:
    """Whether `mail` is not one of the answers its cause asked for: a broadcast, a watcher's copy."""
    return mail.template in BULK_KINDS or mail.to_watcher


@dataclass(frozen=True)
class Reachable:
    """Who the server may write to now: the addresses confirmed, each for the players who confirmed
    it (None: the club does without confirmations), and the sender of the mail answered."""

    confirmed: dict[str, set[int]] | None
    answering: str | None

    def __call__(self, mail: OutgoingMail, recipient: str) -> bool:
        """Whether `mail` may go to `recipient` now; if not, it waits for the address to be confirmed.

        A request to confirm the address always may (its own limits were met when it was made). A
        mail for a player may go to an address that player confirmed; any other mail to an address
        anyone confirmed, or, as an answer, to the sender of the mail answered.
        """
        if self.confirmed is None or confirmations.is_confirmation_token(mail.reply_token):
            return True
        confirmed_for = self.confirmed.get(recipient.lower(), set())
        if mail.player_id is not None:
            return mail.player_id in confirmed_for
        return bool(confirmed_for) or recipient.lower() == (self.answering or "").lower()


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
