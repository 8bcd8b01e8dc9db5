"""Connecting to the database and running its migrations.

SQLite is the embedded default and PostgreSQL the engine for scale; the
differences live here so the rest of the store is written once:

- On SQLite every write transaction starts with ``BEGIN IMMEDIATE``: it takes
  the write lock up front, so two processes (the server and a ``pbm process``
  pipe) serialise instead of failing half-way with "database is locked".
  WAL mode lets the web pages read while a move is being written.
- On PostgreSQL moves on one game are serialised by a row lock on the game
  (``SELECT ... FOR UPDATE`` in `pbm.store.boards`).

A database can hang rather than fail (a stopped server, a lost network): then
a query waits for ever, and no server-side timeout can fire in a server that
does not run. PostgreSQL connections get a connect timeout, TCP keepalives and
server-side statement, lock and idle-transaction timeouts for what the server
can still enforce; and callers someone is waiting for (the SMTP listener,
``/healthz``) use `Database.call`, which bounds the wait in the client.

No engine puts a statement's parameters in its error messages: they are
players' data (a password hash in a failed INSERT), and error messages reach
logs and the inbox's notes.
"""

from __future__ import annotations

import asyncio
import math
import os
import sqlite3
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult, make_url
from sqlalchemy.exc import SAWarning
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool
from sqlalchemy.sql import Executable

from pbm.resources import resource_dir
from pbm.store.errors import Failure, classify

T = TypeVar("T")
Item = TypeVar("Item")

UNREFLECTED_INDEX = "Skipped unsupported reflection of expression-based index"
"""How SQLAlchemy's warning about an index it cannot reflect begins (`Database.upgrade`)."""
DEFAULT_TIMEOUT = 5.0
"""Seconds a waiting client gives the database (`Settings.database_timeout`)."""
STATEMENT_TIMEOUT_MS = 30_000
"""Longest statement a PostgreSQL server runs for us; ours take milliseconds."""
LOCK_TIMEOUT_MS = 15_000
"""Longest wait for a row lock; a lock held that long belongs to a stuck client."""
IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000
"""A client silent that long inside a transaction (stopped, cut off) loses it and its locks."""
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}
"""TCP keepalives: a connection to a host that vanished fails in about a minute."""
MAX_CALLS_WAITING = 8
"""Threads `Database.call` lets wait on the database at once (abandoned ones included)."""


class SchemaOutOfDate(Exception):
    """The database's schema is not the one this code needs: `pbm db upgrade` brings it there."""


class DatabaseTimeout(Exception):
    """The database did not answer within the time a waiting client is given."""


def create_private(path: Path) -> None:
    """Make `path` an empty file readable by its owner alone, unless it exists. SQLite makes a
    database as the umask says, and its log and index as the database is (`-wal`, `-shm`): made
    first, the database and all beside it hold the players' data for the server's user alone."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    parsed = make_url(url)
    engine = create_engine(url, connect_args={"timeout": 30}, hide_parameters=True)
    if parsed.database and parsed.database != ":memory:":
        path = Path(parsed.database)
        path.parent.mkdir(parents=True, exist_ok=True)

        @event.listens_for(engine, "do_connect")
        def _private_first(*_: Any) -> None:
            # Made as SQLite connects, not as the engine is built: a probe of a database whose
            # folder went away must fail, not make it again.
            if path.parent.is_dir():
                create_private(path)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        # FULL: a 250 promises the mail is on disk, even across a power cut.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _postgres_engine(url: str, *, connect_timeout: float, statement_timeout_ms: int) -> Engine:
    """An engine whose connections cannot hang for ever where the server or the network can help it."""
    options = (
        f"-c statement_timeout={statement_timeout_ms} -c lock_timeout={LOCK_TIMEOUT_MS} "
        f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_TIMEOUT_MS}"
    )
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        hide_parameters=True,
        connect_args={"connect_timeout": _whole_seconds(connect_timeout), "options": options, **KEEPALIVES},
    )


def _whole_seconds(timeout: float) -> int:
    # libpq counts connect_timeout in whole seconds, and takes anything under 2 as 2.
    return max(2, math.ceil(timeout))


class WriteGate:
    """Orders this process's write transactions on SQLite, urgent ones first.

    SQLite has one writer at a time, and its busy handler makes a waiting
    writer sleep and retry. A worker that processes mail back to back would
    win that race again and again while an SMTP client waits for its 250. The
    gate queues writers in the process instead: an urgent writer (storing a
    received mail) goes next, and background work (processing) only starts
    when no urgent writer waits. Other processes still meet at SQLite's lock.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        self._urgent_waiting = 0

    @contextmanager
    def enter(self, *, urgent: bool) -> Iterator[None]:
        with self._changed:
            if urgent:
                self._urgent_waiting += 1
                while self._busy:
                    self._changed.wait()
                self._urgent_waiting -= 1
            else:
                while self._busy or self._urgent_waiting:
                    self._changed.wait()
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()


