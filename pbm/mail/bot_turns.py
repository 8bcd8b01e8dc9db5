"""Bots' turns: found, claimed, thought about outside the mail workers, and put into the inbox.

A bot (`pbm.store.bot_players`) plays as a player would who answers every board mail at once:
its move, or its vote on a proposal, is its reply to the board as the last board mail showed
it. `BotTurns.play_due` does, for each board where a bot has something to do:

1. **Claim** the task (``move 12``: the move after move 12; or a vote on the proposal waiting),
   in a transaction of its own, for this worker and a lease (`bot_players.claim`): with several
   `pbm serve` workers on one database, each turn is thought about once. The claim reads what
   the bot may see: the position, with a stand-in for what is secret (a Dodeca dice seed).
2. **Think**, outside any transaction and outside the mail workers: `think` is `Thinking` in
   `pbm serve`, a process of its own that runs `pbm.bots` at a lower priority than the server,
   within ``PBM_BOT_SECONDS`` a move. Mail is read and applied meanwhile as ever.
3. **Decide**: the decision goes into the inbox as the bot's reply to the board at that move
   (`inbox.save_read`, with the keys that reply would have), in one transaction with the claim
   marked decided. The mail workers apply it in its turn among the mail naming the board, by
   the command the reply would be (`BotDecision.command`): the same checks (a board that moved
   on meanwhile refuses it as the ``#N`` of a stale move), the same mails to the others, the
   queues played after it, the proposals it withdraws.

Why the inbox rather than a transaction of the bot's own: the inbox is the one ordered queue
of what players do at a board. A mail received before the bot decided, and not applied yet (a
resignation, a proposal), is applied first, as it would be before another player's mail; the
decision, once committed, is applied exactly once, after a crash too; and a bot's move takes
no path a player's move does not.

How a bot votes: on a draw, yes when its search gives it less than half an even share of the
win (`pbm.bots.answers`: with two players, under one chance in four); on taking back a move,
yes when the move is the proposer's own (a slip), and no to taking back anyone else's.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from multiprocessing.pool import Pool

from sqlalchemy.orm import Session

import pbm.bots
from pbm.bots.answers import ACCEPT, REJECT, Question, answer
from pbm.commands import verbs
from pbm.live import LiveBoard
from pbm.mail.pipeline.read import BotDecision
from pbm.mail.worker import Worker
from pbm.store import boards, bot_players, inbox
from pbm.store.database import Database
from pbm.store.models import Board, BoardStatus, OfferKind, Player, utcnow

log = logging.getLogger(__name__)

BATCH = 100
"""Boards one look finds at most; the next look finds the rest."""
START_SECONDS = 30.0
"""What the thinking process may take to start, over a move's own seconds."""
NICENESS = 10
"""How much lower the thinking process runs than the server: mail first."""


Think = Callable[[Question, float], str]
"""Answers a question within about that many seconds (`pbm.bots.answers.answer`, run somewhere)."""


class ThinkingFailed(Exception):
    """The thinking process gave no answer in time, or failed."""


class ThinkingStopped(ThinkingFailed):
    """The server is stopping: the question is left for after the restart."""


