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

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.commands.context import Context
from pbm.commands.effects import BoardRef, OutgoingMail, PasswordCheck, Refused, Sender
from pbm.commands.plan import Plan, ReplyFacts
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.facts import Fact
from pbm.mail.answers import Answers
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.read import ReadMail, plan_of
from pbm.mail.pipeline.reply_address import ReplyAddresses
from pbm.passwords import Passwords
from pbm.store import confirmations, players
from pbm.store.models import InboundStatus


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


def apply_mail(session: Session, read: ReadMail, applying: Applying, *, now: datetime) -> Decision:
    """Run the commands of `read` in `session` at `now`; returns what was decided. An automatic
    mail is ignored, an unreadable one answered with why; any other is carried out command by
    command."""
    mail = read.mail
    if mail.auto_reason:
        return Decision(InboundStatus.IGNORED, [f"not answered: {mail.auto_reason}"])
    sender = Sender(
        mail.from_address,
        players.with_address(session, mail.from_address) if mail.from_address else [],
        read.host,
    )
    if mail.unreadable:
        reason = Fact("mail-unreadable", why=mail.unread_because)
        error = applying.answers.error(sender.address, mail.body, Plan(), reason)
        return Decision(InboundStatus.FAILED, [f"unreadable: {mail.unreadable}"], [error])
    return _carry_out(session, read, sender, applying, now)


def _carry_out(session: Session, read: ReadMail, sender: Sender, applying: Applying, now: datetime) -> Decision:
    reply = read.replied if read.replied is not None else applying.reply_addresses.resolve(session, read.envelope_to)
    plan = plan_of(read.mail, reply, applying.limits, read.answered)
    quoted = _quotable(session, read.mail, plan, applying.club)
    answers, limits = applying.answers, applying.limits
    mails: list[OutgoingMail] = []
    done = refused = 0
    for step in plan.steps:
        if isinstance(step, lang.CommandError):
            about = BoardRef(reply.game_type, reply.board) if isinstance(reply, ReplyFacts) else None
            # Only to the player's own address: a reply address is handed to no one else.
            own = isinstance(reply, ReplyFacts) and reply.userid in {p.userid for p in sender.players}
            again = applying.reply_addresses.same_reply_address(read.envelope_to) if own else None
            mails.append(answers.error(sender.address, quoted, plan, step, about=about, reply_as=again))
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
