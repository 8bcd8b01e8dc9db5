"""Shared fixtures: real databases (SQLite always, PostgreSQL when configured).

Tests that take the `database` fixture run once per backend. PostgreSQL runs
when ``PBM_TEST_DATABASE_URL`` names a server we may create databases on; each
test gets a fresh database cloned from a migrated template, so tests never see
each other's rows.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from pbm.store.database import Database

pytest_plugins = ["tests.pgcluster"]  # the `pg_cluster` fixture: a private PostgreSQL cluster to break

DATA = Path(__file__).parent / "data"
POSTGRES_URL = os.environ.get("PBM_TEST_DATABASE_URL", "")


@pytest.fixture(scope="session")
def oracle():
    """Load a recorded reference file from tests/data/oracles by name."""

    def load(name: str) -> dict:
        return json.loads((DATA / "oracles" / name).read_text())

    return load


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "pbm.db"
    database = Database(f"sqlite:///{path}")
    database.upgrade()
    database.dispose()
    return path


class _PostgresDatabases:
    """Creates throwaway databases on the test server from one migrated template."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT")
        self.template = f"pbm_template_{uuid.uuid4().hex[:8]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{self.template}"'))
        database = Database(self.url.set(database=self.template).render_as_string(hide_password=False))
        database.upgrade()
        database.dispose()

    def create(self) -> str:
        name = f"pbm_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        name = make_url(url).database
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        self.drop(self.url.set(database=self.template).render_as_string(hide_password=False))
        self.admin.dispose()


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[_PostgresDatabases | None]:
    if not POSTGRES_URL:
        yield None
        return
    databases = _PostgresDatabases(POSTGRES_URL)
    yield databases
    databases.close()


BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]

ON_SQLITE_ONLY = pytest.mark.sqlite_only
"""For a module whose property is about words, not about the database (what a mail or a page
says, in which language, to whom): its tests run on SQLite alone. What such a test reaches in the
database, PostgreSQL checks elsewhere: every handler's queries in tests/commands/handlers, the
store's in tests/store, ordering, claims and workers in tests/mail and tests/e2e, all on both
backends. A whole server per test is the costliest thing `make test` does, so it is not done
twice to say the same words twice."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test's database_url is SQLite's alone (ON_SQLITE_ONLY)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The PostgreSQL runs of ON_SQLITE_ONLY tests are deselected, as `-m` would deselect them."""
    on_postgresql = [
        item
        for item in items
        if item.get_closest_marker("sqlite_only")
        and getattr(getattr(item, "callspec", None), "params", {}).get("database_url") == "postgresql"
    ]
    if on_postgresql:
        config.hook.pytest_deselected(items=on_postgresql)
        deselected = set(on_postgresql)
        items[:] = [item for item in items if item not in deselected]


def fresh_database(
    backend: str, folder: Path, sqlite_template: Path, postgres_databases: _PostgresDatabases | None
) -> Iterator[str]:
    """A migrated, empty database on `backend` (a SQLite file in `folder`), dropped afterwards."""
    if backend == "sqlite":
        path = folder / "pbm.db"
        shutil.copy(sqlite_template, path)
        yield f"sqlite:///{path}"
        return
    if postgres_databases is None:
        pytest.skip("PostgreSQL tests need PBM_TEST_DATABASE_URL")
    url = postgres_databases.create()
    yield url
    postgres_databases.drop(url)


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path, sqlite_template, postgres_databases) -> Iterator[str]:
    """A migrated, empty database on each backend in turn."""
    yield from fresh_database(request.param, tmp_path, sqlite_template, postgres_databases)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.dispose()


@pytest.fixture
def make_mailroom(database_url: str, tmp_path: Path):
    """Mailrooms on this test's database (`tests.mail.mailroom`), closed when the test ends."""
    from tests.mail.mailroom import Mailroom

    rooms: list[Mailroom] = []

    def make(**settings) -> Mailroom:
        rooms.append(Mailroom(database_url, tmp_path, **settings))
        return rooms[-1]

    yield make
    for room in rooms:
        room.close()
