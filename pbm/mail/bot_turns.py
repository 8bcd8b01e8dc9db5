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
import json
import logging
import multiprocessing
import multiprocessing.connection
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from multiprocessing.connection import Connection

from sqlalchemy.orm import Session

import pbm.bots
from pbm.bots.answers import ACCEPT, REJECT, Outcome, Question, encoded, think_forever
from pbm.commands import verbs
from pbm.health.bot_health import BotHealth
from pbm.mail.pipeline.read import BotDecision
from pbm.mail.worker import Worker
from pbm.store import boards, bot_players, inbox
from pbm.store.database import Database
from pbm.store.models import Board, BoardStatus, OfferKind, Player, utcnow
from pbm.views.live import LiveBoard

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


class _Lost(Exception):
    """The thinking process died, or stopped answering (`hung`), with a question under way."""

    def __init__(self, why: str, *, hung: bool = False) -> None:
        super().__init__(why)
        self.hung = hung


HANG_GRACE_SECONDS = 10.0
"""What a search may overrun its seconds by (a busy machine, the answer's way back) before its
process counts as hung. The search itself stops at its seconds (`pbm.bots.choose`)."""
WATCH_SECONDS = 1.0
"""How often the process is looked at between questions: one that died is replaced then."""
MIN_RETRY_SECONDS = 1.0
"""The least a question thought again after its process was lost may think."""
MOST_ANSWER_BYTES = 64 * 1024
"""An outcome is a move or a short error: anything longer is not one."""


