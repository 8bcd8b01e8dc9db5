"""Processing stored mail: read it, run its commands, queue the replies.

One inbound mail is processed in one database transaction: its commands run
(each in a savepoint, so a refused command leaves no trace while the others
stand), their replies are rendered into the outbox, and the mail is marked
processed — all or nothing. A crash anywhere before the commit leaves the mail
pending, and it is processed again, once, when the server is back.

Where the commands are:
- A reply to a board mail arrives at ``pbm+<token>@domain``: its first fresh
  line is a move (or ``resign`` or ``show``) for the player and game the token
  names; a full command on that line works too. The rest is the comment.
- Otherwise the Subject, when it parses as a command; else the body: lines
  before the first command are passed over (a greeting), then every line that
  starts with a verb or game name is a command, and the first line that does
  not begins the comment sent along with the boards.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands.execute import Executor, Refused, Reply, ReplyMove, ReplyResign, Sender
from pbm.mail.compose import Answering, Composer, Unaddressable
from pbm.mail.parse import ParsedMail, fresh_text, parse_mail
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.passwords import Passwords
from pbm.store import inbox
from pbm.store import repository as repo
from pbm.store.database import Database
from pbm.store.models import InboundMessage, OutboxMessage, utcnow

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """What a mail asks for: commands (or why a line is not one) and the comment."""

    steps: list[lang.Command | lang.CommandError] = field(default_factory=list)
    comment: str = ""


class Processor:
    def __init__(
        self,
        database: Database,
        passwords: Passwords,
        composer: Composer,
        addressing: Addressing,
        tokens: ReplyTokens,
        *,
        now: Callable[[], datetime] = utcnow,
        on_processed: Callable[[], None] | None = None,
    ) -> None:
        self.database = database
        self.passwords = passwords
        self.composer = composer
        self.addressing = addressing
        self.tokens = tokens
        self.now = now
        self.on_processed = on_processed
        """Called (in the processing thread) after each mail's changes are committed."""

    def process_pending(self) -> int:
        """Process every pending mail, oldest first; returns how many."""
        count = 0
        while self.process_one():
            count += 1
        return count

    def process_one(self) -> bool:
        inbound_id = None
        try:
            with self.database.transaction() as session:
                inbound = inbox.next_pending(session)
                if inbound is None:
                    return False
                inbound_id = inbound.id
                self._process(session, inbound)
        except DBAPIError:
            raise  # the database is unwell: leave the mail pending and retry later
        except Exception as error:  # a bug: record it, tell the sender, carry on
            if inbound_id is None:
                raise
            log.exception("processing inbound message %s failed", inbound_id)
            self._record_failure(inbound_id, error)
            return True
        if self.on_processed is not None:
            self.on_processed()
        return True

    # -- one mail ------------------------------------------------------------

    def _process(self, session: Session, inbound: InboundMessage) -> None:
        parsed = parse_mail(inbound.raw, envelope_sender=inbound.envelope_from, loop_marker=self.addressing.address)
        inbound.processed_at = self.now()
        if parsed.auto_reason:
            inbound.status = "ignored"
            inbound.note = f"not answered: {parsed.auto_reason}"
            return
        sender = Sender(
            parsed.from_address,
            repo.players_with_address(session, parsed.from_address) if parsed.from_address else [],
        )
        answering = Answering(parsed.message_id, parsed.references)
        text = fresh_text(parsed.body)
        token = self._token(inbound)
        plan = self._reply_plan(session, token, text) if token else self._command_plan(parsed.subject, text)

        done = refused = 0
        for step in plan.steps:
            if isinstance(step, lang.CommandError):
                replies = [self._error(sender, parsed, None, str(step), line=step.line)]
                refused += 1
            else:
                try:
                    with session.begin_nested():
                        executor = Executor(session, self.passwords, now=self.now, inbound_id=inbound.id)
                        replies = executor.run(step, sender, plan.comment)
                    done += 1
                except (Refused, pbm.games.GameError) as refusal:
                    replies = [self._error(sender, parsed, step, refusal)]
                    refused += 1
            self._queue(session, replies, inbound, answering)
        inbound.status = "processed"
        inbound.note = f"{done} command(s) carried out, {refused} refused"
        if not sender.address:
            inbound.note += "; no From address, so no answer to the sender"

    def _token(self, inbound: InboundMessage) -> str | None:
        for recipient in inbound.envelope_to.splitlines():
            token = self.addressing.token_of(recipient)
            if token:
                return token
        return None

    def _reply_plan(self, session: Session, token: str, text: str) -> Plan:
        lines = text.splitlines()
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        line = lines[first].strip() if first is not None else ""
        ids = self.tokens.read(token)
        if ids is None:
            reason = (
                "The address you replied to is not a reply address of this server (it may be damaged, "
                "or belong to another server); send the move as a command instead: "
                "GAME move BOARD USERID PASSWORD MOVE"
            )
            return Plan([lang.CommandError(reason, line)])
        if first is None:
            reason = "Your reply has no move in it: write the move on the first line, above the quoted board"
            return Plan([lang.CommandError(reason, "")])
        if lang.looks_like_command(line):
            return self._command_plan("", text)
        comment = "\n".join(lines[first + 1 :]).strip("\n")
        game_id, player_id = ids
        word = line.lower()
        if word == "show":
            game = repo.game_by_id(session, game_id)
            if game is not None:
                return Plan([lang.Show(game.game_type, ((game.board, None),), line=line)])
        if word == "resign":
            return Plan([ReplyResign(game_id, player_id, line=line)], comment)
        return Plan([ReplyMove(game_id, player_id, line, line=line)], comment)

    def _command_plan(self, subject: str, text: str) -> Plan:
        if subject and lang.looks_like_command(subject):
            try:
                return Plan([lang.parse_command(subject)], text.strip("\n"))
            except lang.CommandError as error:
                subject_error = error
        else:
            subject_error = None
        plan = Plan()
        lines = text.splitlines()
        started = False
        for index, line in enumerate(lines):
            if not line.strip():
                continue
            if lang.looks_like_command(line):
                started = True
                try:
                    plan.steps.append(lang.parse_command(line))
                except lang.CommandError as error:
                    plan.steps.append(error)
            elif started:
                plan.comment = "\n".join(lines[index:]).strip("\n")
                break
        if not plan.steps:
            first = next((line.strip() for line in lines if line.strip()), "")
            commands = ", ".join([*lang.ACCOUNT_USAGE, *pbm.games.names()])
            plan.steps.append(
                subject_error
                or lang.CommandError(
                    f"No command found in your mail. A command is a line that starts with one of: {commands}",
                    first or subject,
                )
            )
        return plan

    # -- replies -------------------------------------------------------------

    def _error(
        self,
        sender: Sender,
        parsed: ParsedMail,
        command: lang.Command | None,
        reason: str | Exception,
        *,
        line: str = "",
    ) -> Reply:
        view = getattr(reason, "view", None)
        game = getattr(command, "game", None)
        board = getattr(command, "board", None) or getattr(view, "board", None)
        if isinstance(command, (ReplyMove, ReplyResign)) and view is not None:
            game = view.game_type
        title = pbm.games.get(game).title if game else ""
        message = reason.message if isinstance(reason, Refused) else str(reason)
        original = lang.mask_passwords(parsed.body)
        context = {
            "reason": message if message.endswith((".", "?", "!", ":")) else message + ".",
            "command": lang.mask_passwords(command.line if command is not None else line),
            "view": view,
            "title": title,
            "board_number": board,
            "original": original,
        }
        return Reply("error", sender.address or "", context)

    def _queue(self, session: Session, replies: list[Reply], inbound: InboundMessage, answering: Answering) -> None:
        now = self.now()
        for reply in replies:
            if not reply.to:
                continue
            try:
                mail = self.composer.compose(reply, now=now, answering=answering)
            except Unaddressable:
                log.warning("a %s reply was not queued: its recipient is not an address", reply.template)
                continue
            session.add(
                OutboxMessage(
                    recipient=mail.recipient,
                    message_id=mail.message_id,
                    raw=mail.raw,
                    status="pending",
                    attempts=0,
                    next_attempt_at=now,
                    created_at=now,
                    inbound_id=inbound.id,
                    game_id=reply.game_id,
                )
            )

    def _record_failure(self, inbound_id: int, error: Exception) -> None:
        with self.database.transaction() as session:
            inbound = session.get(InboundMessage, inbound_id)
            assert inbound is not None
            inbound.status = "failed"
            inbound.note = f"{type(error).__name__}: {error}"[:2000]
            inbound.processed_at = self.now()
            parsed = parse_mail(inbound.raw, envelope_sender=inbound.envelope_from, loop_marker=self.addressing.address)
            if parsed.from_address and not parsed.auto_reason:
                original = lang.mask_passwords(parsed.body)
                reply = Reply("failure", parsed.from_address, {"original": original})
                self._queue(session, [reply], inbound, Answering(parsed.message_id, parsed.references))
