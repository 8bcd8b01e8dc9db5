"""Step 5: applying one read mail — a plain function over a session, returning what it decided.

The commands run in order, each in a savepoint of its own, so a refused command leaves no
trace while the others stand; every command that is not carried out is answered with an
error mail that says why and quotes what was read. Nothing here commits, queues a mail or
marks the mail done: `Decision` says what to do, and the caller does it (`replies`) in the
same transaction, or rolls it all back.

>>> Decision(InboundStatus.IGNORED, ["not answered: auto-submitted (auto-replied)"]).mails
[]
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TypeGuard

from sqlalchemy.orm import Session

import pbm.games
from pbm.addresses import masked_address, same
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.commands.context import Context
from pbm.commands.effects import BoardRef, OutgoingMail, PasswordCheck, Refused, Sender
from pbm.commands.plan import Plan, ReplyFacts
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.crypto.passwords import Passwords
from pbm.facts import Fact
from pbm.mail.answers import Answers
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.passwords_ahead import authors_passwords, searched_text
from pbm.mail.pipeline.read import BotDecision, Bounce, ReadMail, plan_of
from pbm.mail.pipeline.reply_address import ReplyAddresses
from pbm.store import bounces, confirmations, players, unconfirmed_answers
from pbm.store.models import InboundStatus, Player


@dataclass(frozen=True)
class Decision:
    """What applying a mail decided: how it ends, the notes kept with it, and the mails it causes."""

    status: InboundStatus
    notes: list[str]
    mails: list[OutgoingMail] = field(default_factory=list)
    carried_out: int = 0
    refused: int = 0


@dataclass(frozen=True)
class Applying:
    """What applying a mail needs besides the session: the club's rules and the services."""

    passwords: Passwords
    limits: Limits
    answers: Answers
    reply_addresses: ReplyAddresses
    now: Callable[[], datetime]
    club: Club = DEFAULT_CLUB
    trusted_authserv_id: str | None = None
    """Whose Authentication-Results header to read (`pbm.mail.authentication`); None: nobody's."""


def apply_mail(session: Session, read: ReadMail, applying: Applying, *, now: datetime) -> Decision:
    """Run the commands of `read` in `session` at `now`; returns what was decided. An automatic
    mail is ignored, an unreadable one answered with why; any other is carried out command by
    command."""
    mail = read.mail
    if read.bounce is not None:
        return _bounced(session, read.bounce, now)
    if read.bot is not None:
        return _by_bot(session, read.inbound_id, read.bot, applying)
    if mail.auto_reason:
        return Decision(InboundStatus.IGNORED, [f"not answered: {mail.auto_reason}"])
    writer = players.writing_from(session, mail.from_address) if mail.from_address else None
    resumed = (
        bounces.resume(session, mail.from_address, now) if mail.from_address and writer and writer.bounced else None
    )
    sender = Sender(
        mail.from_address,
        writer.players if writer is not None else [],
        read.host,
        unproven=applying.trusted_authserv_id is not None and read.dmarc != "pass",
    )
    stranger = _stranger(session, read, applying.club, confirmed=writer is not None and writer.confirmed)
    if stranger is not None:
        applying = replace(applying, answers=replace(applying.answers, stranger=True))
    if mail.unreadable:
        reason = Fact("mail-unreadable", why=mail.unread_because)
        error = applying.answers.error(sender.address, mail.body, Plan(), reason)
        decision = Decision(InboundStatus.FAILED, [f"unreadable: {mail.unreadable}"], [error])
    else:
        decision = _carry_out(session, read, sender, applying, now)
    # Asked again: a reply to a confirmation request has just confirmed its sender's address.
    stranger = _stranger(session, read, applying.club) if stranger is not None else None
    if stranger is not None:
        decision = _answered_within_limits(session, read, decision, stranger, applying.limits, now)
    if resumed is not None:
        decision.notes.append(f"mail from an address that bounced: it works again, {resumed} held mail(s) go")
    return decision


class Stranger(enum.Enum):
    """Why the sender of a mail may not be who its From says: nobody confirmed the address
    (`UNCONFIRMED`), or our MTA says it failed DMARC (`FORGED`), or both (`FORGED_UNCONFIRMED`).
    Answers to a stranger quote nothing of the mail (`Answers.stranger`)."""

    UNCONFIRMED = "unconfirmed"
    FORGED = "forged"
    FORGED_UNCONFIRMED = "forged, unconfirmed"


UNCONFIRMED_WINDOW = timedelta(hours=1)
"""The window the limits on answers to addresses nobody confirmed count in."""


def _stranger(session: Session, read: ReadMail, club: Club, *, confirmed: bool | None = None) -> Stranger | None:
    """Whether, and why, the From of `read` may be a stranger's (None: a confirmed address, or a
    club that does without confirmations and a mail that did not fail DMARC). `confirmed`:
    whether anyone confirmed the address, when that was read already."""
    address = read.mail.from_address
    if confirmed is None:
        confirmed = bool(address) and confirmations.is_confirmed(session, address or "")
    unconfirmed = bool(address) and club.confirm_addresses and not confirmed
    if read.dmarc == "fail":
        return Stranger.FORGED_UNCONFIRMED if unconfirmed else Stranger.FORGED
    return Stranger.UNCONFIRMED if unconfirmed else None


