"""Shared fixtures: real databases (SQLite always, PostgreSQL when configured).

Tests that take the `database` fixture run once per backend. PostgreSQL runs
when ``PBM_TEST_DATABASE_URL`` names a server we may create databases on; each
test gets a fresh database cloned from a migrated template, so tests never see
each other's rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from graphlib import TopologicalSorter
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

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


UNSYNCED = "SET synchronous_commit = off"
"""The tests' PostgreSQL databases commit without waiting for the WAL to reach the disk: on this
machine's disk that wait is most of a commit (and longer when other work writes), and the suite
commits tens of thousands of times. A commit is as visible to every connection as before; only a
crash of the PostgreSQL server itself could lose the last ones, which no test does (the crash
tests kill pbm's processes, not the server; `pg_cluster` tests run clusters of their own). For
SQLite the Makefile puts the tests' files in memory, for the same reason. It is a setting of each
database, not of the machine's server."""


class _PostgresDatabases:
    """Throwaway databases on the test server, each as one migrated template is.

    Cloning the template (``CREATE DATABASE ... TEMPLATE``) and dropping the clone cost about a
    second a test on this machine's PostgreSQL, more than most tests themselves: a clone writes
    its 9 MB of catalogues to the WAL. So a database a test gave back is emptied and given to the
    next test instead, when nothing is still connected to it and its schema is still the
    template's (`_schema`: a migration test's downgrade, or a test's own trigger, is not emptied
    but dropped). Emptied is as new: every table but ``alembic_version`` without a row, and every
    sequence restarted.

    Each database handed back keeps the connection that emptied it, for its next hand-back: a new
    connection is a new PostgreSQL backend (some 20-35 ms here) whose cold catalogue caches make
    the schema's fingerprint cost several times what it costs on a warm one, and PostgreSQL tests
    are half the suite. The connection is idle between hand-backs, in no transaction, holding no
    lock; nothing a test does counts or waits on it.
    """

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT")
        self.template = f"pbm_template_{uuid.uuid4().hex[:8]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{self.template}"'))
            connection.execute(text(f'ALTER DATABASE "{self.template}" {UNSYNCED}'))
        database = Database(self._url(self.template))
        database.upgrade()
        database.dispose()
        template = create_engine(self._url(self.template))
        with template.connect() as connection:
            self.schema = _schema(connection)
            self.emptying = _emptying(connection)
        template.dispose()
        self.free: list[str] = []
        """Databases given back and emptied, for the next tests."""
        self.kept: dict[str, tuple[Engine, Connection]] = {}
        """The connection that empties each database, kept for its next hand-back."""

    def _url(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def create(self) -> str:
        if self.free:
            return self._url(self.free.pop())
        name = f"pbm_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
            connection.execute(text(f'ALTER DATABASE "{name}" {UNSYNCED}'))  # a clone has not its template's settings
        return self._url(name)

    def drop(self, url: str) -> None:
        """Take back the database at `url`: emptied for another test, or dropped."""
        name = make_url(url).database
        assert name is not None
        if self._emptied(url):
            self.free.append(name)
            return
        self._drop(name)

    def _emptied(self, url: str) -> bool:
        """Empty the database at `url` if it may serve another test (see the class's docstring)."""
        name = make_url(url).database
        assert name is not None
        try:
            connection = self._connection(name, url)
            if not _alone(connection) or _schema(connection) != self.schema:
                connection.rollback()
                return False
            connection.exec_driver_sql(self.emptying)
            connection.commit()
            return True
        except Exception:
            self._let_go(name)
            return False

    def _connection(self, name: str, url: str) -> Connection:
        if name not in self.kept:
            engine = create_engine(url, poolclass=NullPool)
            self.kept[name] = (engine, engine.connect())
        return self.kept[name][1]

    def _let_go(self, name: str) -> None:
        engine, connection = self.kept.pop(name, (None, None))
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()
        if engine is not None:
            engine.dispose()

    def _drop(self, name: str) -> None:
        self._let_go(name)
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        for name in [*self.free, self.template]:
            self._drop(name)
        self.admin.dispose()


def _alone(connection: Connection, within: float = 1.0) -> bool:
    """Whether `connection` is, or within `within` seconds becomes, the only one to its database.
    A connection the test closed is gone from PostgreSQL a moment later, not at once: asked at
    once, a database would often seem still in use, and be dropped and cloned anew (two seconds
    here) instead of emptied."""
    deadline = time.monotonic() + within
    while True:
        others = connection.scalar(
            text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        )
        connection.commit()  # pg_stat_activity is read once a transaction: the next look is a new one
        if not others:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


# What a database's schema is, for `_PostgresDatabases` to tell a database still as the template
# made it: its relations, columns, triggers, functions and migration, outside the system's schemas.
# Read from pg_catalog, not information_schema, whose views cost several times as much per hand-back.
_SCHEMA = """
SELECT string_agg(item, ',' ORDER BY item) FROM (
    SELECT n.nspname || '.' || c.relname || ':' || c.relkind::text AS item
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    UNION ALL
    SELECT n.nspname || '.' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod)
           || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ':' || a.attnotnull::text
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT 'trigger ' || tgname::text FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL
    SELECT 'function ' || p.proname::text
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL
    SELECT 'migration ' || version_num FROM alembic_version
) AS schema
"""


def _schema(connection: Connection) -> str:
    return str(connection.scalar(text(_SCHEMA)))


def _emptying(connection: Connection) -> str:
    """The statements, in one string sent at once, that empty a database of the template's schema:
    a DELETE a table, those that others refer to after them, and every sequence set back to its
    start (cheaper than one TRUNCATE of every table, which gives each table and index a new file)."""
    tables = connection.scalars(
        text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'")
    ).all()
    referring = connection.execute(
        text(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c"
            " WHERE c.contype = 'f' AND c.conrelid <> c.confrelid"
        )
    ).all()
    # A table is emptied before the tables it refers to: the sorter puts it first, as their predecessor.
    referred_by: dict[str, set[str]] = {table: set() for table in tables}
    for table, referred in referring:
        referred_by.setdefault(referred.strip('"'), set()).add(table.strip('"'))
    order = [table for table in TopologicalSorter(referred_by).static_order() if table in tables]
    sequences = connection.execute(
        text("SELECT sequencename, start_value FROM pg_sequences WHERE schemaname = 'public'")
    ).all()
    statements = [f'DELETE FROM "{table}"' for table in order]
    if sequences:
        # setval, not ALTER SEQUENCE ... RESTART: the same next value, without the new file (and
        # its WAL) that RESTART gives every sequence, ten times the cost here.
        statements.append("SELECT " + ", ".join(f"setval('\"{name}\"', {start}, false)" for name, start in sequences))
    return "; ".join(statements)


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
