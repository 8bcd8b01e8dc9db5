"""What the pages and the JSON API show, read from the store in one short read session.

Each method runs one page's queries and returns read models (`pbm.views`
and the small ones here), so the HTML and the JSON of a page are made from the
same data and neither touches the database. The methods block: the web app runs
them through `Reads.run`, in a thread of the pages' own.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy.orm import Session

from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.games import Game, all_games
from pbm.games import get as get_game
from pbm.store import board_lists, bounces, players, ratings, turns, vacations
from pbm.store import boards as store_boards
from pbm.store.database import Database
from pbm.store.models import Board, BoardStatus, utcnow
from pbm.timekeeping import clocks
from pbm.views import live
from pbm.views import record as document
from pbm.views.board import BoardView, dice_record
from pbm.views.ladders import BotLadder, bot_ladders
from pbm.views.ratings import RatingView, rating_view
from pbm.views.standing import GameSummary, game_summary

DEFAULT_TIME = clocks.TimeControl()


class PlyOutOfRange(ValueError):
    """A page asked for a ply past the game's last."""

    def __init__(self, plies: int) -> None:
        super().__init__(plies)
        self.plies = plies


PAGE_THREADS = 1
"""Threads the pages read in. Reading a page is mostly Python (rows made into read models), and
Python runs one thread at a time: pages read in many threads at once kept the event loop, where
SMTP is answered, from running (a page flood took a small mail's SMTP time from 6 ms to 0.5 s).
In one thread of their own, pages wait for each other instead, and the default pool stays free
for the mail workers."""

P = ParamSpec("P")
T = TypeVar("T")
FILTERS = {status.value: (status,) for status in BoardStatus} | {"all": board_lists.STATUSES}
"""The status filters of a type's list of boards, by the word the page's query string uses."""


@dataclass(frozen=True)
class TypeOverview:
    """One game type on the front page: its counts and its most recently active games."""

    engine: Game[Any]
    counts: dict[str, int]
    games: list[GameSummary]

    @property
    def active(self) -> int:
        return self.counts.get("active", 0)

    @property
    def over(self) -> int:
        return sum(self.counts.get(status, 0) for status in board_lists.ENDED)


@dataclass(frozen=True)
class BoardList:
    """A page of one type's boards under a filter."""

    engine: Game[Any]
    status: str
    """A key of `FILTERS`."""
    player: str | None
    """Only games this userid plays in, when set."""
    games: list[GameSummary]
    total: int
    newer: int | None
    older: int | None


@dataclass(frozen=True)
class GamePage:
    """One game in full (or as it stood after `ply` plies), and once it is over, the record that
    lets anyone check its dice."""

    view: BoardView
    dice_record: dict[str, Any] | None
    """`pbm verify-dice`'s input: only for a game with dice that has ended."""
    ply: int = 0
    """The plies the page shows played: all of them (`plies`) unless it looks back."""
    plies: int = 0
    """The plies the game has."""
    position: str = ""
    """The position after `ply` plies, in the engine's position notation."""
    turn: str | None = None
    """Whose turn it was after `ply` plies (userid); None once the game was over there."""

    @property
    def looking_back(self) -> bool:
        return self.ply < self.plies


@dataclass(frozen=True)
class Deadline:
    """A game waiting for a player's move, and when they forfeit it unless they move."""

    game: GameSummary
    forfeit_at: datetime
    why: Fact
    """Which time rule the forfeit comes from (`pbm.timekeeping.clocks.Turn.why`)."""
    waited: timedelta
    """How long the game has waited for the move (time away not counted)."""


@dataclass(frozen=True)
class PlayerPage:
    userid: str
    joined: datetime
    signed_off: bool
    ratings: list[RatingView]
    away: list[clocks.Interval]
    """The player's vacations under way or booked."""
    deadlines: list[Deadline]
    """The games waiting for the player's move, the most urgent first."""
    active: list[GameSummary]
    finished: list[GameSummary]
    """The most recent games that are over (finished or cancelled)."""
    mail_stopped_at: datetime | None = None
    """Since when mail to one of the player's addresses stopped, as bounces told (no address shown)."""
    language: str | None = None
    """The language the player chose for their mail (`pbm.i18n.languages`); None: the club's."""
    time_zone: str | None = None
    """The zone the player lives in (an IANA name): the page about them writes its dates in it; None: UTC."""


