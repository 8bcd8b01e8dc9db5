"""Running the time pass: what is due by the clock, done and its mail queued.

`pbm serve` runs it every minute or so (``PBM_TIME_PASS_SECONDS``) and
``pbm tick`` once, for cron or a systemd timer. Each unit of work (the held
mail let go, one board, the vacations begun or ended, the open challenges
expired, the seeks bots take after ``PBM_BOTS_ANSWER_SEEKS``) is its own
transaction with the mail it causes, so a failure at one board is logged and
leaves the others to go on; only an unreachable database stops the pass.

`rehearse` does the same work at a chosen moment in one transaction that is
rolled back: ``pbm tick --now`` shows what a pass would do and changes nothing.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from pbm.commands import deadlines, digests, finding
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Sender
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.crypto.passwords import Passwords
from pbm.facts import Fact
from pbm.mail.held import HeldMail
from pbm.mail.outgoing import Outgoing, in_their_words
from pbm.store import outbox, players, turns
from pbm.store.database import Database
from pbm.store.errors import DatabaseUnavailable, Failure, classify
from pbm.store.models import utcnow

log = logging.getLogger(__name__)

BATCH = 100
"""Boards one query of the pass fetches."""
PRUNE_BATCH = 5000
"""Sent mails one pass forgets at most: a backlog (the first pass after an upgrade) goes a
transaction of this size a pass, never one that holds the outbox for long."""

Work = Callable[[Session], tuple[list[str], list[str]]]
"""A unit of the pass: what it did (a line each, no addresses), and notes on mail held back."""


@dataclass
class PassReport:
    """What one pass did: a line for each mail it queued or would queue (to whom, what and why; no
    addresses), and the boards it could not finish."""

    at: datetime
    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    pruned: Fact | None = None
    """How much sent mail the pass forgot (`PBM_KEEP_SENT_DAYS`), when it forgot any."""
    rehearsal: bool = False
    held: list[str] = field(default_factory=list)
    """Notes on the mail a rehearsal would hold back (a pass that runs logs them instead)."""


class TimePass:
    def __init__(
        self,
        database: Database,
        passwords: Passwords,
        limits: Limits,
        outgoing: Outgoing,
        held: HeldMail,
        *,
        club: Club = DEFAULT_CLUB,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.database = database
        self.passwords = passwords
        self.limits = limits
        self.outgoing = outgoing
        self.held = held
        self.club = club
        self.now = now

    def run(self, at: datetime | None = None) -> PassReport:
        """Do everything due by `at` (now when None), each unit in its own transaction."""
        return self._pass(at or self.now(), self.database.transaction)

    def let_held_go(self, at: datetime) -> PassReport:
        """Only the first step of a pass: let go the held mail whose time has come by `at`. (Mail
        held under an hourly limit raised since is brought forward by the pass itself: it waits
        for a restart, not for each mail applied.)"""
        report = PassReport(at)
        self._step(report, "held mail", self.database.transaction, self._held_step(at, bring_forward=False))
        return report

    def rehearse(self, at: datetime) -> PassReport:
        """What `run` would do at `at`, in one transaction rolled back at the end: nothing changes."""
        with self.database.rehearsal() as session:

            @contextmanager
            def unit() -> Iterator[Session]:
                with session.begin_nested():
                    yield session

            return self._pass(at, unit, rehearsal=True)

    def _pass(
        self, at: datetime, unit: Callable[[], AbstractContextManager[Session]], *, rehearsal: bool = False
    ) -> PassReport:
        report = PassReport(at, rehearsal=rehearsal)
        # Held mail first: what waited goes before what the pass adds.
        self._step(report, "held mail", unit, self._held_step(at))
        expire = self._queued(lambda session: finding.expire_open_challenges(session, at), at)
        self._step(report, "open challenges", unit, expire)
        tell = self._queued(lambda session: deadlines.tell_of_vacations(self._context(session, at)), at)
        self._step(report, "vacations", unit, tell)
        waited = self.club.bots_answer_seeks
        if waited is not None:
            take = self._queued(lambda session: finding.bots_take_seeks(self._context(session, at), waited), at)
            self._step(report, "seeks bots take", unit, take)
        send = self._queued(lambda session: digests.due(self._context(session, at)), at)
        self._step(report, "digests", unit, send)
        pruned: list[Fact] = []
        if self._step(report, "sent mail", unit, functools.partial(self._prune, at=at, pruned=pruned)):
            report.pruned = pruned[0] if pruned else None
        looked: set[int] = set()
        while True:
            with self.database.reading() as session:
                due = [board_id for board_id in turns.due(session, at, limit=BATCH) if board_id not in looked]
            if not due:
                return report
            for board_id in due:
                looked.add(board_id)
                look = functools.partial(self._look, board_id=board_id, at=at)
                self._step(report, f"board id {board_id}", unit, self._queued(look, at))

    def _prune(self, session: Session, *, at: datetime, pruned: list[Fact]) -> tuple[list[str], list[str]]:
        """Forget the mail that went longer than `Club.keep_sent` before `at`; `pruned` gets the
        fact of it, when there was any."""
        count = outbox.prune_sent(session, done_before=at - self.club.keep_sent, limit=PRUNE_BATCH)
        if count:
            pruned.append(Fact("sent-mail-pruned", count=count, days=f"{self.club.keep_sent / timedelta(days=1):g}"))
        return [], []

    def _held_step(self, at: datetime, *, bring_forward: bool = True) -> Work:
        return lambda session: (self.held.release_due(session, at, bring_forward=bring_forward), [])

    def _look(self, session: Session, *, board_id: int, at: datetime) -> list[OutgoingMail]:
        board = turns.claim(session, board_id, at)
        if board is None:
            return []  # another pass has it, or has just done it
        return deadlines.look(self._context(session, at), board)

    def _context(self, session: Session, at: datetime) -> Context:
        return Context(session, self.passwords, self.limits, Sender(None), now=lambda: at, club=self.club)

    def _queued(self, make: Callable[[Session], list[OutgoingMail]], at: datetime) -> Work:
        """A unit that queues the mails `make` returns, within the limits."""

        def work(session: Session) -> tuple[list[str], list[str]]:
            # In their readers' words from here on: the pass's own report (`pbm tick --now`) shows
            # each mail as its reader gets it, in their language and on their wall clock.
            mails = in_their_words(session, [mail for mail in make(session) if mail.to])
            notes = self.outgoing.queue_unprompted(session, mails, now=at)
            return [self._line(session, mail) for mail in mails], notes

        return work

    def _step(
        self, report: PassReport, what: str, unit: Callable[[], AbstractContextManager[Session]], work: Work
    ) -> bool:
        """Run `work` as one unit; whether it was done (a failure is logged and reported)."""
        try:
            with unit() as session:
                done, notes = work(session)
        except DatabaseUnavailable:
            raise
        except Exception as error:
            kind = classify(error)
            if kind is Failure.OUTAGE:
                raise DatabaseUnavailable(type(error).__name__) from error
            if kind is Failure.PASSING:
                log.warning("the time pass met %s at %s; the next pass tries again", type(error).__name__, what)
            else:
                log.exception("the time pass failed at %s; the next pass tries again", what)
            report.failed.append(what)
            return False
        report.done += done
        if report.rehearsal:
            report.held += notes  # nothing was held: no warning in the log as if it had been
            return True
        for note in notes:
            log.warning("time pass: %s", note)
        return True

    def _line(self, session: Session, mail: OutgoingMail) -> str:
        """A mail as the pass reports it: to whom (their userid, never an address), its subject, and
        why it was sent, as the mail's first paragraph says it."""
        subject, body = self.outgoing.composer.written(mail)
        why = " ".join(body.strip().split("\n\n")[0].split())
        return f"for {_recipient(session, mail)}: {subject} -- {why}"


def _recipient(session: Session, mail: OutgoingMail) -> str:
    """Who a mail goes to, by userid: the player it names, or the players of its address."""
    named = players.by_ids(session, [mail.player_id]) if mail.player_id is not None else []
    return ", ".join(player.userid for player in named or players.with_address(session, mail.to))