class _Thinker:
    """One thinking process (`pbm.bots.answers.think_forever`) and the server's end of its pipe."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # a fresh interpreter, never a fork of the threaded server
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=think_forever, args=(theirs, NICENESS), name="pbm-thinking", daemon=True)
        self.process.start()
        theirs.close()  # theirs is the child's: the server's end sees EOF when the child dies
        self.fresh = True
        """No question asked yet: the first one waits for the process to start, too."""

    def ask(self, question: Question, until: float, *, limit: float, closed: threading.Event) -> Outcome:
        """The process's outcome for `question`, to think about until `until` (`time.time`); `_Lost`
        if it dies or has not answered by `limit` (monotonic), `ThinkingStopped` once `closed` is set."""
        try:
            self.connection.send((until, encoded(question)))
        except OSError as error:
            raise _Lost(f"it took no question ({type(error).__name__})") from error
        waited_on: list[Connection | int] = [self.connection, self.process.sentinel]
        while True:
            if closed.is_set():
                raise ThinkingStopped
            left = limit - time.monotonic()
            if left <= 0:
                raise _Lost("it gave no answer in time", hung=True)
            ready = multiprocessing.connection.wait(waited_on, timeout=min(0.2, left))
            if self.connection in ready:  # an answer sent just before dying still counts
                return self._outcome()
            if self.process.sentinel in ready:
                raise _Lost(self.death())

    def _outcome(self) -> Outcome:
        try:
            said = json.loads(self.connection.recv_bytes(MOST_ANSWER_BYTES))
        except (EOFError, OSError) as error:
            raise _Lost(self.death()) from error
        except ValueError as error:
            raise _Lost(f"it answered what is no outcome ({type(error).__name__})") from error
        if isinstance(said, list) and said[:1] == ["ok"] and len(said) == 2 and isinstance(said[1], str):
            return ("ok", said[1])
        if isinstance(said, list) and said[:1] == ["error"] and len(said) == 3:
            return ("error", str(said[1]), str(said[2]))
        raise _Lost("it answered what is no outcome")

    def death(self) -> str:
        self.process.join(1.0)
        return f"it died (exit code {self.process.exitcode})"

    def alive(self) -> bool:
        return self.process.is_alive()

    def stop(self) -> None:
        self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


class Thinking:
    """`pbm.bots.answers.answer` in a process of its own, one question at a time, at a lower
    priority than the server.

    The process starts with the first question (a fresh interpreter, never a fork of the
    threaded server, importing only the bots and the engines). Questions cross to it as
    `pbm.bots.answers.encoded` bytes and outcomes come back as JSON, so nothing it sends can
    hurt the server. A process that dies (killed, crashed) or stops answering is replaced at
    once and the question thought again, with what is left of its seconds, the new process's
    start included (`MIN_RETRY_SECONDS` at least); `on_replaced` hears why (``died``, ``hung``).
    Only when the new process fails too does the question fail (`ThinkingFailed`). Between
    questions a thread looks at the process every `WATCH_SECONDS` and replaces one that died,
    so the next question does not wait for a start.
    """

    def __init__(
        self, *, on_replaced: Callable[[str], None] | None = None, hang_grace: float = HANG_GRACE_SECONDS
    ) -> None:
        self.hang_grace = hang_grace
        """What a question may take over its seconds before its process counts as hung."""
        self._thinker: _Thinker | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._watching: threading.Thread | None = None
        self.on_replaced = on_replaced

    @property
    def pid(self) -> int | None:
        """The thinking process's id, while there is one (for monitoring and tests)."""
        thinker = self._thinker
        return thinker.process.pid if thinker is not None else None

    def __call__(self, question: Question, seconds: float) -> str:
        with self._lock:
            until = time.time() + seconds  # the thinking process's clock too: its start counts
            try:
                outcome = self._ask(question, until)
            except _Lost as lost:
                self._replace(lost)
                try:
                    outcome = self._ask(question, max(until, time.time() + MIN_RETRY_SECONDS))
                except _Lost as again:
                    self._replace(again)
                    raise ThinkingFailed(f"the thinking process was lost twice: {again}") from again
            if outcome[0] == "error":
                raise ThinkingFailed(f"{outcome[1]}: {outcome[2]}")
            return outcome[1]

    def _ask(self, question: Question, until: float) -> Outcome:
        if self._closed.is_set():
            raise ThinkingStopped
        if self._thinker is not None and not self._thinker.alive():
            self._replace(_Lost(f"between questions {self._thinker.death()}"))
        thinker = self._thinker = self._thinker or _Thinker()
        self._watch()
        seconds = max(0.0, until - time.time())
        limit = time.monotonic() + seconds + self.hang_grace + (START_SECONDS if thinker.fresh else 0.0)
        thinker.fresh = False
        try:
            return thinker.ask(question, until, limit=limit, closed=self._closed)
        except ThinkingStopped:
            self._stop()
            raise

    def _replace(self, lost: _Lost) -> None:
        """Stop the lost process and start its successor now, ready for the next question."""
        reason = "hung" if lost.hung else "died"
        log.error("the bots' thinking process was lost (%s): a new one takes over", lost)
        self._stop()
        if self.on_replaced is not None:
            self.on_replaced(reason)
        if not self._closed.is_set():
            try:
                self._thinker = _Thinker()
            except OSError as error:  # the machine's fault: the next question tries again
                log.error("the bots' thinking process could not start (%s)", error)

    def _watch(self) -> None:
        """Look at the process between questions from now on (once a process has started)."""
        if self._watching is None:
            self._watching = threading.Thread(target=self._watch_forever, name="pbm-thinking-watch", daemon=True)
            self._watching.start()

    def _watch_forever(self) -> None:
        while not self._closed.wait(WATCH_SECONDS):
            with self._lock:  # a question holds it: a death under way is the question's to see
                thinker = self._thinker
                if thinker is not None and not thinker.alive() and not self._closed.is_set():
                    self._replace(_Lost(f"between questions {thinker.death()}"))

    def _stop(self) -> None:
        if self._thinker is not None:
            self._thinker.stop()
            self._thinker = None

    def close(self) -> None:
        """Stop the process (a question being thought about is given up)."""
        self._closed.set()
        with self._lock:
            self._stop()


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
        health: BotHealth | None = None,
    ) -> None:
        self.database = database
        self.think = think
        self.seconds = seconds
        """The wall-clock cap of one decision (``PBM_BOT_SECONDS``)."""
        self.now = now
        self.worker = worker or Worker.here()
        self.on_decided = on_decided
        """Called (in the calling thread) after each decision is committed to the inbox."""
        self.health = health or BotHealth()
        """Told of each answer, searched or not: one without searching is an incident."""
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
        """The bot's answer to its question; when no answer comes (the thinking process was lost
        twice, or the search failed), the playout policy's move (level 1, no search), or no to a
        draw: an incident, logged with the board and counted (`pbm.health.bot_health`)."""
        question = claimed.question
        assert question is not None
        started = time.monotonic()
        try:
            said = self.think(question, self.seconds)
        except ThinkingStopped:
            raise
        except Exception as error:
            self.health.unthought(claimed.game_type, claimed.board)
            log.error(
                "%s at %s %d had no answer (%s); it answers without searching",
                claimed.userid,
                claimed.game_type,
                claimed.board,
                error,
            )
            return REJECT if question.draw else pbm.bots.choose(question.game, question.state, 1, seed=question.seed)
        self.health.searched()
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
