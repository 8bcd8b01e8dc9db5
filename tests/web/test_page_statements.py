"""What a page costs in SQL statements does not grow with the games stored: budgets that cannot drift.

Counted, never timed: a page that read one row per game (a player's clocks, one
game at a time) went unseen until a player with many games took 146 ms at 100 000
games. Each page is asked once on a club with a few games, then once more after
more games: the statements it sends must be the same.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import event

from pbm.store.database import Database
from pbm.web.reads import Counts

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

PAGES = [
    "/",
    "/cephalopod",
    "/cephalopod?status=all",
    "/cephalopod?player=alice&status=all",
    "/players/alice",
    "/players/alice/deadlines.ics",
    "/api/games",
    "/api/cephalopod",
    "/api/cephalopod?player=alice",
    "/api/players/alice",
]


class Statements:
    """The statements sent to the database while counting."""

    def __init__(self, database: Database) -> None:
        self.engines = {database.engine, database.read_engine}
        self.sent: list[str] = []

    def __enter__(self) -> list[str]:
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self._capture)
        return self.sent

    def __exit__(self, *exc: object) -> None:
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self._capture)

    def _capture(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.sent.append(statement)


def more_games(club, rounds: int) -> None:
    """`rounds` times: alice and bob challenge each other (alice is to move in one of the two), and
    one game is over."""
    for _ in range(rounds):
        club.challenge("cephalopod", "alice", "bob")
        club.challenge("cephalopod", "bob", "alice")
        ended = club.challenge("cubeo", "alice", "bob")
        club.resign("cubeo", ended, "alice")


def statements_per_page(database, client) -> Iterator[tuple[str, int]]:
    for path in PAGES:
        with Statements(database) as sent:
            client.get(path).raise_for_status()
        yield path, len(sent)


@pytest.fixture
def players(club):
    club.signup("alice", "bob")


def test_no_page_sends_more_statements_with_more_games(database, club, client, players):
    more_games(club, 1)
    few = dict(statements_per_page(database, client))
    more_games(club, 4)
    many = dict(statements_per_page(database, client))
    assert many == few


def test_a_players_page_reads_the_clocks_of_every_waiting_game_at_once(database, club, client, players):
    more_games(club, 5)
    with Statements(database) as sent:
        client.get("/players/alice").raise_for_status()
    assert sum("FROM vacations" in statement for statement in sent) <= 2  # the page's list, and the clocks'
    assert sum("FROM offers" in statement for statement in sent) == 1


def test_counts_are_kept_until_a_game_starts_or_ends(database, club, client, players):
    more_games(club, 1)
    client.get("/api/games")
    with Statements(database) as sent:
        kept = client.get("/api/games").json()
    assert not any("count(" in statement for statement in sent)
    club.challenge("cephalopod", "alice", "bob")
    with Statements(database) as sent:
        counted = client.get("/api/games").json()
    assert any("count(" in statement for statement in sent)
    active = {entry["game"]: entry["counts"]["active"] for entry in kept["types"]}
    assert {entry["game"]: entry["counts"]["active"] for entry in counted["types"]}["cephalopod"] == active[
        "cephalopod"
    ] + 1


def test_counts_are_let_go_after_a_while_even_when_the_version_stays(database, club, players):
    more_games(club, 1)
    clock = [0.0]
    counts = Counts(clock=lambda: clock[0])
    counted: list[float] = []

    def count() -> int:
        counted.append(clock[0])
        return len(counted)

    with database.reading() as session:
        for moment in (0.0, 1.0, 60.0):
            clock[0] = moment
            counts.get(session, "key", count)
    assert counted == [0.0, 60.0]
