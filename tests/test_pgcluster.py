"""The private PostgreSQL cluster that fault tests break: it comes back as it was."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError


def query(url: str, sql: str) -> object:
    engine = create_engine(url, connect_args={"connect_timeout": 2})
    try:
        with engine.begin() as connection:
            result = connection.execute(text(sql))
            return result.scalar() if result.returns_rows else None
    finally:
        engine.dispose()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_a_stopped_cluster_starts_again_with_its_data_at_the_same_url(pg_cluster, mode):
    url = pg_cluster.create_database("kept")
    query(url, "CREATE TABLE t AS SELECT 42 AS answer")
    pg_cluster.stop(mode)
    with pytest.raises(OperationalError):
        query(url, "SELECT 1")
    pg_cluster.start()
    assert query(url, "SELECT answer FROM t") == 42


def test_a_paused_cluster_carries_on_where_it_stopped(pg_cluster):
    url = pg_cluster.url()
    pg_cluster.pause()
    assert pg_cluster.paused
    with pytest.raises(OperationalError):
        query(url, "SELECT 1")  # the connection attempt times out: nothing answers
    pg_cluster.resume()
    assert query(url, "SELECT 1") == 1
