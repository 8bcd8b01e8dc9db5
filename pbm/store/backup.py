"""Copies of the database taken while the server runs, and putting one back.

SQLite is copied with its online backup API: the copy is one consistent moment of the
database, taken while the server goes on writing (a writer waits a few milliseconds at most
per step), then checked with ``PRAGMA integrity_check`` before it is kept. PostgreSQL is
copied by ``pg_dump`` (one snapshot of the whole database, in its custom format), which must
be installed: it comes with PostgreSQL's client programs.

A copy is written under a temporary name and renamed once complete, so a crash leaves no
half copy under a backup's name; only files with a backup's name are ever pruned.

Restoring checks the copy before touching anything: that it is whole (the integrity check,
or ``pg_restore --list``) and that it is a pbm database at a migration this code knows. It
never replaces a database that holds data unless asked to (``force``), and then it first takes
a backup of what it replaces.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, make_url

from pbm.resources import resource_dir
from pbm.store.database import Database

SQLITE_SUFFIX = ".sqlite3"
POSTGRES_SUFFIX = ".pgdump"
_NAMED = re.compile(r"^pbm-\d{8}T\d{6}(\d{6})?Z\.(sqlite3|pgdump)$")
"""What a backup's own file name looks like: only such files are pruned."""
PAGES_PER_STEP = 1024
"""SQLite pages copied per step of the backup API (4 MiB): between steps a writer may commit."""
PG_TIMEOUT_SECONDS = 3600


class BackupError(Exception):
    """A backup or a restore could not be made; the message says why, for an administrator."""


@dataclass(frozen=True)
class Made:
    """A backup written: where, how big, how long it took, and the backups pruned after it."""

    path: Path
    size: int
    seconds: float
    pruned: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Checked:
    """A copy found fit to restore: its migration, and whether it is older than this code's."""

    revision: str
    head: str


def backup_name(url: str, now: datetime) -> str:
    """``pbm-20261126T142500123456Z.sqlite3``: sortable, and telling which database made it."""
    suffix = SQLITE_SUFFIX if url.startswith("sqlite") else POSTGRES_SUFFIX
    return f"pbm-{now.astimezone(timezone.utc):%Y%m%dT%H%M%S%fZ}{suffix}"


def backup(database: Database, target: Path, *, keep: int | None = None) -> Made:
    """Copy `database` to `target`: a file, or a directory to write a newly named backup in
    (then the newest `keep` backups there are kept, and the older ones deleted)."""
    started = time.monotonic()
    if target.is_dir():
        path = target / backup_name(database.url, datetime.now(timezone.utc))
    else:
        path = target
        keep = None  # a file named by hand is not one of a series
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        if database.is_sqlite:
            _copy_sqlite(_sqlite_path(database.url), partial)
        else:
            _dump_postgres(database.url, partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    pruned = prune(path.parent, keep) if keep is not None else ()
    return Made(path, path.stat().st_size, time.monotonic() - started, pruned)


def prune(folder: Path, keep: int) -> tuple[Path, ...]:
    """Delete all but the newest `keep` backups in `folder`; returns what was deleted."""
    named = sorted(path for path in folder.iterdir() if _NAMED.match(path.name))
    old = tuple(named[: max(0, len(named) - keep)])
    for path in old:
        path.unlink()
    return old


def _sqlite_path(url: str) -> Path:
    name = make_url(url).database
    if not name or name == ":memory:":
        raise BackupError("an in-memory database has nothing on disk to back up")
    return Path(name)


def _copy_sqlite(source: Path, destination: Path) -> None:
    """The online backup API, a step at a time, into `destination`, which is then checked and
    made a database of one file (no write-ahead log beside it)."""
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    reading = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    copy = sqlite3.connect(destination)
    try:
        reading.backup(copy, pages=PAGES_PER_STEP)
        copy.execute("PRAGMA journal_mode=DELETE")
        problems = _integrity_problems(copy)
        if problems:
            raise BackupError(f"the copy failed its integrity check: {problems}")
    finally:
        copy.close()
        reading.close()
    with open(destination, "rb") as written:
        os.fsync(written.fileno())


def _integrity_problems(connection: sqlite3.Connection) -> str:
    rows = [row[0] for row in connection.execute("PRAGMA integrity_check")]
    return "" if rows == ["ok"] else "; ".join(rows[:5])


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """`url` as pg_dump takes it, and the environment that carries its password: a password on a
    command line is seen by every user of the machine (``ps``)."""
    parsed: URL = make_url(url)
    environment = dict(os.environ)
    if parsed.password is not None:
        environment["PGPASSWORD"] = str(parsed.password)
    plain = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), environment


