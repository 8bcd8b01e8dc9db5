"""Whether this server's bots are thinking: a bot that answers without searching is an incident.

A bot whose question gets no answer from the thinking process (`pbm.mail.bot_turns.Thinking`
lost it twice, or the search failed) still plays, so its game goes on: level 1's quick move,
or no to a draw. That is never the normal path. `BotHealth` is where one ``pbm serve``
process keeps what it saw: `pbm.mail.bot_turns.BotTurns` reports each answer, searched or
not, and each thinking process replaced; the web app reads it for ``/healthz`` and the
``/bots`` page; the metrics count the incidents (``pbm_bot_unthought_answers_total`` by game,
``pbm_bot_thinking_replaced_total`` by reason). `pbm.serving.server` makes one and hands it to both.

>>> from datetime import datetime, timezone
>>> health = BotHealth(now=lambda: datetime(2026, 11, 28, 15, 0, tzinfo=timezone.utc))
>>> health.report().normally
True
>>> health.unthought("dodeca", 103)
>>> report = health.report()
>>> report.normally, report.since.isoformat(), report.unthought, report.last_board
(False, '2026-11-28T15:00:00+00:00', 1, ('dodeca', 103))
>>> health.searched()
>>> health.report().normally, health.report().unthought
(True, 1)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class BotsThinking:
    """What `BotHealth` saw, at one moment."""

    normally: bool
    """True unless the last answer was played without searching."""
    since: datetime | None
    """When the answers without searching under way began (None while thinking normally)."""
    unthought: int
    """Answers played without searching since this process started."""
    replaced: int
    """Thinking processes replaced (died or hung) since this process started."""
    last_board: tuple[str, int] | None
    """The game and board number of the last answer played without searching."""

    def to_json(self) -> dict[str, Any]:
        """What ``/healthz`` shows under ``bots``."""
        return {
            "thinking": "normally" if self.normally else "without searching",
            "since": self.since.isoformat() if self.since is not None else None,
            "unthought_answers": self.unthought,
            "thinking_replaced": self.replaced,
        }


class BotHealth:
    """Whether the bots of one ``pbm serve`` process are thinking (see the module's docstring).

    `on_unthought(game)` and `on_replaced(reason)` count the incidents (the metrics). Thread-safe:
    the bots' thread reports, the web app's reads.
    """

    def __init__(
        self,
        *,
        now: Callable[[], datetime] = _utcnow,
        on_unthought: Callable[[str], None] | None = None,
        on_replaced: Callable[[str], None] | None = None,
    ) -> None:
        self.now = now
        self.on_unthought = on_unthought
        self.on_replaced = on_replaced
        self._lock = threading.Lock()
        self._since: datetime | None = None
        self._unthought = 0
        self._replaced = 0
        self._last_board: tuple[str, int] | None = None

    def searched(self) -> None:
        """A bot answered from its search: thinking is normal again."""
        with self._lock:
            self._since = None

    def unthought(self, game: str, board: int) -> None:
        """A bot at `game` `board` answered without searching."""
        with self._lock:
            self._unthought += 1
            self._last_board = (game, board)
            if self._since is None:
                self._since = self.now()
        if self.on_unthought is not None:
            self.on_unthought(game)

    def replaced(self, reason: str) -> None:
        """A thinking process was lost (`reason`: ``died`` or ``hung``) and replaced."""
        with self._lock:
            self._replaced += 1
        if self.on_replaced is not None:
            self.on_replaced(reason)

    def report(self) -> BotsThinking:
        with self._lock:
            return BotsThinking(self._since is None, self._since, self._unthought, self._replaced, self._last_board)