@dataclass(frozen=True)
class Standings:
    engine: Game[Any]
    rows: list[tuple[int, RatingView]]
    """(rank, rating), best first."""
    total: int
    page: int
    pages: int


def _summaries(games: list[Board]) -> list[GameSummary]:
    return [game_summary(get_game(game.game_type), game) for game in games]


COUNTS_KEPT_SECONDS = 5.0
"""How long counts of games are kept at most, even while the data version stays: a transaction
that commits after a later one leaves the version as it was (see `Counts`)."""


class Counts:
    """Counts of games, kept while the data version (`board_lists.data_version`) stays the same.

    Counting a type's games walks an index entry per game: with 100 000 games it was most of the
    front page's time, yet the counts only change when a game starts or ends, which moves the
    version. A transaction that committed after a later one (its ``updated_at`` older than the
    newest) does not move it: `COUNTS_KEPT_SECONDS` bounds how long such a count can lag.
    """

    most = 1000
    """Counts kept at most (one per type, status filter and player seen): past it, all are let go."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._version: object = None
        self._since = 0.0
        self._kept: dict[Hashable, Any] = {}

    def get(self, session: Session, key: Hashable, count: Callable[[], T]) -> T:
        """The count under `key` as of `session`'s data, from `count()` unless kept for this version."""
        version = board_lists.data_version(session)
        with self._lock:
            now = self.clock()
            if version != self._version or now - self._since > COUNTS_KEPT_SECONDS or len(self._kept) > self.most:
                self._kept, self._version, self._since = {}, version, now
            if key in self._kept:
                return cast(T, self._kept[key])
        counted = count()
        with self._lock:
            if self._version == version:
                self._kept[key] = counted
        return counted