def postgres_tool(name: str) -> str:
    """The path of PostgreSQL's `name` client program; `BackupError` saying so when it is missing."""
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not installed, and a PostgreSQL database is copied with it: install PostgreSQL's "
            "client programs (Debian and Ubuntu: apt install postgresql-client), the same major version "
            "as the server or newer"
        )
    return found


def _run(arguments: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        arguments, env=environment, capture_output=True, text=True, timeout=PG_TIMEOUT_SECONDS, check=False
    )
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[:500]
        raise BackupError(f"{Path(arguments[0]).name} failed: {said}")
    return done


def _dump_postgres(url: str, destination: Path) -> None:
    target, environment = _libpq(url)
    _run([postgres_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={destination}", target], environment)


def check_copy(path: Path, *, sqlite: bool) -> Checked:
    """That the copy at `path` is whole and is a pbm database at a migration this code knows;
    `BackupError` saying what is wrong otherwise."""
    if not path.is_file():
        raise BackupError(f"there is no file at {path}")
    revision = _sqlite_revision(path) if sqlite else _dump_revision(path)
    script = _scripts()
    if revision is None:
        raise BackupError(f"{path} is not a pbm database: it has no migration recorded")
    try:
        known = script.get_revision(revision)
    except Exception:
        known = None
    if known is None:
        raise BackupError(
            f"{path} is at migration {revision}, which this version of pbm does not know: "
            "restore it with the version that made it, or a newer one"
        )
    return Checked(revision, script.get_current_head() or revision)


def _scripts() -> ScriptDirectory:
    """The migrations this version of pbm knows."""
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    return ScriptDirectory.from_config(config)


def _sqlite_revision(path: Path) -> str | None:
    with open(path, "rb") as file:
        if file.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path} is not an SQLite database")
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        problems = _integrity_problems(connection)
        if problems:
            raise BackupError(f"{path} failed its integrity check: {problems}")
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "alembic_version" not in tables:
            return None
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        return None if row is None else str(row[0])
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} cannot be read as a database: {error}") from None
    finally:
        connection.close()


def _dump_revision(path: Path) -> str | None:
    """The migration recorded in a pg_dump archive, read without restoring it."""
    environment = dict(os.environ)
    listed = _run([postgres_tool("pg_restore"), "--list", str(path)], environment).stdout
    if " TABLE DATA public alembic_version " not in listed:
        return None
    data = _run(
        [postgres_tool("pg_restore"), "--data-only", "--table=alembic_version", "--file=-", str(path)], environment
    ).stdout
    rows = data.split("FROM stdin;\n", 1)
    if len(rows) < 2:
        return None
    first = rows[1].split("\n", 1)[0].strip()
    return first if first and first != "\\." else None


def holds_data(database: Database) -> bool:
    """Whether `database` holds anything a restore would destroy: any table but those a fresh
    ``pbm db upgrade`` makes, or a row in them (a player, a received mail, a game). A database
    just migrated and still empty is no loss, and is restored into without ``--force``."""
    if database.is_sqlite:
        path = _sqlite_path(database.url)
        if not path.is_file() or path.stat().st_size == 0:
            return False
    from sqlalchemy import inspect, text

    from pbm.store.models import Base

    ours = set(Base.metadata.tables) | {"alembic_version"}
    with database.engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        if tables - ours:
            return True
        return any(
            connection.execute(text(f"SELECT 1 FROM {table} LIMIT 1")).first() is not None
            for table in ("players", "inbound_messages", "games", "outbox_messages")
            if table in tables
        )


def restore(database: Database, copy: Path) -> Checked:
    """Put the checked `copy` in place of `database`'s contents, then bring it to this code's
    migration. The caller has checked the copy (`check_copy`) and decided about a live database."""
    checked = check_copy(copy, sqlite=database.is_sqlite)
    database.dispose()
    if database.is_sqlite:
        path = _sqlite_path(database.url)
        path.parent.mkdir(parents=True, exist_ok=True)
        # The backup API again, the other way: it writes through SQLite's locks and log, so the
        # restored database is whole even for a process that still had the old one open.
        source = sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)
        into = sqlite3.connect(path, timeout=30)
        try:
            source.backup(into)
            into.execute("PRAGMA journal_mode=WAL")
        finally:
            into.close()
            source.close()
    else:
        dbname, environment = _libpq(database.url)
        _run(
            [
                postgres_tool("pg_restore"),
                "--clean",
                "--if-exists",
                "--no-owner",
                "--single-transaction",
                f"--dbname={dbname}",
                str(copy),
            ],
            environment,
        )
    if checked.revision != checked.head:
        database.upgrade()
    return checked
