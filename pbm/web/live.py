"""Live updates: which games changed, told to open pages as server-sent events.

Moves land in two ways: the processing worker of this server (which wakes the
feed right after its commit, so pages update at once), or another process on
the same database, a ``pbm process`` pipe or a second ``pbm serve`` (which
cannot reach us, so the feed also polls). Polling and waking run the same
query: games whose ``updated_at`` lies in the last `window` (an indexed range,
a handful of rows), compared with what the feed saw before. The window, not a
high-water mark, catches a transaction that commits after a later one: its
``updated_at`` is older, but it is still news. While no page follows the feed,
wakes are taken together, one look per `idle_seconds` at most: a busy server
with nobody watching does not query after every batch of mail.

Every change the feed notices gets the next number of this process's sequence.
A page embeds the feed's `position` read *before* its queries; its event
stream asks for the changes after it, so a move committed between the page's
queries and the stream's start is replayed, never lost. The feed keeps the last
`keep` changes for that; a client further behind (or from before a restart,
told apart by the `epoch`) is sent a ``reset`` and refreshes once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbm.store import board_lists
from pbm.store.database import Database
from pbm.store.models import Board, BoardStatus, utcnow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Change:
    """A game that changed, with the public facts a page needs to decide to refresh."""

    seq: int
    game_type: str
    board: int
    status: str
    move_count: int
    to_move: str | None
    """The userid to move, while the game is active."""
    players: tuple[str, ...]
    updated_at: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game_type,
            "board": self.board,
            "status": self.status,
            "move_count": self.move_count,
            "to_move": self.to_move,
            "players": list(self.players),
            "updated_at": self.updated_at.isoformat(),
        }


RESET = "reset"
"""Sent instead of changes the feed no longer has: the page refreshes once."""
KEEP_ALIVE_SECONDS = 15.0
"""A quiet stream sends a comment this often, so that no proxy between takes it for dead."""


def _change(seq: int, game: Board) -> Change:
    players = tuple(seat.player.userid for seat in game.seats)
    to_move = players[game.to_move] if game.status == BoardStatus.ACTIVE and game.to_move is not None else None
    return Change(seq, game.game_type, game.board, game.status, game.move_count, to_move, players, game.updated_at)


class GameChanges:
    def __init__(
        self,
        database: Database,
        *,
        poll_seconds: float = 2.0,
        quiet_seconds: float = 0.25,
        idle_seconds: float = 15.0,
        window: timedelta = timedelta(seconds=60),
        keep: int = 1000,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.database = database
        self.poll_seconds = poll_seconds
        self.quiet_seconds = quiet_seconds
        """The least time between two looks: a burst of moves costs one query, not one each."""
        self.idle_seconds = idle_seconds
        """While no page follows the feed, how long a wake may wait for a page to start following:
        a busy server then looks this often, not after every batch; well inside `window`, so no
        change leaves the window unseen."""
        self.window = window
        self.now = now
        self.epoch = secrets.token_hex(4)
        self._seq = 0
        self._recent: deque[Change] = deque(maxlen=keep)
        self._seen: dict[int, tuple[datetime, int, str]] = {}
        self._listeners: set[asyncio.Queue[Change | None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._followed: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def position(self) -> str:
        """Where the feed stands: a page embeds it, its event stream continues from it."""
        return f"{self.epoch}-{self._seq}"

    # -- running -------------------------------------------------------------

    async def start(self) -> None:
        """Note what is there already (no page is open yet), then watch for changes."""
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        self._followed = asyncio.Event()
        self._looking = asyncio.Lock()
        await asyncio.to_thread(self._poll)
        self._task = asyncio.create_task(self._watch(), name="game-changes")

    async def close(self) -> None:
        """Stop watching and end every event stream (so the web server can stop)."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        for queue in self._listeners:
            queue.put_nowait(None)

    def wake(self) -> None:
        """Look for changes now; safe to call from any thread (the processing worker's)."""
        if self._loop is None or self._wakeup is None:
            return  # not started: nobody is listening (e.g. `pbm process`)
        with contextlib.suppress(RuntimeError):  # the loop has closed: the server is stopping
            self._loop.call_soon_threadsafe(self._wakeup.set)

    async def settled_position(self) -> str:
        """The position once every change this process has announced is taken in.

        A page reads it before its queries: a move committed just before must
        not reach the page's stream again as news (the feed waits a moment
        between looks, so a wake may still be pending).
        """
        if self._wakeup is not None and self._wakeup.is_set():
            await self._look()
        return self.position

    async def _watch(self) -> None:
        while True:
            await self._until_look()
            try:
                await self._look()
            except Exception:
                log.exception("looking for changed games failed; trying again")
                await asyncio.sleep(self.poll_seconds)
                continue
            await asyncio.sleep(self.quiet_seconds)  # wakes meanwhile are taken together after it

    async def _until_look(self) -> None:
        """Wait for the next look. While pages follow the feed: a wake, or `poll_seconds` (for
        other processes' moves). While none does: a wake, then `idle_seconds` or until a page
        starts following; a page that opens meanwhile looks first (`settled_position`)."""
        assert self._wakeup is not None and self._followed is not None
        if self._listeners:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_seconds):
                    await self._wakeup.wait()
            return
        await self._wakeup.wait()
        if self._listeners:
            return  # the wake was a stream starting to follow
        self._followed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.idle_seconds):
                await self._followed.wait()

    async def _look(self) -> None:
        async with self._looking:  # one look at a time: they share what was seen
            assert self._wakeup is not None
            self._wakeup.clear()
            for game in await asyncio.to_thread(self._poll):
                self._publish(game)

    def _poll(self) -> list[Board]:
        """Games changed since the last look, judged over the window."""
        cutoff = self.now() - self.window
        with self.database.reading() as session:
            # The marks are cheap; whole rows are read only for the games that are news.
            marks = board_lists.change_marks(session, cutoff)
            fresh = [game_id for game_id, mark in marks.items() if self._seen.get(game_id) != mark]
            games = board_lists.listed_games(session, fresh)
        self._seen.update((game_id, marks[game_id]) for game_id in fresh)
        self._seen = {id_: mark for id_, mark in self._seen.items() if mark[0] >= cutoff}
        return games

    def _publish(self, game: Board) -> None:
        self._seq += 1
        change = _change(self._seq, game)
        self._recent.append(change)
        for queue in self._listeners:
            queue.put_nowait(change)

    # -- listening -----------------------------------------------------------

    def _backlog(self, after: str | None) -> list[Change] | None:
        """The kept changes after position `after`; ``None`` when they are no longer all kept."""
        if not after:
            return []
        epoch, _, number = after.partition("-")
        # ASCII digits of a sequence's length: isdigit() alone takes "²", and int() fails on 4 300 digits
        if epoch != self.epoch or not (number.isascii() and number.isdigit()) or len(number) > 18:
            return None
        if int(number) > self._seq:
            return None
        seq = int(number)
        if seq < self._seq and (not self._recent or self._recent[0].seq > seq + 1):
            return None
        return [change for change in self._recent if change.seq > seq]

    async def follow(
        self, after: str | None, *, heartbeat: float = KEEP_ALIVE_SECONDS
    ) -> AsyncGenerator[Change | str | None, None]:
        """The changes after `after`, then each new one as it comes; ends when the feed closes.

        Yields `RESET` when the changes after `after` are gone, and ``None``
        after `heartbeat` seconds without news (the caller sends a keep-alive).
        """
        if self._closed:
            return  # the server is stopping: a stream opened now ends at once
        queue: asyncio.Queue[Change | None] = asyncio.Queue()
        self._listeners.add(queue)
        if self._wakeup is not None and self._followed is not None:
            self._wakeup.set()  # the feed may have been idle without listeners
            self._followed.set()
        try:
            backlog = self._backlog(after)
            if backlog is None:
                yield RESET
            else:
                for change in backlog:
                    yield change
            while True:
                try:
                    async with asyncio.timeout(heartbeat):
                        item = await queue.get()
                except TimeoutError:
                    yield None
                    continue
                if item is None:
                    return
                yield item
        finally:
            self._listeners.discard(queue)


