"""Putting what one received mail caused into the outbox: composed, within the volume limits.

A mail from anyone can cause mail to anyone (a signup names any address), so
what it may cause is bounded: replies per received mail (the rest replaced by
one word to the sender), mails to one address per hour, and error answers to
one address per hour, which also breaks loops with auto-responders that do
not say they are one. Addresses are counted as mail systems compare them
(`pbm.addresses`): one mailbox written in five cases is one address.

A mail past the hourly limit of its address is held back, never dropped: it
waits in the outbox until the hour has room (`pbm.mail.held` lets it go),
and any later mail to that address waits behind it, so nothing overtakes it.
Only an error answer past its own limit is dropped, which is what breaks a
loop; it is still written to the outbox, marked suppressed, for the operator
to see.

A board mail that makes it the turn of a player who takes digests, and a reminder that it still
is, wait for their digest (`pbm.commands.digests`), unless they would forfeit that game within a
day.

Mail to an address whose mail bounced for good (`pbm.store.bounces`) is held back too, until
mail from it says it works again.

A mail for a player that comes in their quiet hours (`pbm.store.preferences`) waits the same
way until the hours end, unless it answers mail from that address: what a player just asked
for reaches them at any hour.

Every mail passes here, so here an address that has not confirmed it wants
the server's mail gets nothing but the request to confirm it (`Reachable`):
a mail for a player goes only to an address that player confirmed, and is
held back until they do; any other mail goes only to a confirmed address
or, as an answer, to whoever sent the mail it answers. A watcher's copy of a
board's news is not one of the answers a mail may cause: sixty watchers
never turn a player's move into an error.

A mail that reports to the sender on others (`OutgoingMail.reports_on`: "your
message went to ...") is composed after the limits were applied to those
others, so it says what happened to them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from pbm.addresses import comparable, mail_address, same
from pbm.commands.effects import OutgoingMail
from pbm.commands.plan import Plan
from pbm.config import Limits
from pbm.facts import Fact
from pbm.i18n.text import capital, sentence
from pbm.mail.answers import Answers
from pbm.mail.compose import Answering, Composer
from pbm.mail.parse import ParsedMail
from pbm.store import confirmations, outbox, players, preferences, recipients
from pbm.store.models import HoldReason
from pbm.words import Words

ERROR_KINDS = ("error", "failure")
"""Templates that answer a mistake: counted apart, to break loops with auto-responders."""
BULK_KINDS = ("broadcast",)
"""Templates an administrator sends to every player: not bounded by the mails one mail may cause."""
WINDOW = timedelta(hours=1)
URGENT = timedelta(days=1)
"""A board mail whose player would forfeit within this long goes at once, digest or not: the
last warning, a day before the forfeit, among them."""
DIGESTED = outbox.DIGESTED
"""Templates of the mails a digest stands for, when they tell a player it is their move: the
digest lists every game waiting for their move, with its board and its time left."""


@dataclass(frozen=True)
class Waiting:
    """A player a mail waits for: held back, why, and until when (None: until released)."""

    userid: str
    reason: HoldReason
    until: datetime | None


@dataclass(frozen=True)
class Reach:
    """Whom the mails of one kind that a received mail caused reached: the players they went to
    now, those they wait for, and those they could not be sent to (by userid)."""

    went: list[str] = field(default_factory=list)
    waiting: list[Waiting] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)

    @property
    def everyone(self) -> int:
        return len(self.went) + len(self.waiting) + len(self.lost)

    @property
    def latest(self) -> datetime | None:
        """Until when the last of the waiting mails waits (None: some wait until released)."""
        times = [w.until for w in self.waiting if w.until is not None]
        return max(times) if times and len(times) == len(self.waiting) else None


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
        known = _look_up(session, mails, now, also=mail.from_address)
        mails = in_their_words(session, mails, known.readers)
        reported = _reported(mails)
        bulk = [m for m in mails if _unasked(m)]
        mails = [m for m in mails if not _unasked(m)]
        limit = self.limits.replies_per_mail
        if len(mails) > limit:
            notes.append(f"{len(mails) - limit + 1} replies not sent: over {limit} for one mail")
            summary = Fact("too-many-answers", count=len(mails), limit=limit, sent=limit - 1)
            mails = mails[: limit - 1]
            if answer_sender:
                mails.append(
                    self._answers_to(session, mail.from_address).error(mail.from_address, mail.body, Plan(), summary)
                )
        ordered = [*bulk, *mails]
        counted = _Counted.of(known)
        reachable = self._reachable(known, answering=mail.from_address)
        composed: dict[int, outbox.Queued | None] = {}  # by the identity of the mail composed
        for outgoing in ordered:
            if outgoing.reports_on is None:
                composed[id(outgoing)] = self._for_sender(outgoing, mail, counted, reachable, notes, now)
        for outgoing in ordered:
            if outgoing.reports_on is not None:
                reach = _reach([(m, composed[id(m)]) for m in reported[id(outgoing)]])
                report = replace(outgoing, context={**outgoing.context, "reach": reach, "limits": self.limits})
                composed[id(outgoing)] = self._for_sender(report, mail, counted, reachable, notes, now)
        queued = [composed[id(outgoing)] for outgoing in ordered]
        outbox.enqueue(session, [q for q in queued if q is not None], now=now, inbound_id=inbound_id)
        return notes

    def _answers_to(self, session: Session, sender: str | None) -> Answers:
        """How answers to `sender` quote their mail: not at all to an address nobody confirmed."""
        if not self.confirm_addresses or not sender or confirmations.is_confirmed(session, sender):
            return self.answers
        return replace(self.answers, stranger=True)

    def queue_unprompted(self, session: Session, mails: list[OutgoingMail], *, now: datetime) -> list[str]:
        """Compose mails no received mail caused (an open challenge expired) into the outbox,
        within the per-address limits; returns notes on what was held back."""
        mails = [m for m in mails if m.to]
        known = _look_up(session, mails, now)
        mails = in_their_words(session, mails, known.readers)
        counted = _Counted.of(known)
        reachable = self._reachable(known, answering=None)
        notes: list[str] = []
        queued = [self._composed(outgoing, counted, reachable, notes, now=now) for outgoing in mails]
        outbox.enqueue(session, [q for q in queued if q is not None], now=now)
        return notes

    def _reachable(self, known: recipients.Recipients, *, answering: str | None) -> Reachable:
        return Reachable(known.confirmed if self.confirm_addresses else None, answering)

    def _for_sender(
        self,
        outgoing: OutgoingMail,
        mail: ParsedMail,
        counted: _Counted,
        reachable: Reachable,
        notes: list[str],
        now: datetime,
    ) -> outbox.Queued | None:
        """`outgoing` composed as `_composed` does; a mail to the received mail's sender also says
        what reading their mail noticed, and joins its thread. Nothing from the sender's headers
        goes into a mail to anyone else: their Message-ID names their host."""
        if mail.from_address is None or not same(outgoing.to, mail.from_address):
            return self._composed(outgoing, counted, reachable, notes, now=now)
        if mail.noted:
            words = Words(outgoing.language or self.composer.templates.default_language, zone=outgoing.zone)
            told = [sentence(capital(words.say(note))) for note in mail.noted]
            outgoing = replace(outgoing, context={**outgoing.context, "mail_notes": told})
        answering = Answering(mail.message_id, mail.references)
        return self._composed(outgoing, counted, reachable, notes, now=now, answering=answering, asked=True)

    def _composed(
        self,
        outgoing: OutgoingMail,
        counted: _Counted,
        reachable: Reachable,
        notes: list[str],
        *,
        now: datetime,
        answering: Answering | None = None,
        asked: bool = False,
    ) -> outbox.Queued | None:
        """`outgoing` composed for the outbox (None if it has no address), counted in `counted`
        unless the limits keep it back, it waits for its address to be confirmed (`reachable`) or
        for its player's quiet hours to end (unless it was `asked` for: it answers mail from its
        address); what was kept back is said in `notes`."""
        recipient = mail_address(outgoing.to)
        if recipient is None:
            notes.append("a reply to an address that cannot be written to was not sent")
            return None
        if reachable(outgoing, recipient):
            own_reply_address = outgoing.reply_token is not None
            suppressed, hold, last = self._limited(
                counted, recipient, outgoing.template, own_reply_address=own_reply_address
            )
            if not suppressed and not asked and not own_reply_address:
                hold = counted.digest_hold(outgoing, now) or counted.quiet_hold(outgoing.player_id, now) or hold
            if not suppressed and comparable(recipient) in counted.bounced:
                hold = outbox.Hold(HoldReason.BOUNCED, None)  # kept, not sent: the address does not take it
        else:
            suppressed, hold, last = None, outbox.Hold(HoldReason.UNCONFIRMED, None), False
        if last:
            outgoing = replace(outgoing, context={**outgoing.context, "last_answer": True})
        composed = self.composer.compose(outgoing, now=now, answering=answering)
        if suppressed:
            notes.append(f"a {outgoing.template} mail was not sent: {suppressed}")
        elif hold:
            notes.append(f"a {outgoing.template} mail was held back: {_hold_note(hold, self.limits)}")
            if hold.reason is HoldReason.HOURLY_LIMIT:
                counted.held[comparable(recipient)] = hold
        else:
            counted.add(recipient, outgoing.template, now)
        return outbox.Queued(
            recipient,
            composed.message_id,
            composed.raw,
            outgoing.template,
            outgoing.board_id,
            suppressed,
            raw_without_secret=composed.raw_without_secret,
            hold=hold,
            player_id=outgoing.player_id,
        )

    def _limited(
        self, counted: _Counted, recipient: str, kind: str, *, own_reply_address: bool = False
    ) -> tuple[str | None, outbox.Hold | None, bool]:
        """What the limits make of a mail to `recipient`: why it is dropped, or how it is held
        back (or neither: it goes); and whether it is the last error answer for a while.

        A mail with a reply address of its own (a password reset's) is never held back: gathered
        with others it would lose that address, and its own limits bound how many there are."""
        key = comparable(recipient)
        last = False
        if kind in ERROR_KINDS:
            errors = counted.errors[key]
            allowed = self.limits.error_replies_per_sender_per_hour
            if errors >= allowed:
                return f"{allowed} error answers were sent to this address within the hour (a mail loop?)", None, False
            last = errors == allowed - 1
        if own_reply_address:
            return None, None, last
        waiting = counted.held.get(key)
        if waiting is not None:
            return None, waiting, False  # behind the mail already waiting: nothing overtakes it
        if counted.mails[key] >= self.limits.mails_per_address_per_hour:
            return None, outbox.Hold(HoldReason.HOURLY_LIMIT, counted.oldest[key] + WINDOW), False
        return None, None, last


def in_their_words(
    session: Session, mails: list[OutgoingMail], chosen: players.Readers | None = None
) -> list[OutgoingMail]:
    """`mails`, each in the language its reader chose and its dates in the zone they live in: the
    player it is for, else a player at its address (a mail answering a player's own mail); the
    club's default language and UTC for anyone else. A mail that names its language keeps it.
    `chosen`: the readers' choices when they were read already (`_look_up`)."""
    if chosen is None:
        chosen = players.readers(
            session, [m.player_id for m in mails if m.player_id is not None], [m.to for m in mails]
        )
    return [
        replace(
            m,
            language=m.language or chosen.language_of(m.player_id, m.to),
            zone=m.zone or chosen.zone_of(m.player_id, m.to),
        )
        for m in mails
    ]


def _look_up(
    session: Session, mails: list[OutgoingMail], now: datetime, *, also: str | None = None
) -> recipients.Recipients:
    """What queuing `mails` must know of their players and addresses (and of `also`'s, the
    address an answer to the mail may yet go to), in two statements (`pbm.store.recipients`)."""
    addresses = {r for r in (mail_address(m.to) for m in mails) if r is not None}
    if also is not None:
        addresses.add(also)
    player_ids = {m.player_id for m in mails if m.player_id is not None}
    return recipients.look_up(session, player_ids, addresses, since=now - WINDOW, kinds=ERROR_KINDS)


def _hold_note(hold: outbox.Hold, limits: Limits) -> str:
    """Why a mail is held back and until when, for the received mail's record (no address)."""
    if hold.reason is HoldReason.HOURLY_LIMIT:
        why = f"{limits.mails_per_address_per_hour} mails were sent to this address within the hour"
    elif hold.reason is HoldReason.QUIET_HOURS:
        why = "it came in its player's quiet hours"
    elif hold.reason is HoldReason.DIGEST:
        why = "its player takes digests"
    elif hold.reason is HoldReason.BOUNCED:
        why = "mail to its address bounced"
    else:
        why = "its address is not confirmed yet"
    until = f"{hold.release_at:%Y-%m-%d %H:%M} UTC" if hold.release_at is not None else "it is released"
    return f"{why}; it waits until {until}"


def _reported(mails: list[OutgoingMail]) -> dict[int, list[OutgoingMail]]:
    """For each report among `mails` (by identity), the mails it reports on: those of its kind
    since the previous report of that kind, as a command returns its mails and then its report."""
    since: dict[str, list[OutgoingMail]] = {}
    reported = {}
    for mail in mails:
        if mail.reports_on is not None:
            reported[id(mail)] = since.pop(mail.reports_on, [])
        else:
            since.setdefault(mail.template, []).append(mail)
    return reported


def _reach(results: list[tuple[OutgoingMail, outbox.Queued | None]]) -> Reach:
    reach = Reach()
    for mail, queued in results:
        userid = mail.addressee or ""
        if queued is None or queued.suppressed:
            reach.lost.append(userid)
        elif queued.hold is not None:
            reach.waiting.append(Waiting(userid, queued.hold.reason, queued.hold.release_at))
        else:
            reach.went.append(userid)
    return reach


@dataclass
class _Counted:
    """By the comparable form of each recipient: the mails queued to it within the window, of them
    the error answers, when the oldest was queued, and how mail to it is held back if it is; and
    the quiet hours of the players the mails are for: read for all of one mail's recipients at
    once, and counted on as its replies are queued."""

    mails: Counter[str]
    errors: Counter[str]
    oldest: dict[str, datetime]
    held: dict[str, outbox.Hold]
    quiet: dict[int, preferences.Quiet] = field(default_factory=dict)
    bounced: set[str] = field(default_factory=set)
    """The comparable forms of the recipients whose mail stopped after bounces."""
    digests: set[int] = field(default_factory=set)
    """The players among the mails' who take digests."""

    @classmethod
    def of(cls, known: recipients.Recipients) -> _Counted:
        recent = known.recent
        return cls(
            Counter({key: r.mails for key, r in recent.items()}),
            Counter({key: r.of_kinds for key, r in recent.items()}),
            {key: r.oldest for key, r in recent.items()},
            dict(known.held),
            known.choices.quiet,
            set(known.stopped),
            known.choices.digests,
        )

    def digest_hold(self, mail: OutgoingMail, now: datetime) -> outbox.Hold | None:
        """How a mail about a game waiting for its player's move (a board mail that makes it their
        turn, a reminder) is held back for their digest, which lists every such game; not when they
        would forfeit that game within a day (it goes at once), nor for a watcher's copy."""
        if mail.template not in DIGESTED or mail.to_watcher or mail.player_id not in self.digests:
            return None
        view = mail.context.get("view")
        if view is None or not getattr(view, "viewer_to_move", False):
            return None
        forfeit_at = view.time.forfeit_at if view.time is not None else None
        if forfeit_at is not None and forfeit_at - now <= URGENT:
            return None
        return outbox.Hold(HoldReason.DIGEST, None)

    def quiet_hold(self, player_id: int | None, now: datetime) -> outbox.Hold | None:
        """How a mail for `player_id` is held back when `now` is in their quiet hours: until they end."""
        quiet = self.quiet.get(player_id) if player_id is not None else None
        ends = quiet.ends_after(now) if quiet is not None else None
        return outbox.Hold(HoldReason.QUIET_HOURS, ends) if ends is not None else None

    def add(self, recipient: str, kind: str, now: datetime) -> None:
        key = comparable(recipient)
        self.mails[key] += 1
        self.oldest.setdefault(key, now)
        if kind in ERROR_KINDS:
            self.errors[key] += 1


def _unasked(mail: OutgoingMail) -> bool:
    """Whether `mail` is not one of the answers its cause asked for: a broadcast, a watcher's copy."""
    return mail.template in BULK_KINDS or mail.to_watcher


@dataclass(frozen=True)
class Reachable:
    """Who the server may write to now: the addresses confirmed (by their comparable form), each for
    the players who confirmed it (None: the club does without confirmations), and the sender of the
    mail answered."""

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
        confirmed_for = self.confirmed.get(comparable(recipient), set())
        if mail.player_id is not None:
            return mail.player_id in confirmed_for
        return bool(confirmed_for) or (self.answering is not None and same(recipient, self.answering))
