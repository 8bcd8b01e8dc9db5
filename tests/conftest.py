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
from graphlib import TopologicalSorter
from pathlib import Path

import pytest
from sqlalchemy import Connection, create_engine, text
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


class _PostgresDatabases:
    """Throwaway databases on the test server, each as one migrated template is.

    Cloning the template (``CREATE DATABASE ... TEMPLATE``) and dropping the clone cost about a
    second a test on this machine's PostgreSQL, more than most tests themselves: a clone writes
    its 9 MB of catalogues to the WAL. So a database a test gave back is emptied and given to the
    next test instead, when nothing is still connected to it and its schema is still the
    template's (`_schema`: a migration test's downgrade, or a test's own trigger, is not emptied
    but dropped). Emptied is as new: every table but ``alembic_version`` without a row, and every
    sequence restarted.
    """

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT")
        self.template = f"pbm_template_{uuid.uuid4().hex[:8]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{self.template}"'))
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

    def _url(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def create(self) -> str:
        if self.free:
            return self._url(self.free.pop())
        name = f"pbm_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
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
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.begin() as connection:
                others = connection.scalar(
                    text(
                        "SELECT count(*) FROM pg_stat_activity"
                        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                )
                if others or _schema(connection) != self.schema:
                    return False
                connection.exec_driver_sql(self.emptying)
            return True
        except Exception:
            return False
        finally:
            engine.dispose()

    def _drop(self, name: str) -> None:
        with self.admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        for name in [*self.free, self.template]:
            self._drop(name)
        self.admin.dispose()


# What a database's schema is, for `_PostgresDatabases` to tell a database still as the template
# made it: its relations, columns, triggers, functions and migration, outside the system's schemas.
_SCHEMA = """
SELECT string_agg(item, ',' ORDER BY item) FROM (
    SELECT n.nspname || '.' || c.relname || ':' || c.relkind::text AS item
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    UNION ALL
    SELECT table_schema || '.' || table_name || '.' || column_name || ':' || data_type || ':'
           || coalesce(column_default, '') || ':' || is_nullable
      FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
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
    a DELETE a table, those that others refer to after them, and a RESTART a sequence (cheaper
    than one TRUNCATE of every table, which gives each table and index a new file)."""
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
    sequences = connection.scalars(text("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")).all()
    statements = [f'DELETE FROM "{table}"' for table in order] + [
        f'ALTER SEQUENCE "{name}" RESTART' for name in sequences
    ]
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
