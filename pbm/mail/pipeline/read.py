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
from pbm.commands.plan import (
    AnsweredFacts,
    ConfirmFacts,
    DigestFacts,
    Plan,
    ReplyFacts,
    ResetFacts,
    conflict_keys,
    plan_mail,
)
from pbm.config import Limits
from pbm.crypto.passwords import Ahead
from pbm.facts import Fact
from pbm.mail.authentication import dmarc_result
from pbm.mail.bounces import Report, read_report, returned_message_ids
from pbm.mail.fresh import fresh_text
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.passwords_ahead import (
    authors_words_ahead,
    check_passwords_ahead,
    may_hold_a_password,
    searched_text,
)
from pbm.mail.pipeline.reply_address import ReplyAddress, ReplyAddresses
from pbm.mail.reader import MailReader, ReadCost, Reading
from pbm.mail.sending_host import sending_host
from pbm.store import inbox, outbox, players

GIVE_UP_READING_AFTER = 3
"""Attempts at reading a mail (each one ended by the worker dying) before it is given up."""

REPLIED = "replied_board"
"""The key of `Read.replied` in what is stored of a reading, beside the `ParsedMail`'s."""
ANSWERED = "answered_mail"
"""The key of `Read.answered`, likewise."""
HOST = "sending_host"
"""The key of `Read.host` in what is stored of a reading."""
DMARC = "dmarc"
"""The key of `Read.dmarc` in what is stored of a reading."""
BOUNCE = "bounce"
"""The key of `Read.bounce` in what is stored of a reading."""
BOT = "bot_decision"
"""The key of `ReadMail.bot` in what is stored of a bot's decision (`BotDecision.stored`)."""


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
    bounce: Bounce | None = None
    """What the mail reports, when it came to a bounce address (`pbm.mail.bounces`)."""
    dmarc: str | None = None
    """The DMARC result our own MTA found (`pbm.mail.authentication`); None: none trusted."""

    def stored(self) -> dict[str, Any]:
        """What is kept of this reading with the mail, for `ReadMail.from_stored`."""
        return {
            **self.mail.to_json(),
            REPLIED: _facts_json(self.replied),
            ANSWERED: _answered_json(self.answered),
            HOST: self.host,
            BOUNCE: _bounce_json(self.bounce),
            DMARC: self.dmarc,
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
    bounce: Bounce | None = None
    dmarc: str | None = None
    bot: BotDecision | None = None
    """What a bot decided, when this is no mail but a bot's turn (`pbm.mail.bot_turns`)."""

    @classmethod
    def from_stored(cls, ready: inbox.Ready) -> ReadMail:
        """The mail `ready` names, as `Read.stored` (or `BotDecision.stored`) kept it."""
        host = ready.parsed.get(HOST)
        return cls(
            ready.id,
            ParsedMail.from_json(ready.parsed),
            ready.envelope_to,
            _facts_from_json(ready.parsed.get(REPLIED)),
            _answered_from_json(ready.parsed.get(ANSWERED)),
            host if isinstance(host, str) else None,
            _bounce_from_json(ready.parsed.get(BOUNCE)),
            dmarc if isinstance(dmarc := ready.parsed.get(DMARC), str) else None,
            BotDecision.from_json(ready.parsed.get(BOT)),
        )


@dataclass(frozen=True)
class BotDecision:
    """A bot's answer at its board, as its reply to the board mail at move `at_ply` would carry it:
    a move (`move`), or a vote on the proposal waiting (`accept`). It is applied as that reply
    is, in its turn among the mail naming the board, and refused as stale once the game has
    moved past `at_ply`."""

    userid: str
    game_type: str
    board: int
    at_ply: int
    move: str | None = None
    accept: bool | None = None

    def command(self) -> lang.ReplyableCommand:
        """The command a player's reply with this answer on its first line would be."""
        game, board, userid, at = self.game_type, self.board, self.userid, self.at_ply
        if self.move is not None:
            # With the #N guard a player may write: the move after move `at_ply`, or none.
            written = f"{self.move}#{at + 1}"
            return lang.Move(game, board, userid, None, written, replied_at=at, line=written)
        word = "accept" if self.accept else "reject"
        return lang.Vote(game, board, userid, None, bool(self.accept), replied_at=at, line=word)

    def stored(self) -> dict[str, Any]:
        """What the inbox keeps of the decision, read back by `ReadMail.from_stored`: a mail from
        nobody, which nobody answers, beside the decision itself."""
        nobody = ParsedMail(None, None, "", self.command().line, (), None, ())
        return {**nobody.to_json(), BOT: [self.userid, self.game_type, self.board, self.at_ply, self.move, self.accept]}

    @classmethod
    def from_json(cls, stored: object) -> BotDecision | None:
        if not isinstance(stored, list) or len(stored) != 6:
            return None
        userid, game_type, board, at_ply, move, accept = stored
        if not (isinstance(userid, str) and isinstance(game_type, str) and isinstance(board, int)):
            return None
        if not isinstance(at_ply, int) or not (isinstance(move, str) or isinstance(accept, bool)):
            return None
        return cls(userid, game_type, board, at_ply, move if isinstance(move, str) else None, accept)


def read_mail(reader: MailReader, unread: inbox.Unread) -> Reading:
    """What the reader child makes of `unread` (given up, for a mail whose reading never finished)."""
    if unread.peer.startswith(inbox.TOO_LARGE_PEER):
        size, _, limit = unread.peer.removeprefix(inbox.TOO_LARGE_PEER).partition("/")
        return reader.too_large(unread.raw, unread.envelope_from, int(size or 0), int(limit or 0))
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
    trusted_authserv_id: str | None = None,
) -> Read:
    """What a read mail asks for: its plan's keys, with its password checks started (`ahead`)."""
    mail = reading.mail
    sender = mail.from_address or unread.envelope_from
    reply = reply_addresses.resolve(session, unread.envelope_to, mail.from_address)
    plan = plan_of(mail, reply, limits)
    answered = None
    if reply is None and not any(isinstance(step, lang.Command) for step in plan.steps):
        answered = reply_addresses.answered(session, mail)
        plan = plan_of(mail, reply, limits, answered)
    check_passwords_ahead(session, plan, mail.from_address, ahead, now=now)
    text = searched_text(mail)
    # Most replies (a move: ``c3``) have no word a password could be, and nobody's hash to look up.
    if mail.from_address and may_hold_a_password(text, plan):
        authors_words_ahead(text, plan, players.with_address(session, mail.from_address), ahead)
    keys = conflict_keys(plan, sender=sender)
    replied = reply if isinstance(reply, ReplyFacts) else None
    host = sending_host(unread.peer, unread.raw)
    bounce = _bounce(reply_addresses, unread) or _returned(session, unread)
    dmarc = dmarc_result(unread.raw, trusted_authserv_id)
    cost = reading.cost
    return Read(mail, keys, cost.seconds, cost.peak_memory_kb, replied, answered, host, bounce, dmarc)


