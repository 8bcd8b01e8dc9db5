"""Processing stored mail: read it, run its commands, queue the replies.

A received mail goes through two steps, claimed in `pbm.store.inbox` so that
any number of workers share the work without doing any of it twice:

1. **Reading**, outside any write transaction: the `MailReader` turns the raw
   bytes into a `ParsedMail` in a process of its own, with a time and memory
   limit, so a mail built to be slow to read holds up nobody's SMTP 250. The
   mail's plan (`pbm.commands.plan`) follows, and from it the mail's keys:
   its sender and the players and boards it names. The passwords its
   commands carry are checked now too, so the transaction below never waits
   for argon2.
2. **Applying**, once every earlier mail sharing a key is done: the commands
   run (each in a savepoint, so a refused command leaves no trace while the
   others stand), their replies are rendered into the outbox within the
   volume limits, and the mail is marked done — all or nothing, in a savepoint
   of the mail's own. Several ready mails share one transaction (one commit,
   one wait for the disk, for a batch of moves); a mail that fails ends its
   batch, so the mails before it are committed and it is dealt with alone.

A mail's own failure — any error that is not the database being unreachable,
a bug, bad data or an encoding error alike — marks that mail failed and tells
the sender when that is possible; recording it needs nothing from the mail
but its id, so it cannot fail the same way, and the queue moves on. Only an
unreachable database stops processing: `DatabaseUnavailable`, the mail stays
pending, and the server tries again when the database is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ParamSpec, TypeVar

from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands import verbs
from pbm.commands.context import Context
from pbm.commands.effects import BoardRef, OutgoingMail, PasswordCheck, Refused, ReplyAs, Sender
from pbm.commands.plan import AnsweredFacts, ConfirmFacts, Plan, ReplyFacts, ResetFacts, conflict_keys, plan_mail
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.mail import headers
from pbm.mail.answers import Answers
from pbm.mail.compose import Composer
from pbm.mail.fresh import fresh_text
from pbm.mail.held import HeldMail
from pbm.mail.outgoing import Outgoing
from pbm.mail.parse import ParsedMail
from pbm.mail.reader import MailReader, ReadCost, Reading
from pbm.mail.sending_host import sending_host
from pbm.mail.time_pass import TimePass
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.mail.worker import Worker
from pbm.passwords import Ahead, Passwords
from pbm.store import boards, confirmations, inbox, outbox, players, resets
from pbm.store.database import Database
from pbm.store.errors import DatabaseUnavailable, Failure, classify
from pbm.store.models import InboundMessage, InboundStatus, utcnow

log = logging.getLogger(__name__)
_T = TypeVar("_T")
_P = ParamSpec("_P")

READ_BATCH = 10
"""Mails one worker claims for reading at a time: one write claims them, one stores what was read."""
GIVE_UP_READING_AFTER = 3
"""Attempts at reading a mail (each one ended by the worker dying) before it is given up."""
PASSING_RETRIES = 3
"""Attempts at applying a mail that meets a deadlock or a lock timeout, before it counts as failed."""
APPLY_BATCH = 20
"""Most mails applied in one transaction: one commit, one wait for the disk, for all of them."""
APPLY_BATCH_SECONDS = 0.1
"""No mail joins a batch this long after the batch began: the batch's replies wait for its commit."""
ANSWERED_LOOKUPS = 10
"""Message-IDs of a mail's In-Reply-To and References (the newest) looked up as ours: the mail
it answers is among the newest, and the header is the sender's to fill."""


@dataclass(frozen=True)
class _Read:
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


@dataclass(frozen=True)
class _Unread:
    """A mail whose reading failed, the mail's own failure, until that is recorded."""

    error: Exception
    mail: ParsedMail | None = None
    """What the reader child made of it, when reading failed after that (its sender is told)."""


REPLIED = "replied_board"
"""The key of `_Read.replied` in what is stored of a reading, beside the `ParsedMail`'s."""
ANSWERED = "answered_mail"
"""The key of `_Read.answered`, likewise."""
HOST = "sending_host"
"""The key of `_Read.host` in what is stored of a reading."""


