"""What the pages and the JSON API show, read from the store in one short read session.

Each method runs one page's queries and returns read models (`pbm.commands.views`
and the small ones here), so the HTML and the JSON of a page are made from the
same data and neither touches the database. The methods block: the web app runs
them in a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm.commands.ratings import is_provisional
from pbm.commands.views import BoardView, GameSummary, board_view, dice_record, game_summary
from pbm.games import Game as Engine
from pbm.games import all_games
from pbm.games import get as get_game
from pbm.store import listing
from pbm.store import repository as repo
from pbm.store.database import Database
from pbm.store.models import Game, Rating

FILTERS = {"active": ("active",), "finished": ("finished",), "cancelled": ("cancelled",), "all": listing.STATUSES}
"""The status filters of a type's list of boards, by the word the page's query string uses."""


@dataclass(frozen=True)
class TypeOverview:
    """One game type on the front page: its counts and its most recently active games."""

    engine: Engine[Any]
    counts: dict[str, int]
    games: list[GameSummary]

    @property
    def active(self) -> int:
        return self.counts.get("active", 0)

    @property
    def over(self) -> int:
        return self.counts.get("finished", 0) + self.counts.get("cancelled", 0)


@dataclass(frozen=True)
class BoardList:
    """A page of one type's boards under a filter."""

    engine: Engine[Any]
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
    """One game in full, and once it is over, the record that lets anyone check its dice."""

    view: BoardView
    dice_record: dict[str, Any] | None
    """`pbm verify-dice`'s input: only for a game with dice that has ended."""


@dataclass(frozen=True)
class RatingView:
    game_type: str
    title: str
    userid: str
    rating: int
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool


@dataclass(frozen=True)
class PlayerPage:
    userid: str
    joined: datetime
    signed_off: bool
    ratings: list[RatingView]
    active: list[GameSummary]
    finished: list[GameSummary]
    """The most recent games that are over (finished or cancelled)."""


@dataclass(frozen=True)
class Standings:
    engine: Engine[Any]
    rows: list[tuple[int, RatingView]]
    """(rank, rating), best first."""
    total: int
    page: int
    pages: int


def _summaries(games: list[Game]) -> list[GameSummary]:
    return [game_summary(get_game(game.game_type), game) for game in games]


def _rating_view(rating: Rating) -> RatingView:
    return RatingView(
        game_type=rating.game_type,
        title=get_game(rating.game_type).title,
        userid=rating.player.userid,
        rating=round(rating.rating),
        games=rating.games,
        wins=rating.wins,
        losses=rating.losses,
        draws=rating.draws,
        provisional=is_provisional(rating.games),
    )


class Reads:
    front_page_games = 20
    """Current games shown per type on the front page; the type's page lists them all."""
    page_size = 50
    player_recent = 50
    """Games that are over shown on a player's page; the type pages filtered by player list them all."""
    player_active = 1000
    """A bound on a player's current games shown, far above what anyone plays at once."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def overview(self) -> list[TypeOverview]:
        engines = all_games()
        with self.database.reading() as session:
            counts = listing.counts_by_type(session)
            latest = listing.latest_games(
                session, [engine.name for engine in engines], "active", limit=self.front_page_games
            )
            return [
                TypeOverview(engine, counts.get(engine.name, {}), _summaries(latest[engine.name]))
                for engine in engines
            ]

    def boards(
        self,
        engine: Engine[Any],
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
                seated = repo.find_player(session, player)
                if seated is None:
                    return None
            page = listing.boards(
                session,
                engine.name,
                statuses=FILTERS[status],
                player=seated,
                before=before,
                after=after,
                limit=self.page_size,
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

    def game(self, engine: Engine[Any], board: int) -> GamePage | None:
        """One game in full, as a reader who holds no seat sees it; ``None`` when there is no such board."""
        with self.database.reading() as session:
            game = repo.find_game(session, engine.name, board)
            if game is None:
                return None
            state = engine.load(game.state, game.secret)
            moves = repo.moves_of(session, game)
            return GamePage(board_view(engine, game, state, moves), dice_record(engine, game, state, moves))

    def player(self, userid: str) -> PlayerPage | None:
        with self.database.reading() as session:
            player = repo.find_player(session, userid)
            if player is None:
                return None
            return PlayerPage(
                userid=player.userid,
                joined=player.created_at,
                signed_off=not player.active,
                ratings=[_rating_view(r) for r in listing.ratings_of(session, player)],
                active=_summaries(listing.games_of(session, player, statuses=("active",), limit=self.player_active)),
                finished=_summaries(
                    listing.games_of(session, player, statuses=("finished", "cancelled"), limit=self.player_recent)
                ),
            )

    def standings(self, engine: Engine[Any], page: int = 1) -> Standings:
        with self.database.reading() as session:
            offset = (page - 1) * self.page_size
            ratings, total = listing.standings_page(session, engine.name, offset=offset, limit=self.page_size)
            rows = [(offset + i + 1, _rating_view(r)) for i, r in enumerate(ratings)]
            return Standings(engine, rows, total, page, max(1, -(-total // self.page_size)))
