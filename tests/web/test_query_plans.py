"""The list queries walk an index, never the whole games table (SQLite's query plans).

With 100 000 games a scan costs tens of milliseconds a page; these plans are why
``python -m benchmarks.web_pages`` stays in single-digit milliseconds.
PostgreSQL plans depend on table statistics, so they are checked by the benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import event

from pbm.store import board_lists, players

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def plans(database, run: Callable) -> list[str]:
    """The query plan of every statement `run` sends that reads the games table."""
    statements = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if "FROM games" in statement:
            statements.append((statement, parameters))

    event.listen(database.read_engine, "before_cursor_execute", capture)
    try:
        with database.reading() as session:
            run(session)
    finally:
        event.remove(database.read_engine, "before_cursor_execute", capture)
    assert statements
    with database.read_engine.connect() as connection:
        return [
            " / ".join(row[3] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, params))
            for sql, params in statements
        ]


def assert_indexed(found: list[str]) -> None:
    for plan in found:
        assert "SCAN games" not in plan, plan
        assert "TEMP B-TREE" not in plan, plan


@pytest.fixture
def alice(database, club):
    club.signup("alice", "bob")
    club.challenge("cephalopod", "alice", "bob")
    with database.reading() as session:
        return players.find(session, "alice")


def test_each_types_latest_games_come_from_the_type_status_time_index(database):
    types = ["cephalopod", "cubeo", "dodeca"]
    found = plans(database, lambda s: board_lists.latest_games(s, types, "active", limit=20))
    assert "SCAN games" not in found[0]
    assert found[0].count("SEARCH games USING COVERING INDEX ix_games_type_status_updated") == 3


@pytest.mark.parametrize("status", ["active", "finished", "cancelled"])
def test_a_page_of_boards_under_one_status_comes_from_the_type_status_board_index(database, status):
    found = plans(database, lambda s: board_lists.boards(s, "dodeca", statuses=(status,), before=5000))
    assert_indexed(found)
    assert any("ix_games_type_status_board" in plan for plan in found)


def test_a_page_of_all_boards_comes_from_the_type_board_key(database):
    assert_indexed(plans(database, lambda s: board_lists.boards(s, "cubeo", after=200)))


def test_a_players_boards_start_from_their_seats(database, alice):
    found = plans(database, lambda s: board_lists.boards(s, "cephalopod", player=alice))
    assert any("ix_seats_player_game" in plan for plan in found), found


def test_looking_for_changes_reads_only_the_recent_end_of_the_time_index(database):
    since = datetime.now(timezone.utc) - timedelta(minutes=1)
    found = plans(database, lambda s: board_lists.change_marks(s, since))
    assert_indexed(found)
    assert "ix_games_updated" in found[0]


def test_only_the_games_that_are_news_are_read_whole(database):
    found = plans(database, lambda s: board_lists.listed_games(s, [1, 2]))
    assert "USING INTEGER PRIMARY KEY" in found[0]  # by id; sorting the few found is cheap


def test_counting_games_by_type_reads_an_index_not_the_rows(database):
    [plan] = plans(database, board_lists.counts_by_type)
    assert "COVERING INDEX" in plan


def test_a_players_boards_and_their_count_come_from_their_seats_not_the_types_index(database, alice):
    def read(session):
        board_lists.boards(session, "cephalopod", player=alice)
        board_lists.count(session, "cephalopod", board_lists.STATUSES, alice)

    for plan in plans(database, read):
        assert "SEARCH games USING INTEGER PRIMARY KEY" in plan, plan
        assert "ix_games_type_status" not in plan and "sqlite_autoindex_games" not in plan, plan


def test_the_data_version_reads_the_ends_of_two_indexes_not_the_table(database, alice):
    [plan] = plans(database, board_lists.data_version)
    assert "SCAN games" not in plan, plan
    assert plan.count("SEARCH games") == 2, plan


@pytest.mark.parametrize("statuses", [("active",), board_lists.ENDED])
def test_a_players_page_lists_start_from_their_seats_not_the_status_time_index(database, alice, statuses):
    # Joined to the games directly, one status let SQLite walk that status's games newest first,
    # every one of them, to find the player's: 60 ms at 100 000 games for the player page.
    [plan] = plans(database, lambda s: board_lists.games_of(s, alice, statuses=statuses, limit=50))
    assert "ix_seats_player_game" in plan, plan
    assert "ix_games_status_updated" not in plan and "SCAN games" not in plan, plan
