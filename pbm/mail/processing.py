"""Scheduling the processing of stored mail: batches, savepoints, retries, claims.

Each step of a mail's path is a module of `pbm.mail.pipeline`; this module only decides when
each runs, for which mails, in which transaction. A received mail goes through two stages,
claimed in `pbm.store.inbox` so that any number of workers share the work without doing any
of it twice:

1. **Reading**, outside any write transaction (`pipeline.read`): a batch of mails is claimed,
   each read by the reader child, its reply address resolved and its password checks started;
   then what was read is stored, each mail in a transaction of its own.
2. **Applying**, once every earlier mail sharing a key is done (`pipeline.apply`, then
   `pipeline.replies`) — all or nothing, in a savepoint of the mail's own. Several ready mails
   share one transaction (one commit, one wait for the disk, for a batch of moves); a mail that
   fails ends its batch, so the mails before it are committed and it is dealt with alone.

A mail's own failure — any error that is not the database being unreachable,
a bug, bad data or an encoding error alike — marks that mail failed and tells
the sender when that is possible (`pipeline.failure`); recording it needs nothing from the mail
but its id, so it cannot fail the same way, and the queue moves on. Only an
unreachable database stops processing: `DatabaseUnavailable`, the mail stays
pending, and the server tries again when the database is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import ParamSpec, TypeVar

from sqlalchemy.orm import Session

from pbm.crypto.passwords import Ahead
from pbm.health.metrics import Metrics
from pbm.mail.outgoing import Outgoing
from pbm.mail.parse import ParsedMail
from pbm.mail.pipeline.apply import Applying, apply_mail
from pbm.mail.pipeline.failure import record_failure
from pbm.mail.pipeline.read import Read, ReadMail, Unread, read_mail, understand
from pbm.mail.pipeline.replies import queue_replies
from pbm.mail.reader import MailReader
from pbm.mail.time_pass import TimePass
from pbm.mail.worker import Worker
from pbm.store import inbox, outbox
from pbm.store.database import Database
from pbm.store.errors import DatabaseUnavailable, Failure, classify
from pbm.store.models import InboundStatus, utcnow
from pbm.words import Words

log = logging.getLogger(__name__)
_T = TypeVar("_T")
_P = ParamSpec("_P")

READ_BATCH = 10
"""Mails one worker claims for reading at a time: one write claims them, one stores what was read."""
PASSING_RETRIES = 3
"""Attempts at applying a mail that meets a deadlock or a lock timeout, before it counts as failed."""
APPLY_BATCH = 20
"""Most mails applied in one transaction: one commit, one wait for the disk, for all of them."""
APPLY_BATCH_SECONDS = 0.1
"""No mail joins a batch this long after the batch began: the batch's replies wait for its commit."""