@dataclass(frozen=True)
class Bounce:
    """A mail come to a bounce address: the outbox row the address names, and what it reports of
    that row's mail (None: no failure, as an auto-reply)."""

    outbox_id: int
    report: Report | None


def _bounce(reply_addresses: ReplyAddresses, unread: inbox.Unread) -> Bounce | None:
    outbox_id = reply_addresses.bounce_addresses.outbox_id_in(unread.envelope_to)
    return None if outbox_id is None else Bounce(outbox_id, read_report(unread.raw))


def _returned(session: Session, unread: inbox.Unread) -> Bounce | None:
    """A report come to the server's own address (as bounces do of mail sent through a provider's
    account, `pbm.mail.submission`), matched to our mail by the Message-ID it returns. Only a mail
    with the null sender, that reads as a report of failure, is taken for one."""
    if unread.envelope_from or unread.peer != "imap":
        return None
    returned = returned_message_ids(unread.raw)
    outbox_id = outbox.id_of_message(session, returned) if returned else None
    report = read_report(unread.raw) if outbox_id is not None else None
    return Bounce(outbox_id, report) if outbox_id is not None and report is not None else None


def _bounce_json(bounce: Bounce | None) -> list[object] | None:
    if bounce is None:
        return None
    report = bounce.report
    return [bounce.outbox_id, report.kind if report else None, report.status if report else None]


def _bounce_from_json(stored: object) -> Bounce | None:
    if not isinstance(stored, list) or len(stored) != 3 or not isinstance(stored[0], int):
        return None
    outbox_id, kind, status = stored
    report = Report(kind, status) if isinstance(kind, str) and isinstance(status, str) else None
    return Bounce(outbox_id, report)


def plan_of(mail: ParsedMail, reply: ReplyAddress, limits: Limits, answered: AnsweredFacts | None = None) -> Plan:
    """The commands of `mail`, read with what its reply address stands for."""
    return plan_mail(
        mail.subject,
        fresh_text(mail.body),
        reply=reply if isinstance(reply, ReplyFacts | ResetFacts | ConfirmFacts | DigestFacts) else None,
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