def _answered_within_limits(
    session: Session, read: ReadMail, decision: Decision, stranger: Stranger, limits: Limits, now: datetime
) -> Decision:
    """`decision` with the answers to an unconfirmed sender it may send: none for a forged From
    (DMARC fail) nobody confirmed; else as many as the limits on answers to addresses nobody
    confirmed leave room for, per sending host and for the whole server, each counted (as
    confirmation requests are). A request to confirm the address has limits of its own."""
    address = read.mail.from_address
    if stranger is Stranger.FORGED or not address:
        return decision
    # A forged From (DMARC fail) nobody confirmed gets nothing, not even a request to confirm it.
    forged = stranger is Stranger.FORGED_UNCONFIRMED
    to_sender = [
        m
        for m in decision.mails
        if same(m.to, address) and (forged or not confirmations.is_confirmation_token(m.reply_token))
    ]
    if not to_sender:
        return decision
    if forged:
        room, why = 0, "its From failed DMARC, and nobody confirmed that address"
    else:
        room, why = _room_for_unconfirmed_answers(session, read.host, limits, now)
    unconfirmed_answers.record(session, read.host, min(room, len(to_sender)), now=now)
    if room >= len(to_sender):
        return decision
    dropped = {id(m) for m in to_sender[room:]}
    notes = [*decision.notes, f"{len(dropped)} answer(s) to the sender not sent: {why}"]
    return replace(decision, notes=notes, mails=[m for m in decision.mails if id(m) not in dropped])


def _room_for_unconfirmed_answers(session: Session, host: str | None, limits: Limits, now: datetime) -> tuple[int, str]:
    """How many more answers to addresses nobody confirmed may go for mail from `host` (where it is
    known, as for signups), and why no more."""
    since = now - UNCONFIRMED_WINDOW
    for_server = limits.unconfirmed_answers_per_hour - unconfirmed_answers.since(session, since, any_host=True)
    if host is None:  # mail from this machine with no trace of where it came from: the server's limit alone
        for_host = for_server + 1
    else:
        for_host = limits.unconfirmed_answers_per_host_per_hour - unconfirmed_answers.since(session, since, host=host)
    if for_host <= for_server:
        most = limits.unconfirmed_answers_per_host_per_hour
        return max(
            0, for_host
        ), f"{most} answers to addresses nobody confirmed went for mail from its host within the hour"
    most = limits.unconfirmed_answers_per_hour
    return max(0, for_server), f"the server sent {most} answers to addresses nobody confirmed within the hour"


def _bounced(session: Session, bounce: Bounce, now: datetime) -> Decision:
    """A mail come to the bounce address of one of our mails: what it reports is recorded, and
    when mail to that address stops now, the player it was for hears of it at their other
    addresses. Never answered (a bounce is automatic mail)."""
    report = bounce.report
    bounced = bounces.bounced_mail(session, bounce.outbox_id)
    if report is None or bounced is None:
        why = "no failure reported (an auto-reply?)" if bounced is not None else "its mail is no longer kept"
        return Decision(InboundStatus.IGNORED, [f"to a bounce address: {why}"])
    if not bounces.counts(bounced, permanent=report.permanent, now=now):
        why = f"reported already, or more than {bounces.REPORTED_WITHIN.days} days after it was sent"
        return Decision(InboundStatus.IGNORED, [f"bounce of outbox mail {bounce.outbox_id}: {why}"])
    recorded = bounces.record(session, bounced, permanent=report.permanent, status=report.status, now=now)
    notes = [f"bounce of outbox mail {bounce.outbox_id}: {report.kind} failure ({report.status})"]
    if not recorded.stopped_now:
        return Decision(InboundStatus.IGNORED, notes)
    notes.append("mail to its address stops until mail comes from it")
    player = session.get(Player, recorded.player_id) if recorded.player_id is not None else None
    if player is None or not player.active:
        return Decision(InboundStatus.IGNORED, notes)
    context = {
        "player": player.userid,
        "told": Fact(
            "address-bounced", userid=player.userid, address=masked_address(recorded.address), status=report.status
        ),
        "how": Fact("address-bounced-how", userid=player.userid),
    }
    others = [a.address for a in player.addresses if not same(a.address, recorded.address)]
    mails = [OutgoingMail("address_bounced", other, context, player_id=player.id) for other in others]
    return Decision(InboundStatus.IGNORED, notes, mails)


