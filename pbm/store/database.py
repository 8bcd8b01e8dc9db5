"""Connecting to the database and running its migrations.

SQLite is the embedded default and PostgreSQL the engine for scale; the
differences live here so the rest of the store is written once:

- On SQLite every write transaction starts with ``BEGIN IMMEDIATE``: it takes
  the write lock up front, so two processes (the server and a ``pbm process``
  pipe) serialise instead of failing half-way with "database is locked".
  WAL mode lets the web pages read while a move is being written.
- On PostgreSQL moves on one game are serialised by a row lock on the game
  (``SELECT ... FOR UPDATE`` in `pbm.store.repository`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from pbm.resources import resource_dir


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    parsed = make_url(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30})

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
    """The server's database: a session factory for writes and one for reads."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            self.engine = _sqlite_engine(url, immediate=True)
            self.read_engine = _sqlite_engine(url, immediate=False)
        else:
            self.engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)
            self.read_engine = self.engine
        # PostgreSQL locks rows, so its writers need no queue.
        self._gate = WriteGate() if self.is_sqlite else None
        self._write = sessionmaker(self.engine, expire_on_commit=False)
        self._read = sessionmaker(self.read_engine, expire_on_commit=False)

    @contextmanager
    def transaction(self, *, urgent: bool = False) -> Iterator[Session]:
        """A write transaction: commits when the block ends, rolls back on error.

        `urgent` marks a write someone is waiting for (an SMTP client): on
        SQLite it goes before background writes of this process.
        """
        with self._gate.enter(urgent=urgent) if self._gate else nullcontext():
            with self._write.begin() as session:
                yield session

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A read-only session that never takes the write lock."""
        with self._read() as session:
            yield session

    def reachable(self, timeout: float) -> bool:
        """Whether a new connection answers ``SELECT 1`` within `timeout` seconds; never raises."""
        answered = threading.Event()

        def probe() -> None:
            try:
                cargs, cparams = self.engine.dialect.create_connect_args(self.engine.url)
                connection = self.engine.dialect.connect(*cargs, **cparams)
                try:
                    connection.cursor().execute("SELECT 1")
                    answered.set()
                finally:
                    connection.close()
            except Exception:
                pass

        threading.Thread(target=probe, name="pbm-database-probe", daemon=True).start()
        return answered.wait(timeout)

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (``pbm db upgrade``)."""
        command.upgrade(alembic_config(self), "head")

    def dispose(self) -> None:
        self.engine.dispose()
        self.read_engine.dispose()


def alembic_config(database: Database) -> Config:
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    config.attributes["engine"] = database.engine
    return config