class Database:
    """The server's database: a session factory for writes and one for reads.

    `timeout` is how long a client that waits for the database is given
    (`call`); PostgreSQL connections also give up connecting after it.
    """

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self.timeout = timeout
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            self.engine = _sqlite_engine(url, immediate=True)
            self.read_engine = _sqlite_engine(url, immediate=False)
        else:
            self.engine = _postgres_engine(url, connect_timeout=timeout, statement_timeout_ms=STATEMENT_TIMEOUT_MS)
            self.read_engine = self.engine
        # PostgreSQL locks rows, so its writers need no queue.
        self._gate = WriteGate() if self.is_sqlite else None
        self._write = sessionmaker(self.engine, expire_on_commit=False)
        self._read = sessionmaker(self.read_engine, expire_on_commit=False)
        self._waiting = threading.BoundedSemaphore(MAX_CALLS_WAITING)

    @contextmanager
    def transaction(self, *, urgent: bool = False) -> Iterator[Session]:
        """A write transaction: commits when the block ends, rolls back on error.

        `urgent` marks a write someone is waiting for (an SMTP client): on
        SQLite it goes before background writes of this process.
        """
        with self._gate.enter(urgent=urgent) if self._gate else nullcontext():
            with self._write.begin() as session:
                yield session

    def write_each(
        self, items: Sequence[Item], write: Callable[[Session, Item], T], *, urgent: bool = False
    ) -> list[T | Exception]:
        """`write(session, item)` for every item, in one transaction: one commit for all. Returns
        what each write gave, or the error that is that item's own (`Failure.MAIL`): its write is
        undone and the others are kept. Any other error raises, and nothing is kept.

        The items are written first with no savepoint: an item's own failure is rare, and a
        savepoint for each costs more than many a write. When one fails, that transaction is
        rolled back and the items are written again, each in a savepoint of its own. So `write`
        may run twice for an item, and must do nothing outside the session.
        """
        try:
            with self.transaction(urgent=urgent) as session:
                return [write(session, item) for item in items]
        except Exception as error:
            if classify(error) is not Failure.MAIL:
                raise
        outcomes: list[T | Exception] = []
        with self.transaction(urgent=urgent) as session:
            for item in items:
                try:
                    with session.begin_nested():
                        outcomes.append(write(session, item))
                except Exception as error:
                    if classify(error) is not Failure.MAIL:
                        raise
                    outcomes.append(error)
        return outcomes

    @contextmanager
    def rehearsal(self) -> Iterator[Session]:
        """A write transaction that is always rolled back: work done in it to see what it would do."""
        with self._gate.enter(urgent=False) if self._gate else nullcontext():
            with self._write() as session:
                transaction = session.begin()
                try:
                    yield session
                finally:
                    transaction.rollback()

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A read-only session that never takes the write lock."""
        with self._read() as session:
            yield session

    async def call(self, work: Callable[[], T], *, timeout: float | None = None) -> T:
        """Run blocking database `work` in a thread; wait for it at most `timeout`
        seconds (default: this database's `timeout`), else raise `DatabaseTimeout`.

        The bound holds whatever the database does: a stopped server leaves a
        query waiting in the kernel, where no timeout of its own can reach it.
        A thread cannot be stopped, so on timeout the work is abandoned, not
        cancelled: it keeps its connection (and on SQLite its place at the write
        gate) until the database answers or the connection breaks, and then
        finishes what it began. A mail stored that late, after its sender was
        told 451, is known by its dedupe key when the sender's MTA tries again.
        At most `MAX_CALLS_WAITING` threads wait on the database at once, so a
        hung database cannot pile up threads and connections without end; work
        that finds no place before its deadline never starts.
        """
        limit = self.timeout if timeout is None else timeout
        outcome: Future[T] = Future()

        def run() -> None:
            if not self._waiting.acquire(timeout=limit):
                return  # the caller has given up by now
            try:
                if outcome.set_running_or_notify_cancel():
                    try:
                        outcome.set_result(work())
                    except BaseException as error:
                        outcome.set_exception(error)
            finally:
                self._waiting.release()

        # A daemon thread: a hung database must not keep the process from exiting.
        threading.Thread(target=run, name="pbm-database-call", daemon=True).start()
        try:
            async with asyncio.timeout(limit):
                return await asyncio.wrap_future(outcome)
        except TimeoutError:
            raise DatabaseTimeout(f"the database did not answer within {limit:g} s") from None

    def reachable(self, timeout: float) -> bool:
        """Whether the database answers a fresh connection within `timeout` seconds.

        For telling an outage from a failure of one piece of work: the probe
        opens its own connection (a pooled one may be the one that is stuck),
        and never raises. On PostgreSQL it runs ``SELECT 1``; on SQLite it
        takes and releases the write lock, since a file that can be read but
        not written to cannot store or process mail either.
        """
        answered: Future[None] = Future()

        def probe() -> None:
            try:
                if self.is_sqlite:
                    self._probe_sqlite(timeout)
                else:
                    self._probe_postgres(timeout)
            except BaseException as error:
                answered.set_exception(error)
            else:
                answered.set_result(None)

        threading.Thread(target=probe, name="pbm-database-probe", daemon=True).start()
        try:
            answered.result(timeout)
        except Exception:
            return False
        return True

    def _probe_postgres(self, timeout: float) -> None:
        engine = create_engine(
            self.url,
            poolclass=NullPool,
            hide_parameters=True,
            connect_args={"connect_timeout": _whole_seconds(timeout), **KEEPALIVES},
        )
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql("SELECT 1")
        finally:
            engine.dispose()

    def _probe_sqlite(self, timeout: float) -> None:
        path = make_url(self.url).database
        if not path or path == ":memory:":
            return  # lives in this process: there is nothing to reach
        # mode=rw: a probe must not create a database where there is none.
        uri = Path(path).resolve().as_uri() + "?mode=rw"
        connection = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
        finally:
            connection.close()

    def check_schema(self) -> None:
        """Raise `SchemaOutOfDate` unless the schema is at the newest migration."""
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        head = ScriptDirectory.from_config(alembic_config(self)).get_current_head()
        with self.engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
        if current != head:
            raise SchemaOutOfDate(
                f"the database is at schema {current or 'none'}, the code needs {head}: run `pbm db upgrade`"
            )

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (``pbm db upgrade``).

        Without a statement timeout on PostgreSQL: building an index on a big
        table may rightly take longer than any query of a running server.
        """
        if self.is_sqlite:
            with warnings.catch_warnings():
                # Batch migrations reflect the tables a table refers to; SQLAlchemy cannot reflect
                # an expression index (players' lower(signup_sender)) and says so. The index is
                # left as it is, as the migration tests check: nothing for the admin to act on.
                warnings.filterwarnings("ignore", UNREFLECTED_INDEX, SAWarning)
                command.upgrade(alembic_config(self), "head")
            return
        engine = _postgres_engine(self.url, connect_timeout=self.timeout, statement_timeout_ms=0)
        try:
            command.upgrade(alembic_config(self, engine), "head")
        finally:
            engine.dispose()

    def dispose(self) -> None:
        self.engine.dispose()
        self.read_engine.dispose()


def execute_plain(session: Session, statement: Executable, parameters: Any = None) -> CursorResult[*tuple[Any, ...]]:
    """Run a Core `statement` in `session`'s transaction, on its connection, past the ORM's layer.

    The ORM's layer costs about twice what the statement does on SQLite (it
    plans a bulk write or a result of objects), and the queue's bookkeeping
    runs several statements for every mail. Only for statements on tables the
    session holds no unflushed objects of, and whose rows it does not hold
    loaded: nothing is flushed before the statement, and no loaded object
    learns of what it changed.
    """
    return session.connection().execute(statement, parameters)


DIALECT_INSERTS: dict[str, Callable[[Any], sqlite.Insert | postgresql.Insert]] = {
    "sqlite": sqlite.insert,
    "postgresql": postgresql.insert,
}
"""Each backend's INSERT, which can say ON CONFLICT: the two say it in words of their own."""


def dialect_insert(session: Session) -> Callable[[Any], sqlite.Insert | postgresql.Insert]:
    """The INSERT of `session`'s backend (`DIALECT_INSERTS`)."""
    return DIALECT_INSERTS[session.get_bind().dialect.name]


def alembic_config(database: Database, engine: Engine | None = None) -> Config:
    """Alembic's configuration for `database`, migrating through `engine` (default: the database's own)."""
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    config.attributes["engine"] = engine or database.engine
    return config
