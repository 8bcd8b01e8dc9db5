"""The database connection: no secrets in its errors, bounded waits, an honest probe."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy.exc import IntegrityError

from pbm.store.database import MAX_CALLS_WAITING, Database, DatabaseTimeout
from pbm.store.models import Player
from tests.e2e.conftest import free_port

HASH = "$argon2id$v=19$m=65536,t=3,p=4$c2VjcmV0LXNhbHQ$aGFzaC1vZi10aGUtbG9zZXI"


def test_a_failed_insert_does_not_put_its_values_in_the_error(database):
    """Two signups racing for one userid: the loser's error names no password hash."""
    with database.transaction() as session:
        session.add(Player(userid="alice", password_hash="$argon2id$the-winner"))
    with pytest.raises(IntegrityError) as failed:
        with database.transaction() as session:
            session.add(Player(userid="alice", password_hash=HASH))
    assert HASH not in str(failed.value)
    assert "argon2" not in str(failed.value)


def test_a_call_returns_what_the_work_returns(database):
    assert asyncio.run(database.call(lambda: 42)) == 42


def test_a_call_raises_what_the_work_raises(database):
    def broken() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError):
        asyncio.run(database.call(broken))


def test_a_call_gives_up_at_its_timeout_while_the_work_still_waits(database):
    release = threading.Event()
    with pytest.raises(DatabaseTimeout):
        asyncio.run(database.call(lambda: release.wait(30), timeout=0.2))
    release.set()


def test_work_that_finds_every_place_taken_by_hung_work_never_starts(tmp_path):
    database = Database(f"sqlite:///{tmp_path}/pbm.db", timeout=0.2)
    release, started = threading.Event(), []

    async def hang_every_place() -> None:
        for _ in range(MAX_CALLS_WAITING):
            with pytest.raises(DatabaseTimeout):
                await database.call(lambda: release.wait(30))

    asyncio.run(hang_every_place())
    with pytest.raises(DatabaseTimeout):
        asyncio.run(database.call(lambda: started.append(1)))
    release.set()
    assert started == []


def test_a_live_database_is_reachable(database):
    assert database.reachable(timeout=5)


def test_a_server_that_is_not_there_is_unreachable_without_an_error():
    database = Database(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/pbm")
    assert database.reachable(timeout=2) is False


def test_a_missing_sqlite_file_is_unreachable_and_not_created(tmp_path):
    path = tmp_path / "gone" / "pbm.db"
    database = Database(f"sqlite:///{path}")
    path.parent.rmdir()
    assert database.reachable(timeout=2) is False
    assert not path.exists()
