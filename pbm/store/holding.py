"""Who holds the database: every running ``pbm serve`` says so, and a restore waits for none.

A restore run over a live server lost what the server wrote next, or let it write into the
restored database. So each server, as it starts, takes a *shared* hold on its database, and
a restore takes an *exclusive* one, or refuses: a restore never runs while a server holds the
database, and a server does not start during a restore. The holds are locks the operating
system or the database server ends with the process, a crash included, so a dead server never
leaves a stale hold behind (as a pid file would):

- SQLite: ``flock`` on the database file itself, whoever's data folder names it: two servers
  with other ``PBM_HOME`` on one file hold the same lock. (SQLite locks with ``fcntl``, which on
  Linux is apart from ``flock``. But closing any descriptor of the file ends every ``fcntl``
  lock the process holds on it, SQLite's included: a hold is let go only once the process's
  connections are closed, see `release`.)
- PostgreSQL: an advisory lock of the database, held by a connection of its own for as long as
  the server runs (``pg_try_advisory_lock_shared`` / ``pg_try_advisory_lock``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from pbm.store.database import Database, create_private

SERVING_LOCK = 0x70626D7365727665  # "pbmserve"
SERVERS_HOLD = (
    "a server holds the database (pbm serve is running on it, here or on another host): "
    "stop every pbm serve on this database, then run this again"
)
RESTORE_HOLDS = "a restore of the database is under way (pbm restore): start the server again once it is done"


class Held(Exception):
    """Someone else holds the database: the message says who, and what to do."""


class Hold:
    """A hold on a database, shared (a server) or exclusive (a restore), until `release`."""

    def __init__(self, database: Database, *, exclusive: bool) -> None:
        self.exclusive = exclusive
        self._fd: int | None = None
        self._connection: Connection | None = None
        if database.is_sqlite:
            self._take_file(database.url)
        else:
            self._take_advisory(database.url)

    def _take_file(self, url: str) -> None:
        name = make_url(url).database
        if not name or name == ":memory:":
            return  # nothing on disk that another process could open
        path = Path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Held(SERVERS_HOLD if self.exclusive else RESTORE_HOLDS) from None
        self._fd = fd

    def _take_advisory(self, url: str) -> None:
        engine = create_engine(url, poolclass=NullPool, hide_parameters=True)
        connection = engine.connect()
        function = "pg_try_advisory_lock" if self.exclusive else "pg_try_advisory_lock_shared"
        taken = connection.scalar(text(f"SELECT {function}(:key)"), {"key": SERVING_LOCK})
        connection.commit()  # a session lock outlives the transaction; an idle transaction would time out
        if not taken:
            connection.close()
            raise Held(SERVERS_HOLD if self.exclusive else RESTORE_HOLDS)
        self._connection = connection

    def release(self) -> None:
        """Let go of the hold: call it after closing the database's connections (`Database.dispose`),
        whose SQLite locks closing the file would end."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        if self._connection is not None:
            self._connection.close()  # ending the session ends its advisory locks
            self._connection = None


@contextmanager
def exclusively(database: Database) -> Iterator[None]:
    """Hold `database` alone for the block, or `Held` when a server holds it."""
    hold = Hold(database, exclusive=True)
    try:
        yield
    finally:
        database.dispose()
        hold.release()