@dataclass(frozen=True)
class Interest:
    """Which changes a page cares about: a type, a board of it, or a player's games."""

    game_type: str | None = None
    board: int | None = None
    player: str | None = None

    def __contains__(self, change: Change) -> bool:
        return (
            (self.game_type is None or change.game_type == self.game_type)
            and (self.board is None or change.board == self.board)
            and (self.player is None or self.player in change.players)
        )


async def event_stream(
    changes: GameChanges, after: str | None, interest: Interest, *, idle_seconds: float
) -> AsyncIterator[str]:
    """The feed as ``text/event-stream``: ``change`` events as JSON, ``reset``, keep-alives.

    A stream that has sent no event for `idle_seconds` ends: an idle page then
    holds no connection for good. Its last words are the feed position it has
    seen up to, and the browser opens the stream again from there after
    ``retry``, so it misses nothing, and passes over no more than it did.
    """
    yield "retry: 3000\n\n"
    loop = asyncio.get_running_loop()
    quiet_since = loop.time()
    seen: str | None = None
    async with contextlib.aclosing(changes.follow(after, heartbeat=min(KEEP_ALIVE_SECONDS, idle_seconds))) as feed:
        async for item in feed:
            if isinstance(item, Change):
                seen = f"{changes.epoch}-{item.seq}"
            if item == RESET:
                event = f"id: {changes.position}\nevent: reset\ndata: {{}}\n\n"
            elif isinstance(item, Change) and item in interest:
                event = f"id: {seen}\nevent: change\ndata: {json.dumps(item.as_json())}\n\n"
            else:
                event = None
            if event is not None:
                quiet_since = loop.time()
                yield event
            elif loop.time() - quiet_since >= idle_seconds:
                if seen is not None:
                    yield f"id: {seen}\n\n"  # an id alone moves the browser's Last-Event-ID
                return
            elif item is None:
                yield ": keep-alive\n\n"
