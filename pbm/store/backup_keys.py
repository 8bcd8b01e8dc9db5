"""The server's keys, carried in its backups: without them a restored club cannot carry on.

The secret key makes every reply address and bounce address the server ever mailed, and the
signing keys signed every receipt and record: a database restored without them answers each
old board mail "not a reply address of this server", and ``pbm verify --keys`` rejects every
earlier record. So a backup carries them, as a *bundle*: each key file's path under PBM_HOME
(``secret.key``, ``signing/current.key``, ``signing/<key id>.pub``) and its text.

An SQLite backup keeps the bundle in a table of its own inside the copy (`TABLE`), so the
copy stays one file that SQLite reads; restoring takes it out of a scratch copy, which is
then rewritten without it (``secure_delete`` and ``VACUUM``), so no key reaches the live
database, not even its free pages. A PostgreSQL backup is a tar of the ``pg_dump`` archive
and the bundle (`DUMP_MEMBER`, `KEYS_MEMBER`).
"""

from __future__ import annotations

import io
import json
import os
import secrets
import sqlite3
import tarfile
from dataclasses import dataclass
from pathlib import Path

TABLE = "pbm_backup_keys"
"""The bundle's table in an SQLite backup: never in a live database (see the module's docstring)."""
DUMP_MEMBER = "database.pgdump"
KEYS_MEMBER = "keys.json"
SECRET = "secret.key"
SIGNING = "signing"
LARGEST_KEY_FILE = 4096
"""Bytes a key file may have in a bundle: keys are some 70 bytes; anything bigger is not ours."""

Bundle = dict[str, str]
"""A key file's path under PBM_HOME -> its text."""


@dataclass(frozen=True)
class PutBack:
    """What a restore wrote back into PBM_HOME."""

    secret_key: bool
    signing_keys: int
    """How many signing key files (the private key and every public key)."""


def gather(home: Path, secret_key_setting: str | None) -> Bundle:
    """The key files of `home`, as they are now (nothing is made). A secret key given by
    ``PBM_SECRET_KEY`` is carried as ``secret.key``: a new machine without the setting needs it."""
    bundle: Bundle = {}
    if secret_key_setting:
        bundle[SECRET] = secret_key_setting + "\n"
    elif (home / SECRET).is_file():
        bundle[SECRET] = (home / SECRET).read_text()
    folder = home / SIGNING
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.name == "current.key" or (path.suffix == ".pub" and not path.name.startswith(".")):
                bundle[f"{SIGNING}/{path.name}"] = path.read_text()
    return bundle


def _valid(bundle: object) -> Bundle:
    """`bundle` if it is one; a file name outside the two places keys live is refused, so a
    crafted backup cannot write anywhere else in PBM_HOME (or outside it)."""
    if not isinstance(bundle, dict):
        raise ValueError("the keys in the backup are not a list of files")
    for name, text in bundle.items():
        allowed = name == SECRET or (
            name.startswith(f"{SIGNING}/")
            and "/" not in name[len(SIGNING) + 1 :]
            and (name == f"{SIGNING}/current.key" or (name.endswith(".pub") and name[len(SIGNING) + 1].isalnum()))
        )
        if not allowed or not isinstance(text, str) or len(text) > LARGEST_KEY_FILE:
            raise ValueError(f"the backup names a key file pbm does not make: {name[:80]!r}")
    return bundle


def put_back(home: Path, bundle: Bundle) -> PutBack:
    """Write `bundle`'s files into `home`, each whole (a temporary file renamed into place),
    private ones readable by the server's user alone."""
    for name, text in _valid(bundle).items():
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        private = not name.endswith(".pub")
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o644)
        try:
            with os.fdopen(fd, "w") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    signing = sum(1 for name in bundle if name.startswith(f"{SIGNING}/"))
    return PutBack(SECRET in bundle, signing)


# -- in an SQLite copy -----------------------------------------------------------------


def embed_in_sqlite(copy: Path, bundle: Bundle) -> None:
    """Add `bundle` to the SQLite backup at `copy` (a file no server uses)."""
    connection = sqlite3.connect(copy)
    try:
        with connection:
            connection.execute(f"CREATE TABLE {TABLE} (path TEXT PRIMARY KEY, content TEXT NOT NULL)")
            connection.executemany(f"INSERT INTO {TABLE} VALUES (?, ?)", sorted(bundle.items()))
    finally:
        connection.close()


def take_from_sqlite(copy: Path) -> Bundle | None:
    """The bundle in the SQLite copy at `copy`, which is then rewritten without it; None when the
    copy has none (a backup made before backups carried the keys)."""
    connection = sqlite3.connect(copy)
    try:
        found = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,))
        if found.fetchone() is None:
            return None
        bundle = dict(connection.execute(f"SELECT path, content FROM {TABLE}").fetchall())
        connection.execute("PRAGMA secure_delete=ON")
        connection.execute(f"DROP TABLE {TABLE}")
        connection.commit()
        connection.execute("VACUUM")
    finally:
        connection.close()
    return _valid(bundle)


# -- beside a PostgreSQL dump ----------------------------------------------------------


def pack_with_dump(dump: Path, bundle: Bundle, destination: Path) -> None:
    """A tar at `destination` (made readable by its owner alone) of `dump` and `bundle`."""
    fd = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as file, tarfile.open(fileobj=file, mode="w") as archive:
        archive.add(dump, arcname=DUMP_MEMBER)
        keys = json.dumps(bundle, sort_keys=True).encode()
        member = tarfile.TarInfo(KEYS_MEMBER)
        member.size, member.mode = len(keys), 0o600
        archive.addfile(member, io.BytesIO(keys))
        file.flush()
        os.fsync(file.fileno())


def is_packed(path: Path) -> bool:
    return tarfile.is_tarfile(path)


def unpack_dump(path: Path, dump: Path) -> Bundle:
    """Write the archive's dump to `dump` (readable by its owner alone); returns its bundle."""
    with tarfile.open(path, mode="r:") as archive:
        names = archive.getnames()
        if sorted(names) != sorted([DUMP_MEMBER, KEYS_MEMBER]):
            raise ValueError(f"the archive holds {', '.join(names[:5]) or 'nothing'}, not a pbm backup")
        source = archive.extractfile(DUMP_MEMBER)
        keys = archive.extractfile(KEYS_MEMBER)
        if source is None or keys is None:
            raise ValueError("the archive's members are not files")
        fd = os.open(dump, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            while chunk := source.read(1 << 20):
                file.write(chunk)
        return _valid(json.loads(keys.read(64 * LARGEST_KEY_FILE)))