class Thinking:
    """`pbm.bots.answers.answer` in a process of its own, one question at a time, at a lower
    priority than the server.

    The process starts with the first question (a fresh interpreter, never a fork of the
    threaded server, importing only the bots and the engines) and is replaced when it misses
    its time.
    """

    def __init__(self) -> None:
        self._pool: Pool | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def __call__(self, question: Question, seconds: float) -> str:
        with self._lock:
            if self._closed.is_set():
                raise ThinkingStopped
            if self._pool is None:
                self._pool = multiprocessing.get_context("spawn").Pool(1, initializer=_lower_priority)
            pending = self._pool.apply_async(answer, (question, seconds))
            deadline = time.monotonic() + seconds + START_SECONDS
            while not pending.ready():
                if self._closed.is_set():
                    self._stop()
                    raise ThinkingStopped
                if time.monotonic() > deadline:
                    self._stop()
                    raise ThinkingFailed(f"no answer within {seconds + START_SECONDS:.0f} s")
                pending.wait(0.2)
            try:
                return str(pending.get())
            except Exception as error:
                raise ThinkingFailed(f"{type(error).__name__}: {error}") from error

    def _stop(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def close(self) -> None:
        """Stop the process (a question being thought about is given up)."""
        self._closed.set()
        with self._lock:
            self._stop()


def _lower_priority() -> None:
    os.nice(NICENESS)


@dataclass(frozen=True)
class Claimed:
    """A task this worker claimed: who decides what, at which board and move."""

    board_id: int
    player_id: int
    userid: str
    game_type: str
    board: int
    task: str
    at_ply: int
    question: Question | None = None
    """What to think about; None when the answer needs no search (`vote`)."""
    vote: bool | None = None
    """The bot's vote, when it is one decided without thinking (on taking back a move)."""


class BotTurns:
    """Plays the bots' turns that are due (see the module's docstring)."""

    def __init__(
        self,
        database: Database,
        think: Think,
        *,
        seconds: float,
        now: Callable[[], datetime] = utcnow,
        worker: Worker | None = None,
        on_decided: Callable[[], None] | None = None,
    ) -> None:
        self.database = database
        self.think = think
        self.seconds = seconds
        """The wall-clock cap of one decision (``PBM_BOT_SECONDS``)."""
        self.now = now
        self.worker = worker or Worker.here()
        self.on_decided = on_decided
        """Called (in the calling thread) after each decision is committed to the inbox."""
        self.lease = timedelta(seconds=2 * seconds + START_SECONDS)
        self._bots: dict[int, Player] = {}
        self._served: dict[int | None, int] = {}
        """When each owner's game was last thought about here, by `_serving`'s count (`to_act`)."""
        self._serving = itertools.count()

    def play_due(self) -> int:
        """Decide every bot turn due, one after the other, each time the one `bot_players.to_act`
        puts first now (a turn that came due meanwhile may go before those found earlier); returns
        how many decisions went into the inbox."""
        decided = 0
        looked_at: set[bot_players.Due] = set()
        while (due := self._next_due(looked_at)) is not None:
            looked_at.add(due)
            claimed = self._claim(due.board_id, self._bots[due.player_id])
            if claimed is None:
                continue
            self._served[due.owner_id] = next(self._serving)
            if claimed.question is None:
                said = ACCEPT if claimed.vote else REJECT
            else:
                try:
                    said = self._thought(claimed)
                except ThinkingStopped:
                    self._let_go(claimed)
                    break
            if self._decide(claimed, said):
                decided += 1
                if self.on_decided is not None:
                    self.on_decided()
        return decided

    def _next_due(self, looked_at: set[bot_players.Due]) -> bot_players.Due | None:
        """The task to think about next: the first `to_act` gives that this look did not try yet (of
        every bot signed up by now: a look lasts as long as turns keep coming due)."""
        bots = self._the_bots()
        with self.database.reading() as session:
            due = bot_players.to_act(session, list(bots), now=self.now(), limit=BATCH, served=self._served)
        return next((task for task in due if task not in looked_at), None)

    def _the_bots(self) -> dict[int, Player]:
        """The club's bots by player id: those signed up so far (the first game with one signs it up)."""
        if len(self._bots) < bot_players.most_levels():
            with self.database.reading() as session:
                found = bot_players.all_bots(session)
                session.expunge_all()
            self._bots = {bot.id: bot for bot in found}
        return self._bots

    def _claim(self, board_id: int, bot: Player) -> Claimed | None:
        """Claim what `bot` has to do at the board, if it still has something and nobody else took it."""
        with self.database.transaction() as session:
            task = _task(session, board_id, bot)
            if task is None:
                return None
            row, name, ply = task
            now = self.now()
            claim = bot_players.claim(
                session,
                board_id,
                bot.id,
                name,
                worker=self.worker.name,
                now=now,
                lease=self.lease,
            )
            if claim is bot_players.Claim.GIVEN_UP:
                log.error(
                    "%s gives up %s at %s %d: its decisions were refused", bot.userid, name, row.game_type, row.board
                )
            if claim is not bot_players.Claim.TAKEN:
                return None
            return _claimed(session, row, bot, name, ply)

    def _thought(self, claimed: Claimed) -> str:
        """The bot's answer to its question; when no answer comes (the search missed its time, or
        failed), the playout policy's move (level 1, no search), or no to a draw."""
        question = claimed.question
        assert question is not None
        started = time.monotonic()
        try:
            said = self.think(question, self.seconds)
        except ThinkingStopped:
            raise
        except Exception as error:
            log.warning(
                "%s at %s %d had no answer (%s); it answers without searching",
                claimed.userid,
                claimed.game_type,
                claimed.board,
                error,
            )
            return REJECT if question.draw else pbm.bots.choose(question.game, question.state, 1, seed=question.seed)
        log.info(
            "%s at %s %d: %s (%.1f s)",
            claimed.userid,
            claimed.game_type,
            claimed.board,
            said,
            time.monotonic() - started,
        )
        return said

    def _let_go(self, claimed: Claimed) -> None:
        """Leave `claimed` undecided, for anyone to claim again."""
        with self.database.transaction() as session:
            row = bot_players.still_claimed(
                session, claimed.board_id, claimed.player_id, claimed.task, worker=self.worker.name
            )
            if row is not None:
                bot_players.let_go(row)

    def _decide(self, claimed: Claimed, said: str) -> bool:
        """Put the decision into the inbox, if the claim is still this worker's and the board has not
        moved on (else nobody needs it); whether it went in."""
        now = self.now()
        with self.database.transaction() as session:
            row = bot_players.still_claimed(
                session, claimed.board_id, claimed.player_id, claimed.task, worker=self.worker.name
            )
            if row is None:
                return False
            board = session.get(Board, claimed.board_id)
            if board is None or board.status != BoardStatus.ACTIVE or board.move_count != claimed.at_ply:
                bot_players.let_go(row)
                return False
            if claimed.question is not None and not claimed.question.draw:
                decision = BotDecision(claimed.userid, claimed.game_type, claimed.board, claimed.at_ply, move=said)
            else:
                decision = BotDecision(
                    claimed.userid, claimed.game_type, claimed.board, claimed.at_ply, accept=said == ACCEPT
                )
            command = decision.command()
            what = f"Subject: {claimed.userid} at {claimed.game_type} {claimed.board} after move {claimed.at_ply}"
            raw = f"Auto-Submitted: auto-generated\r\n{what}: {command.line}\r\n\r\n{command.line}\r\n".encode()
            inbound_id = inbox.save_read(
                session,
                raw,
                sender=f"{claimed.userid} (bot)",
                parsed=decision.stored(),
                keys=verbs.ordering_keys(command),
                now=now,
            )
            bot_players.decided(row, inbound_id)
        return True


def _task(session: Session, board_id: int, bot: Player) -> tuple[Board, str, int] | None:
    """What `bot` has to do at the board: its vote on the proposal waiting, else its move (the
    board, the task's name and the move it comes after); None when nothing."""
    row = boards.by_id(session, board_id)
    if row is None or row.status != BoardStatus.ACTIVE:
        return None
    seat = boards.seat_of(row, bot)
    if seat is None:
        return None
    ply = row.move_count
    offer = row.offer
    if offer is not None and seat not in offer.accepted and seat in LiveBoard(row).seats_in_play():
        return row, f"vote {ply} {offer.kind} {offer.created_at.isoformat()}"[:64], ply
    if row.to_move == seat:
        return row, f"move {ply}", ply
    return None


def _claimed(session: Session, row: Board, bot: Player, task: str, ply: int) -> Claimed:
    """The claimed `task` with what deciding it needs, read in the claim's transaction."""
    board = LiveBoard(row)
    seat = boards.seat_of(row, bot)
    assert seat is not None and bot.bot_level is not None
    claimed = Claimed(row.id, bot.id, bot.userid, row.game_type, row.board, task, ply)
    offer = row.offer
    seen = board.engine.with_stand_in_secret(board.state)  # never the real dice seed
    seed = f"{row.id}:{ply}:{bot.bot_level}"
    if not task.startswith("vote"):
        question = Question(row.game_type, seen, bot.bot_level, seat, seed)
        return replace(claimed, question=question)
    assert offer is not None
    if offer.kind == OfferKind.UNDO:
        last = boards.recent_moves(session, row, 1).moves
        slip = bool(last) and last[-1].seat == offer.proposer
        return replace(claimed, vote=slip)
    question = Question(row.game_type, seen, bot.bot_level, seat, seed, draw=True, in_play=len(board.seats_in_play()))
    return replace(claimed, question=question)