class Processor:
    """Runs the steps of `pbm.mail.pipeline` over the inbox, as `pbm.serving.server` wired them."""

    def __init__(
        self,
        database: Database,
        reader: MailReader,
        applying: Applying,
        outgoing: Outgoing,
        time_pass: TimePass,
        *,
        time_pass_every: timedelta = timedelta(minutes=1),
        read_seconds: float = 5.0,
        database_timeout: float = 5.0,
        now: Callable[[], datetime] = utcnow,
        on_processed: Callable[[], None] | None = None,
        worker: Worker | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.database = database
        self.reader = reader
        self.applying = applying
        self.outgoing = outgoing
        self.time_pass = time_pass
        self.time_pass_every = time_pass_every
        self.read_lease = timedelta(seconds=max(30.0, 3 * read_seconds))
        self.database_timeout = database_timeout
        self.now = now
        self.on_processed = on_processed
        """Called (in the processing thread) after each mail's changes are committed."""
        self.worker = worker or Worker.here()
        self.metrics = metrics or Metrics()
        """Counts each mail once it is done, after the commit that made it so."""
        self._passing: dict[int, int] = {}
        self._batch_size = APPLY_BATCH
        self._last_pass: datetime | None = None
        self._looked_for_dead_claims = False
        self._let_go = False
        """Whether a mail applied let held mail go (`pbm.store.outbox.LET_GO`): the held mail goes
        after it, not at the next time pass."""

    def process_pending(self, *, look_for_dead_claims: bool = False) -> int:
        """Read and apply every mail that can be, oldest first, then run the time pass if it is due;
        returns how many mails were applied, and how many the time pass queued.

        Mail a stopped worker on this host had begun reading is taken over at the first call, and
        when `look_for_dead_claims` (`pbm serve` asks on its idle polls): a crash is rare, every
        mail need not pay two queries to find none, and such a claim also ends with its lease.

        Raises `DatabaseUnavailable` when the database cannot be reached.
        """
        if look_for_dead_claims or not self._looked_for_dead_claims:
            self._guarded(self._release_dead_claims)
            self._looked_for_dead_claims = True
        applied = 0
        while True:
            read = self._guarded(self.read_some)
            while True:
                done, more = self._guarded(self.apply_some)
                applied += done
                if not more:
                    break
            # A short batch read every mail that was unread when it looked, and every ready mail is
            # applied: mail stored since wakes this worker again (`pbm.serving.server`), so looking once more
            # now would only cost two empty queries a mail on a quiet day.
            if read < READ_BATCH:
                if self._let_go:
                    # Held mail a command let go (its address just confirmed) goes now, not at the next pass.
                    self._let_go = False
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
        if report.pruned is not None:
            log.info("time pass: %s", Words().say(report.pruned))
        self.metrics.time_passes.labels("failed" if report.failed else "done").inc()
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
        readings: list[Read | Unread] = []
        started = self.now()
        with self.applying.passwords.ahead() as ahead, self.database.reading() as looking:
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
        read = [(unread, reading) for unread, reading in zip(claimed, readings) if isinstance(reading, Read)]
        outcomes = self.database.write_each(read, lambda session, pair: self._record_reading(session, *pair, now))
        recorded = {unread.id: outcome for (unread, _), outcome in zip(read, outcomes)}
        failed: list[tuple[int, Unread]] = []
        for unread, reading in zip(claimed, readings):
            if isinstance(reading, Unread):
                failed.append((unread.id, reading))
            elif isinstance(error := recorded[unread.id], Exception):
                failed.append((unread.id, Unread(error, reading.mail)))
        # Each in a transaction of its own, after the batch's readings are kept: telling a sender may fail.
        for inbound_id, failure in failed:
            log.error("inbound %d could not be read", inbound_id, exc_info=failure.error)
            note = f"reading failed: {type(failure.error).__name__}"
            self._record_failure(inbound_id, failure.error, note=note, mail=failure.mail)
        return len(claimed)

    def _read(self, session: Session, unread: inbox.Unread, ahead: Ahead) -> Read | Unread:
        """What reading `unread` finds, its lookups made in `session` (rolled back when they fail:
        the next mail's lookups start afresh, not in an aborted PostgreSQL transaction)."""
        reading = self._own_failure(read_mail, self.reader, unread)
        if isinstance(reading, Exception):
            return Unread(reading)
        applying = self.applying
        understood = self._own_failure(
            understand,
            session,
            unread,
            reading,
            reply_addresses=applying.reply_addresses,
            limits=applying.limits,
            ahead=ahead,
            now=self.now(),
            trusted_authserv_id=applying.trusted_authserv_id,
        )
        if isinstance(understood, Exception):
            session.rollback()
            return Unread(understood, reading.mail)
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

    def _record_reading(self, session: Session, unread: inbox.Unread, reading: Read, now: datetime) -> None:
        inbox.record_reading(
            session,
            unread.id,
            worker=self.worker.name,
            parsed=reading.stored(),
            keys=reading.keys,
            seconds=reading.seconds,
            peak_kb=reading.peak_kb,
            now=now,
        )

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
        done: list[tuple[InboundStatus, datetime]] = []
        stopped: Exception | None = None
        exhausted = False
        began = time.monotonic()
        try:
            with self.database.transaction() as session:
                while len(batch) < self._batch_size and (not batch or time.monotonic() - began < APPLY_BATCH_SECONDS):
                    # What an earlier mail loaded is read again: each mail sees the rows as they are.
                    session.expire_all()
                    inbound = inbox.claim_ready(session)
                    if inbound is None:
                        exhausted = True
                        break
                    batch.append(inbound.id)
                    try:
                        with session.begin_nested():
                            done.append((self._apply(session, inbound), inbound.received_at))
                    except Exception as error:
                        stopped = error
                        break
                    if not inbound.others_read:
                        exhausted = True  # nothing else was read: a look for more would find none
                        break
                # A mail rolled back may have set it too: then the held mail is only looked at for nothing.
                self._let_go |= session.info.pop(outbox.LET_GO, False)
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
        self._count_done(done)
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

    def _count_done(self, done: list[tuple[InboundStatus, datetime]]) -> None:
        """Count mails whose outcome is committed, and the time each took from its receipt."""
        now = self.now()
        for status, received_at in done:
            self.metrics.mails_done.labels(str(status)).inc()
            self.metrics.processing_seconds.observe(max(0.0, (now - received_at).total_seconds()))

    def _apply(self, session: Session, ready: inbox.Ready) -> InboundStatus:
        """Apply one claimed mail and queue what it decided, in `session`'s transaction; returns how it ended."""
        read = ReadMail.from_stored(ready)
        now = self.now()
        decision = apply_mail(session, read, self.applying, now=now)
        queue_replies(session, self.outgoing, read.inbound_id, read.mail, decision, now=now)
        if decision.status is InboundStatus.IGNORED:
            log.info("inbound %d ignored (automatic mail)", read.inbound_id)
        elif decision.status is InboundStatus.FAILED:
            log.info("inbound %d failed: unreadable", read.inbound_id)
        else:
            log.info(
                "inbound %d processed: %d carried out, %d refused",
                read.inbound_id,
                decision.carried_out,
                decision.refused,
            )
        return decision.status

    # -- failures ------------------------------------------------------------

    def _record_failure(
        self, inbound_id: int, error: Exception, *, note: str | None = None, mail: ParsedMail | None = None
    ) -> None:
        """Mark the mail failed and tell its sender; if telling fails, mark it failed all the same.

        `mail`: what reading found, for a mail that failed before it was stored.
        """
        note = note or f"{type(error).__name__}: {error}"
        try:
            with self.database.transaction() as session:
                applying = self.applying
                record_failure(
                    session,
                    inbound_id,
                    note,
                    mail=mail,
                    answers=applying.answers,
                    outgoing=self.outgoing,
                    reply_addresses=applying.reply_addresses,
                    now=self.now(),
                )
        except Exception as second:
            if classify(second) is Failure.OUTAGE and not self.database.reachable(self.database_timeout):
                raise DatabaseUnavailable(type(second).__name__) from second
            log.error("inbound %d: the sender could not be told of its failure", inbound_id, exc_info=second)
            with self.database.transaction() as session:
                inbox.record_failure(
                    session, inbound_id, f"{note}; the sender could not be told ({type(second).__name__})", self.now()
                )
        self.metrics.mails_done.labels(str(InboundStatus.FAILED)).inc()