class Reads:
    front_page_games = 20
    """Current games shown per type on the front page; the type's page lists them all."""
    page_size = 50
    player_recent = 50
    """Games that are over shown on a player's page; the type pages filtered by player list them all."""
    player_active = 1000
    """A bound on a player's current games shown, far above what anyone plays at once."""

    def __init__(
        self,
        database: Database,
        *,
        time_control: clocks.TimeControl = DEFAULT_TIME,
        now: Callable[[], datetime] = utcnow,
        threads: int = PAGE_THREADS,
    ) -> None:
        self.database = database
        self.time_control = time_control
        """The time rules of games from before rules were stored: the club's."""
        self.now = now
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="pbm-page")
        self.counts = Counts()

    async def run(self, read: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`read(*args, **kwargs)`, one of these methods, in the pages' thread (`PAGE_THREADS`)."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, functools.partial(read, *args, **kwargs))

    def bots(self) -> list[BotLadder]:
        """Every game's bots with their measured strength: read from the ladder's file, not the database."""
        return bot_ladders()

    def overview(self) -> list[TypeOverview]:
        engines = all_games()
        with self.database.reading() as session:
            counts = self.counts.get(session, "by type", lambda: board_lists.counts_by_type(session))
            latest = board_lists.latest_games(
                session, [engine.name for engine in engines], "active", limit=self.front_page_games
            )
            return [
                TypeOverview(engine, counts.get(engine.name, {}), _summaries(latest[engine.name])) for engine in engines
            ]

    def boards(
        self,
        engine: Game[Any],
        *,
        status: str = "active",
        player: str | None = None,
        before: int | None = None,
        after: int | None = None,
    ) -> BoardList | None:
        """A page of boards; ``None`` when `player` names nobody."""
        with self.database.reading() as session:
            seated = None
            if player is not None:
                seated = players.find(session, player)
                if seated is None:
                    return None
            statuses = FILTERS[status]
            total = self.counts.get(
                session,
                (engine.name, status, seated.id if seated is not None else None),
                lambda: board_lists.count(session, engine.name, statuses, seated),
            )
            page = board_lists.boards(
                session,
                engine.name,
                statuses=statuses,
                player=seated,
                before=before,
                after=after,
                limit=self.page_size,
                total=total,
            )
            return BoardList(
                engine,
                status,
                seated.userid if seated is not None else None,
                _summaries(page.games),
                page.total,
                page.newer,
                page.older,
            )

    def game(self, engine: Game[Any], board: int, ply: int | None = None) -> GamePage | None:
        """One game in full, as a reader who holds no seat sees it, or as it stood after `ply`
        plies; ``None`` when there is no such board. Raises `PlyOutOfRange` past its last ply."""
        with self.database.reading() as session:
            game = live.load(session, engine.name, board)
            if game is None:
                return None
            plies = game.row.move_count
            if ply is not None and ply > plies:
                raise PlyOutOfRange(plies)
            if ply is None or ply == plies:
                # The snapshot the board's mails are views of, seen from no seat.
                snapshot = live.snapshot(session, game, now=self.now(), club_rules=self.time_control)
            else:
                snapshot = live.earlier(session, game, ply)
            view = snapshot.view(with_cells=True)
            state = snapshot.state
            over = engine.result(state) is not None or (snapshot.at_move is None and not game.active)
            return GamePage(
                view,
                dice_record(engine, game.row, state, snapshot.moves) if snapshot.at_move is None else None,
                ply=plies if ply is None else ply,
                plies=plies,
                position=engine.to_position(state),
                turn=None if over else game.player_at(state.to_move).userid,
            )

    def record(self, engine: Game[Any], board: int, *, site: str, signing: SigningKeys | None) -> dict[str, Any] | None:
        """The game's record (`pbm.views.record`), signed when the server has keys; ``None``
        when there is no such board."""
        with self.database.reading() as session:
            game = live.load(session, engine.name, board)
            if game is None:
                return None
            moves = store_boards.moves_of(session, game.row)
            record = document.build(engine, game.row, game.state, moves, site=site, generated=self.now())
            return document.sign(record, signing) if signing is not None else record

    def player(self, userid: str) -> PlayerPage | None:
        with self.database.reading() as session:
            player = players.find(session, userid)
            if player is None:
                return None
            active = board_lists.games_of(session, player, statuses=(BoardStatus.ACTIVE,), limit=self.player_active)
            now = self.now()
            return PlayerPage(
                userid=player.userid,
                language=player.language,
                time_zone=player.time_zone,
                joined=player.created_at,
                signed_off=not player.active,
                ratings=[rating_view(get_game(r.game_type), r) for r in ratings.of_player(session, player)],
                away=[clocks.Interval(v.starts_at, v.ends_at) for v in vacations.of(session, player, now)],
                deadlines=[] if player.is_bot else self._deadlines(session, player.id, active, now),
                active=_summaries(active),
                finished=_summaries(
                    board_lists.games_of(session, player, statuses=board_lists.ENDED, limit=self.player_recent)
                ),
                mail_stopped_at=min(
                    (
                        row.stopped_at
                        for row in bounces.of_addresses(session, [a.address for a in player.addresses]).values()
                        if row.stopped_at is not None
                    ),
                    default=None,
                ),
            )

    def deadlines(self, userid: str) -> tuple[str, str | None, list[Deadline]] | None:
        """The games waiting for `userid`'s move with their forfeit times (for a calendar), after the
        player's userid and language (None: the club's); None: no such player."""
        with self.database.reading() as session:
            player = players.find(session, userid)
            if player is None:
                return None
            active = board_lists.games_of(session, player, statuses=(BoardStatus.ACTIVE,), limit=self.player_active)
            # A bot has no deadline: it moves by itself, and never forfeits.
            waiting = [] if player.is_bot else self._deadlines(session, player.id, active, self.now())
            return player.userid, player.language, waiting

    def _deadlines(self, session: Session, player_id: int, active: list[Board], now: datetime) -> list[Deadline]:
        waiting = []
        to_move = [
            game for game in active if game.to_move is not None and game.seats[game.to_move].player_id == player_id
        ]
        # All the turns at once: the page costs the same few statements however many games wait.
        turns_now = turns.turns_of(session, to_move, now, self.time_control)
        for game in to_move:
            turn = turns_now.get(game.id)
            if turn is not None and turn.forfeit_at < clocks.FOREVER:
                summary = game_summary(get_game(game.game_type), game)
                waiting.append(Deadline(summary, turn.forfeit_at, turn.why, turn.waited))
        return sorted(waiting, key=lambda deadline: deadline.forfeit_at)

    def standings(self, engine: Game[Any], page: int = 1) -> Standings:
        with self.database.reading() as session:
            offset = (page - 1) * self.page_size
            rated, total = ratings.standings(session, engine.name, offset=offset, limit=self.page_size)
            rows = [(offset + i + 1, rating_view(engine, r)) for i, r in enumerate(rated)]
            return Standings(engine, rows, total, page, max(1, -(-total // self.page_size)))