class Processor:
    def __init__(
        self,
        database: Database,
        passwords: Passwords,
        composer: Composer,
        addressing: Addressing,
        tokens: ReplyTokens,
        reader: MailReader,
        limits: Limits,
        *,
        club: Club = DEFAULT_CLUB,
        time_pass_every: timedelta = timedelta(minutes=1),
        read_seconds: float = 5.0,
        database_timeout: float = 5.0,
        now: Callable[[], datetime] = utcnow,
        on_processed: Callable[[], None] | None = None,
        worker: Worker | None = None,
    ) -> None:
        self.database = database
        self.passwords = passwords
        self.composer = composer
        self.addressing = addressing
        self.tokens = tokens
        self.reader = reader
        self.limits = limits
        self.club = club
        self.answers = Answers(limits.quoted_lines)
        self.outgoing = Outgoing(composer, limits, self.answers, club.confirm_addresses)
        self.read_lease = timedelta(seconds=max(30.0, 3 * read_seconds))
        self.database_timeout = database_timeout
        self.now = now
        self.on_processed = on_processed
        """Called (in the processing thread) after each mail's changes are committed."""
        self.worker = worker or Worker.here()
        self._passing: dict[int, int] = {}
        self._batch_size = APPLY_BATCH
        held = HeldMail(composer, limits)
        self.time_pass = TimePass(database, passwords, limits, self.outgoing, held, club=club, now=now)
        self.time_pass_every = time_pass_every
        self._last_pass: datetime | None = None

    def process_pending(self) -> int:
        """Read and apply every mail that can be, oldest first, then run the time pass if it is due;
        returns how many mails were applied, and how many the time pass queued.

        Raises `DatabaseUnavailable` when the database cannot be reached.
        """
        self._guarded(self._release_dead_claims)
        applied = 0
        while True:
            read = self._guarded(self.read_some)
            progressed = False
            while True:
                done, more = self._guarded(self.apply_some)
                applied += done
                progressed = progressed or done > 0
                if not more:
                    break
            if not read and not progressed:
                if applied:
                    # Held mail a command let go (its address just confirmed) goes now, not at the next pass.
                    self._guarded(lambda: self.time_pass.let_held_go(self.now()))
                # After the mail: a move that came in time is played before its sender could forfeit.
                return applied + self.pass_time()

    def _guarded(self, step: Callable[[], _T]) -> _T:
        """Run a step that is no one mail's (claiming, reading a batch): its database errors are the database's.

        Contention is tried again at once; an error while the database answers a
        probe is too, a few times; past that, or when it does not answer,
        `DatabaseUnavailable`. Any other error is a bug, and rises as it is.
        """
        for attempt in range(PASSING_RETRIES + 1):
            try:
                return step()
            except DatabaseUnavailable:
                raise
            except Exception as error:
                kind = classify(error)
                if kind is Failure.MAIL:
                    raise
                if attempt == PASSING_RETRIES or (
                    kind is Failure.OUTAGE and not self.database.reachable(self.database_timeout)
                ):
                    raise DatabaseUnavailable(type(error).__name__) from error
                log.warning("processing met %s; trying again", type(error).__name__)
        raise AssertionError("unreachable")

    def pass_time(self) -> int:
        """Run the time pass (`pbm.mail.time_pass`) when `time_pass_every` has gone by since the last;
        returns how many mails it queued. A failure at one board is that board's and is logged."""
        now = self.now()
        if self._last_pass is not None and now - self._last_pass < self.time_pass_every:
            return 0
        report = self._guarded(lambda: self.time_pass.run(now))
        self._last_pass = now
        if report.done:
            log.info("time pass: %s", "; ".join(report.done))
            if self.on_processed is not None:
                self.on_processed()
        return len(report.done)

    def _release_dead_claims(self) -> None:
        with self.database.reading() as session:
            gone = [i for i, claim in inbox.reading_claims(session) if self.worker.outlived(claim)]
        if gone:
            with self.database.transaction() as session:
                inbox.release_reading_claims(session, gone)
            log.info("took over %d mail(s) a stopped worker had started reading", len(gone))

    # -- step 1: reading ------------------------------------------------------

    def read_some(self) -> int:
        """Read a batch of unread mail; returns how many were read.

        One reading session serves the whole batch's lookups (reply addresses,
        password hashes), not a session each. It stays open while the reader
        child reads, but never idles longer than one mail's reading (bounded
        by the reader's limits), which is well within PostgreSQL's idle
        timeout.
        """
        now = self.now()
        with self.database.transaction() as session:
            claimed = inbox.claim_unread(
                session, worker=self.worker.name, now=now, lease=self.read_lease, limit=READ_BATCH
            )
        if not claimed:
            return 0
        readings: list[_Read | _Unread] = []
        started = self.now()
        with self.passwords.ahead() as ahead, self.database.reading() as looking:
            for index, unread in enumerate(claimed):
                readings.append(self._read(looking, unread, ahead))
                if self.now() - started > self.read_lease / 2 and index + 1 < len(claimed):
                    # Slow mails: keep the claim on the rest of the batch.
                    rest = [u.id for u in claimed[index + 1 :]]
                    with self.database.transaction() as session:
                        inbox.extend_read_claims(
                            session, rest, worker=self.worker.name, until=self.now() + self.read_lease
                        )
                    started = self.now()
        now = self.now()
        read = [(unread, reading) for unread, reading in zip(claimed, readings) if isinstance(reading, _Read)]
        outcomes = self.database.write_each(read, lambda session, pair: self._record_reading(session, *pair, now))
        recorded = {unread.id: outcome for (unread, _), outcome in zip(read, outcomes)}
        failed: list[tuple[int, _Unread]] = []
        for unread, reading in zip(claimed, readings):
            if isinstance(reading, _Unread):
                failed.append((unread.id, reading))
            elif isinstance(error := recorded[unread.id], Exception):
                failed.append((unread.id, _Unread(error, reading.mail)))
        # Each in a transaction of its own, after the batch's readings are kept: telling a sender may fail.
        for inbound_id, failure in failed:
            log.error("inbound %d could not be read", inbound_id, exc_info=failure.error)
            note = f"reading failed: {type(failure.error).__name__}"
            self._record_failure(inbound_id, failure.error, note=note, mail=failure.mail)
        return len(claimed)

    def _read(self, session: Session, unread: inbox.Unread, ahead: Ahead) -> _Read | _Unread:
        """What reading `unread` finds, its lookups made in `session` (rolled back when they fail:
        the next mail's lookups start afresh, not in an aborted PostgreSQL transaction)."""
        reading = self._own_failure(self._reading, unread)
        if isinstance(reading, Exception):
            return _Unread(reading)
        understood = self._own_failure(self._understand, session, unread, reading, ahead)
        if isinstance(understood, Exception):
            session.rollback()
            return _Unread(understood, reading.mail)
        return understood

    @staticmethod
    def _own_failure(step: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T | Exception:
        """What `step` gives, or the error that is the mail's own failure; any other error rises."""
        try:
            return step(*args, **kwargs)
        except OSError:
            raise  # no reading process could start: the machine's fault, not the mail's
        except Exception as error:
            if classify(error) is not Failure.MAIL:
                raise
            return error

    def _record_reading(self, session: Session, unread: inbox.Unread, reading: _Read, now: datetime) -> None:
        inbox.record_reading(
            session,
            unread.id,
            worker=self.worker.name,
            parsed={
                **reading.mail.to_json(),
                REPLIED: _facts_json(reading.replied),
                ANSWERED: _answered_json(reading.answered),
                HOST: reading.host,
            },
            keys=reading.keys,
            seconds=reading.seconds,
            peak_kb=reading.peak_kb,
            now=now,
        )

    def _reading(self, unread: inbox.Unread) -> Reading:
        """What the reader child makes of `unread` (given up, for a mail whose reading never finished)."""
        if unread.attempts > GIVE_UP_READING_AFTER:
            mail = ParsedMail.unread(f"reading it was started {unread.attempts - 1} times and never finished")
            return Reading(mail, ReadCost(0.0, 0))
        return self.reader.read(unread.raw, envelope_sender=unread.envelope_from)

    def _understand(self, session: Session, unread: inbox.Unread, reading: Reading, ahead: Ahead) -> _Read:
        """What a read mail asks for: its plan's keys, with its password checks started (`ahead`)."""
        mail = reading.mail
        sender = mail.from_address or unread.envelope_from
        reply = self._reply_facts(session, unread.envelope_to)
        plan = self._plan(mail, reply)
        answered = None
        if reply is None and not any(isinstance(step, lang.Command) for step in plan.steps):
            answered = self._answered(session, mail)
            plan = self._plan(mail, reply, answered)
        self._check_passwords_ahead(session, plan, mail.from_address, ahead)
        keys = conflict_keys(plan, sender=sender)
        replied = reply if isinstance(reply, ReplyFacts) else None
        host = sending_host(unread.peer, unread.raw)
        return _Read(mail, keys, reading.cost.seconds, reading.cost.peak_memory_kb, replied, answered, host)

    def _answered(self, session: Session, mail: ParsedMail) -> AnsweredFacts | None:
        """Which of our mails `mail` answers, when its In-Reply-To or References name one that a
        reply address would have served: a mail of the sender's own thread of a board (its root
        names board and player, signed), or a message or an announcement passed on. The newest
        named is the one answered; at most `ANSWERED_LOOKUPS` are looked up."""
        ours = "@" + self.addressing.domain.lower() + ">"
        named = dict.fromkeys([mail.in_reply_to, *reversed(mail.references)])
        candidates = [i for i in named if i is not None and i.lower().endswith(ours)][:ANSWERED_LOOKUPS]
        kinds = outbox.kinds_of(session, candidates)
        for message_id in candidates:
            thread = self.composer.thread_named(message_id)
            if thread is not None:
                names = boards.reply_names(session, *thread)
                senders = players.with_address(session, mail.from_address) if mail.from_address else []
                if names is not None and names.userid in {player.userid for player in senders}:
                    return AnsweredFacts("board", names.game_type, names.board, names.userid)
            elif kinds.get(message_id) in ("message", "broadcast"):
                return AnsweredFacts(kinds[message_id])
        return None

    def _check_passwords_ahead(self, session: Session, plan: Plan, sender: str | None, ahead: Ahead) -> None:
        """Start the slow part of every password check of `plan`, to be done outside any write
        transaction (before the batch's readings are recorded, `read_some` waits for it).

        The answers are remembered (`Passwords`), so the same checks in the
        transaction cost nothing. A password that changes in between is simply
        checked again there. No password is checked for a player whose password
        commands from `sender` (the mail's From) wait after wrong ones.
        """
        for step in plan.steps:
            match step:
                case lang.Signup(secret=password) | lang.ResetPassword(secret=password):
                    ahead.prepare(password)
                case lang.ChangePassword(userid=userid, old=old, new=new):
                    self._verify_ahead(session, sender, userid, old, ahead)
                    ahead.prepare(new)
                case lang.Command() if (credentials := step.credentials()) is not None:
                    self._verify_ahead(session, sender, *credentials, ahead)

    def _verify_ahead(self, session: Session, sender: str | None, userid: str, password: str, ahead: Ahead) -> None:
        password_hash = players.checkable_password_hash(session, userid, sender, now=self.now())
        if password_hash is not None:
            ahead.verify(password_hash, password)

    # -- step 2: applying -----------------------------------------------------

    def apply_some(self) -> tuple[int, bool]:
        """Apply ready mails, a batch of them in one transaction; returns how many mails the batch
        held (0: none was ready), and whether more may be ready (the batch did not end for want
        of one: then looking again at once is not a wasted transaction).

        Each mail is applied in a savepoint of its own. A mail whose applying
        raises ends the batch: its savepoint is rolled back, the mails before it
        are committed, and then it is dealt with alone (`_failed`). A commit that
        fails cannot be blamed on any one of several mails: they stay pending,
        and are applied one to a transaction until a commit succeeds again.
        """
        batch: list[int] = []
        stopped: Exception | None = None
        exhausted = False
        began = time.monotonic()
        try:
            with self.database.transaction() as session:
                while len(batch) < self._batch_size and (
                    not batch or time.monotonic() - began < APPLY_BATCH_SECONDS
                ):
                    # What an earlier mail loaded is read again: each mail sees the rows as they are.
                    session.expire_all()
                    inbound = inbox.claim_ready(session)
                    if inbound is None:
                        exhausted = True
                        break
                    batch.append(inbound.id)
                    try:
                        with session.begin_nested():
                            self._apply(session, inbound)
                    except Exception as error:
                        stopped = error
                        break
        except Exception as error:
            if not batch:
                raise  # no mail's: `_guarded` tells contention from an outage
            if len(batch) == 1:
                self._failed(batch[0], error)
            else:
                log.warning("a batch of %d mails met %s; applying them one at a time", len(batch), type(error).__name__)
                self._batch_size = 1
            return len(batch), True
        self._batch_size = APPLY_BATCH
        applied = batch[:-1] if stopped is not None else batch
        for inbound_id in applied:
            self._passing.pop(inbound_id, None)
        if applied and self.on_processed is not None:
            self.on_processed()
        if stopped is not None:
            self._failed(batch[-1], stopped)
        return len(batch), not exhausted

    def _failed(self, inbound_id: int, error: Exception) -> None:
        """Applying `inbound_id` raised `error`: an outage, contention that passes, or the mail's failure."""
        kind = classify(error)
        if kind is Failure.OUTAGE and not self.database.reachable(self.database_timeout):
            raise DatabaseUnavailable(type(error).__name__) from error
        if kind is not Failure.MAIL:
            tries = self._passing[inbound_id] = self._passing.get(inbound_id, 0) + 1
            if tries <= PASSING_RETRIES:
                log.warning("inbound %d met %s; trying it again", inbound_id, type(error).__name__)
                return
        self._passing.pop(inbound_id, None)
        log.error("inbound %d failed", inbound_id, exc_info=error)
        self._record_failure(inbound_id, error)

    def _apply(self, session: Session, inbound: inbox.Ready) -> None:
        mail = ParsedMail.from_json(inbound.parsed)
        now = self.now()
        if mail.auto_reason:
            inbox.finish(session, inbound.id, InboundStatus.IGNORED, f"not answered: {mail.auto_reason}", now)
            log.info("inbound %d ignored (automatic mail)", inbound.id)
            return
        host = inbound.parsed.get(HOST)
        sender = Sender(
            mail.from_address,
            players.with_address(session, mail.from_address) if mail.from_address else [],
            host if isinstance(host, str) else None,
        )
        if mail.unreadable:
            reason = f"Your mail could not be read: {mail.unreadable}. Nothing in it was carried out"
            error = self.answers.error(sender.address, mail.body, Plan(), reason)
            notes = self.outgoing.queue(session, inbound.id, mail, [error], now=now)
            status_note = "; ".join([f"unreadable: {mail.unreadable}", *notes])
            inbox.finish(session, inbound.id, InboundStatus.FAILED, status_note, now)
            log.info("inbound %d failed: unreadable", inbound.id)
            return
        envelope_to = inbound.envelope_to
        replied = _facts_from_json(inbound.parsed.get(REPLIED))
        reply = replied if replied is not None else self._reply_facts(session, envelope_to)
        plan = self._plan(mail, reply, _answered_from_json(inbound.parsed.get(ANSWERED)))
        quoted = self._quotable(session, mail, plan)
        mails: list[OutgoingMail] = []
        done = refused = 0
        for step in plan.steps:
            if isinstance(step, lang.CommandError):
                about = BoardRef(reply.game_type, reply.board) if isinstance(reply, ReplyFacts) else None
                # Only to the player's own address: a reply address is handed to no one else.
                own = isinstance(reply, ReplyFacts) and reply.userid in {p.userid for p in sender.players}
                again = self._same_reply_address(envelope_to) if own else None
                mails.append(self.answers.error(sender.address, quoted, plan, step, about=about, reply_as=again))
                refused += 1
                continue
            checks: list[PasswordCheck] = []
            context = Context(
                session,
                self.passwords,
                self.limits,
                sender,
                comment=plan.comment,
                now=self.now,
                inbound_id=inbound.id,
                on_password_check=checks.append,
                club=self.club,
            )
            try:
                with session.begin_nested():
                    mails.extend(verbs.run(context, step))
                done += 1
            except (Refused, pbm.games.GameError) as refusal:
                mails.append(self.answers.error(sender.address, quoted, plan, refusal, command=step))
                refused += 1
            for check in checks:
                players.note_password_check(
                    session,
                    check.player_id,
                    check.sender,
                    right=check.right,
                    now=now,
                    allowed=self.limits.failed_passwords,
                )
        notes = [f"{done} command(s) carried out, {refused} refused"]
        if not sender.address:
            notes.append("no usable From address, so no answer to the sender")
        notes.extend(self.outgoing.queue(session, inbound.id, mail, mails, now=now))
        inbox.finish(session, inbound.id, InboundStatus.PROCESSED, "; ".join(notes), now)
        log.info("inbound %d processed: %d carried out, %d refused", inbound.id, done, refused)

    def _quotable(self, session: Session, mail: ParsedMail, plan: Plan) -> str:
        """What error answers may quote of `mail`: all of it, but for a password reset's reply;
        without its comment (what a player writes for others) to a From that nobody confirmed,
        which may be forged: a player's words are never echoed to a stranger's address."""
        if plan.private:
            return ""
        if not plan.comment or not self.club.confirm_addresses or not mail.from_address:
            return mail.body
        if confirmations.confirmed_by(session, [mail.from_address]):
            return mail.body
        return "\n".join(step.line for step in plan.steps)

    def _reply_facts(
        self, session: Session, envelope_to: tuple[str, ...]
    ) -> ReplyFacts | ResetFacts | ConfirmFacts | bool | None:
        """What the reply address a mail came to stands for: a player's board, a password reset,
        or a request to confirm an address; True when it is damaged or forged, or stands for
        nothing here; None for the plain address."""
        token = next((t for t in map(self.addressing.token_of, envelope_to) if t), None)
        if token is None:
            return None
        if resets.is_reset_token(token):
            player = resets.player_of(session, token, self.now())
            return ResetFacts(token, player.userid if player is not None and player.active else None)
        if confirmations.is_confirmation_token(token):
            return ConfirmFacts(token, confirmations.userid_of(session, token, self.now()))
        ids = self.tokens.read(token)
        if ids is None:
            return True
        board_id, player_id, at_ply = ids
        names = boards.reply_names(session, board_id, player_id)
        if names is None:
            return True
        return ReplyFacts(names.userid, names.game_type, names.board, at_ply)

    def _same_reply_address(self, envelope_to: tuple[str, ...]) -> ReplyAs | None:
        """The board mail a reply came to the reply address of, for an error answering it to carry
        the same (none for a token of the older kind, which is not handed out again)."""
        token = next((t for t in map(self.addressing.token_of, envelope_to) if t), None)
        ids = self.tokens.read(token) if token is not None else None
        if ids is None:
            return None
        board_id, player_id, at_ply = ids
        return ReplyAs(board_id, player_id, at_ply) if at_ply is not None else None

    def _plan(
        self,
        mail: ParsedMail,
        reply: ReplyFacts | ResetFacts | ConfirmFacts | bool | None,
        answered: AnsweredFacts | None = None,
    ) -> Plan:
        return plan_mail(
            mail.subject,
            fresh_text(mail.body),
            reply=reply if isinstance(reply, ReplyFacts | ResetFacts | ConfirmFacts) else None,
            bad_reply_address=reply is True,
            answered=answered,
            max_commands=self.limits.commands_per_mail,
            why_no_text="; ".join(mail.notes) if not mail.body.strip() else None,
        )

    # -- replies ---------------------------------------------------------------

    def _to_reset_address(self, session: Session, inbound_id: int) -> bool:
        """Whether the mail came to a password reset's reply address: its text holds a password."""
        inbound = session.get(InboundMessage, inbound_id)
        tokens = [self.addressing.token_of(to) for to in (inbound.envelope_to.splitlines() if inbound else [])]
        return any(token and resets.is_reset_token(token) for token in tokens)

    def _record_failure(
        self, inbound_id: int, error: Exception, *, note: str | None = None, mail: ParsedMail | None = None
    ) -> None:
        """Mark the mail failed and tell its sender; if telling fails, mark it failed all the same.

        `mail`: what reading found, for a mail that failed before it was stored.
        """
        note = note or f"{type(error).__name__}: {error}"
        try:
            with self.database.transaction() as session:
                parsed = inbox.what_was_read(session, inbound_id)
                inbox.record_failure(session, inbound_id, note, self.now())
                if mail is None and parsed is not None:
                    mail = ParsedMail.from_json(parsed)
                if mail is not None:
                    address = headers.mail_address(mail.from_address)
                    if address and not mail.auto_reason:
                        private = self._to_reset_address(session, inbound_id)
                        failure = self.answers.failure(address, "" if private else mail.body)
                        self.outgoing.queue(session, inbound_id, mail, [failure], now=self.now(), answer_sender=False)
        except Exception as second:
            if classify(second) is Failure.OUTAGE and not self.database.reachable(self.database_timeout):
                raise DatabaseUnavailable(type(second).__name__) from second
            log.error("inbound %d: the sender could not be told of its failure", inbound_id, exc_info=second)
            with self.database.transaction() as session:
                inbox.record_failure(
                    session, inbound_id, f"{note}; the sender could not be told ({type(second).__name__})", self.now()
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
