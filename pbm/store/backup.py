"""Copies of the database taken while the server runs, and putting one back.

SQLite is copied with its online backup API: the copy is one consistent moment of the
database, taken while the server goes on writing (a writer waits a few milliseconds at most
per step), then checked with ``PRAGMA integrity_check`` before it is kept. PostgreSQL is
copied by ``pg_dump`` (one snapshot of the whole database, in its custom format), which must
be installed: it comes with PostgreSQL's client programs.

A copy is written under a temporary name and renamed once complete, so a crash leaves no
half copy under a backup's name; only files with a backup's name are ever pruned. Every file
is made readable by the server's user alone, whatever the umask: it holds the players' data and
the server's keys.

A backup carries the server's keys (`pbm.store.backup_keys`), and with `seal_to` is encrypted
to an administrator's public key (`pbm.crypto.sealed`); `opened` undoes both before a restore, and
still takes a backup made before backups carried keys: a plain database copy.

Restoring checks the copy before touching anything: that it is whole (the integrity check,
or ``pg_restore --list``), that it is a pbm database at a migration this code knows, and that it
holds no trigger, view, rule or function pbm does not make (one could rewrite a password hash on
each update). It never replaces a database that holds data unless asked to (``force``), and then
it first takes a backup of what it replaces; it never runs while a server holds the database
(`pbm.store.holding`).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from sqlalchemy.engine import URL, make_url

from pbm.crypto import sealed
from pbm.resources import resource_dir
from pbm.store import backup_keys
from pbm.store.backup_keys import Bundle
from pbm.store.database import Database, create_private

SQLITE_SUFFIX = ".sqlite3"
POSTGRES_SUFFIX = ".pgdump"
PACKED_SUFFIX = ".tar"
"""After ``.pgdump``: the dump and the keys, in one tar."""
SEALED_SUFFIX = ".sealed"
"""After the rest: encrypted to an administrator's key."""
_NAMED = re.compile(r"^pbm-\d{8}T\d{6}(\d{6})?Z\.(sqlite3|pgdump|pgdump\.tar)(\.sealed)?$")
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


def backup_name(url: str, now: datetime, *, keys: bool = True, sealed: bool = False) -> str:
    """``pbm-20261126T142500123456Z.sqlite3``: sortable, and telling which database made it, and
    how (``.pgdump.tar`` a dump with its keys, ``.sealed`` encrypted)."""
    suffix = SQLITE_SUFFIX if url.startswith("sqlite") else POSTGRES_SUFFIX
    if keys and suffix == POSTGRES_SUFFIX:
        suffix += PACKED_SUFFIX
    if sealed:
        suffix += SEALED_SUFFIX
    return f"pbm-{now.astimezone(timezone.utc):%Y%m%dT%H%M%S%fZ}{suffix}"


def backup(
    database: Database,
    target: Path,
    *,
    keep: int | None = None,
    keys: Bundle | None = None,
    seal_to: X25519PublicKey | None = None,
) -> Made:
    """Copy `database` to `target`: a file, or a directory to write a newly named backup in
    (then the newest `keep` backups there are kept, and the older ones deleted). `keys`: the
    server's key files, carried in the copy; `seal_to`: a public key to encrypt the copy to."""
    started = time.monotonic()
    if target.is_dir():
        now = datetime.now(timezone.utc)
        path = target / backup_name(database.url, now, keys=keys is not None, sealed=seal_to is not None)
    else:
        path = target
        keep = None  # a file named by hand is not one of a series
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_name(path.name + ".partial")
    plain = path.with_name(path.name + ".plain.partial")
    try:
        _write_copy(database, plain if seal_to is not None else partial, keys)
        if seal_to is not None:
            sealed.seal(plain, partial, seal_to)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
        plain.unlink(missing_ok=True)
    pruned = prune(path.parent, keep) if keep is not None else ()
    return Made(path, path.stat().st_size, time.monotonic() - started, pruned)


def _write_copy(database: Database, destination: Path, keys: Bundle | None) -> None:
    """The database's copy at `destination`, with `keys` in it unless None."""
    if database.is_sqlite:
        _copy_sqlite(_sqlite_path(database.url), destination)
        if keys is not None:
            backup_keys.embed_in_sqlite(destination, keys)
        return
    if keys is None:
        _dump_postgres(database.url, destination)
        return
    dump = destination.with_name(destination.name + ".dump")
    try:
        _dump_postgres(database.url, dump)
        backup_keys.pack_with_dump(dump, keys, destination)
    finally:
        dump.unlink(missing_ok=True)


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
    destination.unlink(missing_ok=True)
    create_private(destination)  # before SQLite opens it: it would make it as the umask says
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
    destination.unlink(missing_ok=True)
    create_private(destination)  # pg_dump writes into it, keeping its mode
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
    foreign = _sqlite_foreign_objects(path) if sqlite else _dump_foreign_objects(path)
    if foreign:
        raise BackupError(
            f"{path} holds what pbm does not make: {', '.join(foreign[:10])}. A trigger, view, rule or function "
            "left in a database would run on the server's data (one rewriting a password hash, one showing "
            "hashes): restore a copy without them, or drop them from a copy of this one and restore that"
        )
    return Checked(revision, script.get_current_head() or revision)


def _scripts() -> ScriptDirectory:
    """The migrations this version of pbm knows."""
    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    return ScriptDirectory.from_config(config)