def _by_bot(session: Session, inbound_id: int, decided: BotDecision, applying: Applying) -> Decision:
    """A bot's decision, carried out as its reply to the board would be: the same command, the
    same checks (a stale one refused), the same mails to the others. Nobody is told of a
    refusal: a bot has no address, and tries again if the board still waits for it."""
    bot = players.find(session, decided.userid)
    if bot is None or not bot.is_bot:
        return Decision(InboundStatus.FAILED, [f"{decided.userid} is no bot"])
    command = decided.command()
    context = Context(
        session,
        applying.passwords,
        applying.limits,
        Sender(None, [bot]),
        now=applying.now,
        inbound_id=inbound_id,
        club=applying.club,
    )
    try:
        with session.begin_nested():
            mails = verbs.run(context, command)
    except (Refused, pbm.games.GameError) as refusal:
        return Decision(
            InboundStatus.PROCESSED, [f"{bot.userid}'s {command.line!r} refused: {refusal.fact.code}"], [], 0, 1
        )
    return Decision(InboundStatus.PROCESSED, [f"{bot.userid}'s {command.line!r} carried out"], mails, 1, 0)


def _carry_out(session: Session, read: ReadMail, sender: Sender, applying: Applying, now: datetime) -> Decision:
    reply = (
        read.replied
        if read.replied is not None
        else applying.reply_addresses.resolve(session, read.envelope_to, sender.address)
    )
    plan = plan_of(read.mail, reply, applying.limits, read.answered)
    # The author's password wherever the mail writes it, not only where a command puts it (found
    # ahead, so these checks are remembered answers here).
    plan.mask_found(authors_passwords(searched_text(read.mail), plan, sender.players, applying.passwords))
    quoted = _quotable(session, read.mail, plan, applying.club)
    answers, limits = applying.answers, applying.limits
    mails: list[OutgoingMail] = []
    done = refused = 0
    for step in plan.steps:
        if isinstance(step, lang.CommandError):
            about = BoardRef(reply.game_type, reply.board) if isinstance(reply, ReplyFacts) else None
            # Only to the player's own address: a reply address is handed to no one else.
            own = isinstance(reply, ReplyFacts) and reply.userid in {p.userid for p in sender.players}
            again = applying.reply_addresses.same_reply_address(read.envelope_to, sender.address) if own else None
            mails.append(answers.error(sender.address, quoted, plan, step, about=about, reply_as=again))
            refused += 1
            continue
        if _acts_by_reply(step, applying.club) and (refusal := _unvouched(read, step, applying)) is not None:
            mails.append(answers.error(sender.address, quoted, plan, refusal, command=step))
            refused += 1
            continue
        checks: list[PasswordCheck] = []
        context = Context(
            session,
            applying.passwords,
            applying.limits,
            sender,
            comment=plan.comment,
            now=applying.now,
            inbound_id=read.inbound_id,
            on_password_check=checks.append,
            club=applying.club,
        )
        try:
            with session.begin_nested():
                mails.extend(verbs.run(context, step))
            done += 1
        except (Refused, pbm.games.GameError) as refusal:
            mails.append(answers.error(sender.address, quoted, plan, refusal, command=step))
            refused += 1
        for check in checks:
            players.note_password_check(
                session, check.player_id, check.sender, right=check.right, now=now, allowed=limits.failed_passwords
            )
    notes = [f"{done} command(s) carried out, {refused} refused"]
    if not sender.address:
        notes.append("no usable From address, so no answer to the sender")
    return Decision(InboundStatus.PROCESSED, notes, mails, done, refused)


def _acts_by_reply(step: lang.Command, club: Club) -> TypeGuard[lang.ReplyableCommand]:
    """Whether `step` is a reply to a board mail that acts on the board (moves, resigns, proposes,
    votes): what only the player may do. A chat says who wrote it, and changes nothing; but in a
    club that asks for DMARC ``pass`` (`Club.reply_requires_dmarc_pass`), it speaks in the
    player's name, so it counts too."""
    if not isinstance(step, lang.ReplyableCommand) or not step.by_reply:
        return False
    return club.reply_requires_dmarc_pass or not isinstance(step, lang.Chat)


def _unvouched(read: ReadMail, step: lang.ReplyableCommand, applying: Applying) -> Refused | None:
    """Why a reply that acts without a password is not played, as our MTA's DMARC result has it:
    a ``fail`` (a forged From, or a mail changed on its way: the player is told at that address,
    theirs, and their own reply to this answer plays it); or anything but ``pass``, in a club
    that asks for it (a reply would not be vouched for either: the password is the way)."""
    if read.dmarc == "fail":
        again = applying.reply_addresses.same_reply_address(read.envelope_to, read.mail.from_address)
        return Refused("reply-failed-dmarc", userid=step.userid, reply_as=again)
    if applying.club.reply_requires_dmarc_pass and read.dmarc != "pass":
        return Refused("reply-not-vouched", userid=step.userid, result=read.dmarc or Fact("no-dmarc-result"))
    return None


def _quotable(session: Session, mail: ParsedMail, plan: Plan, club: Club) -> str:
    """What error answers may quote of `mail`: all of it, but for a password reset's reply;
    without its comment (what a player writes for others) to a From that nobody confirmed,
    which may be forged: a player's words are never echoed to a stranger's address."""
    if plan.private:
        return ""
    if not plan.comment or not club.confirm_addresses or not mail.from_address:
        return mail.body
    if confirmations.confirmed_by(session, [mail.from_address]):
        return mail.body
    return "\n".join(step.line for step in plan.steps)
