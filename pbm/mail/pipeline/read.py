"""Step 2: reading a mail, and what it asks for, outside any write transaction.

The `MailReader` turns the raw bytes into a `ParsedMail` in a process of its own, with a
time and memory limit, so a mail built to be slow to read holds up nobody's SMTP 250. The
mail's plan (`pbm.commands.plan`) follows, and from it the mail's keys: its sender and the
players and boards it names. What was read is stored with the mail (`stored`) and read back
when it is applied (`ReadMail`), so applying needs neither the bytes nor the lookups again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from pbm.commands import language as lang
from pbm.commands.effects import listed
from pbm.commands.plan import AnsweredFacts, ConfirmFacts, Plan, ReplyFacts, ResetFacts, conflict_keys, plan_mail
from pbm.config import Limits
from pbm.facts import Fact
from pbm.mail.fresh import fresh_text
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.passwords_ahead import check_passwords_ahead
from pbm.mail.pipeline.reply_address import ReplyAddress, ReplyAddresses
from pbm.mail.reader import MailReader, ReadCost, Reading
from pbm.mail.sending_host import sending_host
from pbm.passwords import Ahead
from pbm.store import inbox

GIVE_UP_READING_AFTER = 3
"""Attempts at reading a mail (each one ended by the worker dying) before it is given up."""

REPLIED = "replied_board"
"""The key of `Read.replied` in what is stored of a reading, beside the `ParsedMail`'s."""
ANSWERED = "answered_mail"
"""The key of `Read.answered`, likewise."""
HOST = "sending_host"
"""The key of `Read.host` in what is stored of a reading."""


@dataclass(frozen=True)
class Read:
    """What reading one mail found, until it is stored."""

    mail: ParsedMail
    keys: set[str]
    seconds: float
    peak_kb: int
    replied: ReplyFacts | None = None
    """The board and player the mail's reply address names: names that never change, so
    applying the mail need not look them up again."""
    answered: AnsweredFacts | None = None
    """Which of our mails a mail to the plain address answers, when it holds no command."""
    host: str | None = None
    """The host that sent the mail, where known (`pbm.mail.sending_host`)."""

    def stored(self) -> dict[str, Any]:
        """What is kept of this reading with the mail, for `ReadMail.from_stored`."""
        return {
            **self.mail.to_json(),
            REPLIED: _facts_json(self.replied),
            ANSWERED: _answered_json(self.answered),
            HOST: self.host,
        }


@dataclass(frozen=True)
class Unread:
    """A mail whose reading failed, the mail's own failure, until that is recorded."""

    error: Exception
    mail: ParsedMail | None = None
    """What the reader child made of it, when reading failed after that (its sender is told)."""


@dataclass(frozen=True)
class ReadMail:
    """A mail as applying it starts: what reading it found, and the addresses it came to."""

    inbound_id: int
    mail: ParsedMail
    envelope_to: tuple[str, ...]
    replied: ReplyFacts | None = None
    answered: AnsweredFacts | None = None
    host: str | None = None

    @classmethod
    def from_stored(cls, ready: inbox.Ready) -> ReadMail:
        """The mail `ready` names, as `Read.stored` kept it."""
        host = ready.parsed.get(HOST)
        return cls(
            ready.id,
            ParsedMail.from_json(ready.parsed),
            ready.envelope_to,
            _facts_from_json(ready.parsed.get(REPLIED)),
            _answered_from_json(ready.parsed.get(ANSWERED)),
            host if isinstance(host, str) else None,
        )


def read_mail(reader: MailReader, unread: inbox.Unread) -> Reading:
    """What the reader child makes of `unread` (given up, for a mail whose reading never finished)."""
    if unread.attempts > GIVE_UP_READING_AFTER:
        mail = ParsedMail.unread(Fact("unread-never-finished", count=unread.attempts - 1))
        return Reading(mail, ReadCost(0.0, 0))
    return reader.read(unread.raw, envelope_sender=unread.envelope_from)


def understand(
    session: Session,
    unread: inbox.Unread,
    reading: Reading,
    *,
    reply_addresses: ReplyAddresses,
    limits: Limits,
    ahead: Ahead,
    now: datetime,
) -> Read:
    """What a read mail asks for: its plan's keys, with its password checks started (`ahead`)."""
    mail = reading.mail
    sender = mail.from_address or unread.envelope_from
    reply = reply_addresses.resolve(session, unread.envelope_to)
    plan = plan_of(mail, reply, limits)
    answered = None
    if reply is None and not any(isinstance(step, lang.Command) for step in plan.steps):
        answered = reply_addresses.answered(session, mail)
        plan = plan_of(mail, reply, limits, answered)
    check_passwords_ahead(session, plan, mail.from_address, ahead, now=now)
    keys = conflict_keys(plan, sender=sender)
    replied = reply if isinstance(reply, ReplyFacts) else None
    host = sending_host(unread.peer, unread.raw)
    return Read(mail, keys, reading.cost.seconds, reading.cost.peak_memory_kb, replied, answered, host)


def plan_of(mail: ParsedMail, reply: ReplyAddress, limits: Limits, answered: AnsweredFacts | None = None) -> Plan:
    """The commands of `mail`, read with what its reply address stands for."""
    return plan_mail(
        mail.subject,
        fresh_text(mail.body),
        reply=reply if isinstance(reply, ReplyFacts | ResetFacts | ConfirmFacts) else None,
        bad_reply_address=reply is True,
        answered=answered,
        max_commands=limits.commands_per_mail,
        why_no_text=listed(list(mail.noted), "semicolon-list") if mail.noted and not mail.body.strip() else None,
    )


def _facts_json(facts: ReplyFacts | None) -> list[object] | None:
    return None if facts is None else [facts.userid, facts.game_type, facts.board, facts.at_ply]


def _facts_from_json(stored: object) -> ReplyFacts | None:
    """The `ReplyFacts` `_facts_json` stored; None for none, or for anything else (mail read by an
    older version): then they are looked up again."""
    if not isinstance(stored, list) or len(stored) != 4:
        return None
    userid, game_type, board, at_ply = stored
    if not (isinstance(userid, str) and isinstance(game_type, str) and isinstance(board, int)):
        return None
    return ReplyFacts(userid, game_type, board, at_ply if isinstance(at_ply, int) else None)


def _answered_json(facts: AnsweredFacts | None) -> list[object] | None:
    return None if facts is None else [facts.kind, facts.game_type, facts.board, facts.userid]


def _answered_from_json(stored: object) -> AnsweredFacts | None:
    """The `AnsweredFacts` `_answered_json` stored; None for none, or for anything else."""
    if not isinstance(stored, list) or len(stored) != 4:
        return None
    kind, game_type, board, userid = stored
    if not (all(isinstance(text, str) for text in (kind, game_type, userid)) and isinstance(board, int)):
        return None
    return AnsweredFacts(kind, game_type, board, userid)