OWN_OBJECTS: frozenset[str] = frozenset()
"""The triggers, views, rules and functions pbm's migrations make (``kind name``): none. A migration
that makes one names it here, or no backup of a database it migrated restores (tests/test_backup.py
restores such backups on both engines)."""
FOREIGN_KINDS = ("TRIGGER", "VIEW", "MATERIALIZED VIEW", "RULE", "FUNCTION", "PROCEDURE", "EVENT TRIGGER", "POLICY")
_LISTED = re.compile(r"^\d+; \d+ \d+ (" + "|".join(sorted(FOREIGN_KINDS, key=len, reverse=True)) + r") (.*)$")


def _sqlite_foreign_objects(path: Path) -> list[str]:
    """The triggers and views in the SQLite copy at `path` that pbm does not make."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view')")
        found = [f"{kind} {name}" for kind, name in rows]
    finally:
        connection.close()
    return sorted(name for name in found if name not in OWN_OBJECTS)


def _dump_foreign_objects(path: Path) -> list[str]:
    """The triggers, views, rules, functions... in the pg_dump archive at `path` that pbm does not make."""
    listed = _run([postgres_tool("pg_restore"), "--list", str(path)], dict(os.environ)).stdout
    found = []
    for line in listed.splitlines():
        match = _LISTED.match(line)
        if match:
            name = " ".join(match.group(2).split()[:-1])  # schema, (table,) name; the owner dropped
            found.append(f"{match.group(1).lower()} {name}")
    return sorted(name for name in found if name not in OWN_OBJECTS)


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


_LIVE_FOREIGN = {
    "trigger": (
        "SELECT 'trigger', format('%I ON %s', t.tgname, t.tgrelid::regclass) FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE NOT t.tgisinternal AND n.nspname = current_schema()"
    ),
    "view": "SELECT 'view', format('%I.%I', schemaname, viewname) FROM pg_views WHERE schemaname = current_schema()",
    "materialized view": (
        "SELECT 'materialized view', format('%I.%I', schemaname, matviewname) FROM pg_matviews "
        "WHERE schemaname = current_schema()"
    ),
    "event trigger": "SELECT 'event trigger', quote_ident(evtname) FROM pg_event_trigger",
}
"""What a PostgreSQL restore must not leave in place: objects ``pg_restore --clean`` does not drop
(it drops only what the archive holds), and that would go on acting on the restored data."""


def drop_foreign_objects(database: Database) -> list[str]:
    """Drop the triggers and views of the PostgreSQL `database` that pbm does not make; returns
    what was dropped. (An SQLite restore replaces the whole file: nothing of the old one stays.)"""
    if database.is_sqlite:
        return []
    from sqlalchemy import text

    dropped = []
    with database.engine.begin() as connection:
        for query in _LIVE_FOREIGN.values():
            for kind, name in connection.execute(text(query)).all():
                if f"{kind} {name}" not in OWN_OBJECTS:
                    connection.execute(text(f"DROP {kind.upper()} IF EXISTS {name} CASCADE"))
                    dropped.append(f"{kind} {name}")
    return dropped


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


@dataclass(frozen=True)
class Opened:
    """A backup made ready to restore: a plain database copy, and the keys it carried (None: a
    backup made before backups carried keys)."""

    database: Path
    keys: Bundle | None


@contextmanager
def opened(
    copy: Path, *, sqlite: bool, scratch: Path, decrypt_with: X25519PrivateKey | None = None
) -> Iterator[Opened]:
    """The backup at `copy` decrypted and its keys taken out, in files under `scratch` (readable by
    the server's user alone, deleted afterwards); `BackupError` when it cannot be."""
    if not copy.is_file():
        raise BackupError(f"there is no file at {copy}")
    scratch.mkdir(parents=True, exist_ok=True, mode=0o700)
    stem = scratch / f".restore-{os.getpid()}-{time.monotonic_ns()}"
    made = [stem.with_suffix(suffix) for suffix in (".plain", ".work")]
    try:
        try:
            plain = _decrypted(copy, made[0], decrypt_with)
            unpacked = _without_keys(plain, made[1], sqlite=sqlite)
        except (ValueError, tarfile.TarError, sqlite3.DatabaseError) as error:
            raise BackupError(f"{copy} cannot be read as a pbm backup: {error}") from None
        yield unpacked
    finally:
        for path in made:
            path.unlink(missing_ok=True)


def _decrypted(copy: Path, into: Path, key: X25519PrivateKey | None) -> Path:
    if not sealed.is_sealed(copy):
        return copy
    if key is None:
        raise BackupError(
            f"{copy} is encrypted: give the private key it was encrypted to with --decrypt-with PRIVATE_KEY_FILE"
        )
    try:
        sealed.unseal(copy, into, key)
    except sealed.SealError as error:
        raise BackupError(str(error)) from None
    return into


def _without_keys(plain: Path, work: Path, *, sqlite: bool) -> Opened:
    """The database copy of `plain` apart from its keys (in `work` when they had to be taken out)."""
    if sqlite:
        check_copy(plain, sqlite=True)  # before anything reads it: a copy that is no pbm database is said so
        create_private(work)
        source, into = sqlite3.connect(f"{plain.resolve().as_uri()}?mode=ro", uri=True), sqlite3.connect(work)
        try:
            source.backup(into)
        finally:
            into.close()
            source.close()
        return Opened(work, backup_keys.take_from_sqlite(work))
    if not backup_keys.is_packed(plain):
        return Opened(plain, None)
    return Opened(work, backup_keys.unpack_dump(plain, work))


def restore(database: Database, copy: Path) -> Checked:
    """Put the checked `copy` in place of `database`'s contents, then bring it to this code's
    migration. The caller has checked the copy (`check_copy`) and decided about a live database."""
    checked = check_copy(copy, sqlite=database.is_sqlite)
    database.dispose()
    if database.is_sqlite:
        path = _sqlite_path(database.url)
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)
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
