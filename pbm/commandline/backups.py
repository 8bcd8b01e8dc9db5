"""``pbm backup`` and ``pbm restore``: the database and the keys, copied while the server runs, and put back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pbm.commandline import subcommand
from pbm.config import Settings, load_settings

if TYPE_CHECKING:
    from pbm.store.database import Database


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", type=Path, help="a file to write, or a folder to write a new backup in")
    parser.add_argument(
        "--encrypt-to",
        metavar="PUBLIC_KEY_FILE",
        type=Path,
        help="encrypt the backup to this X25519 public key (PEM or DER: openssl genpkey -algorithm x25519, "
        "then openssl pkey -pubout); keep its private key off the server",
    )


@subcommand(
    "copy the database while the server runs",
    description=(
        "Copy the database while the server runs (SQLite with its backup API, PostgreSQL with pg_dump), "
        "with the server's secret key and signing keys: all a new machine needs to carry on. The backup "
        "is readable by the server's user alone, and encrypted with --encrypt-to. Without PATH it goes to "
        "PBM_HOME/backups and only the newest PBM_BACKUP_KEEP are kept."
    ),
    arguments=_backup_arguments,
)
def backup(args: argparse.Namespace) -> int:
    """``pbm backup [PATH]``: a copy of the database and the keys now; 1 when none could be made."""
    from pbm.crypto import sealed
    from pbm.store.backup import BackupError
    from pbm.store.backup import backup as copy
    from pbm.store.backup_keys import gather
    from pbm.store.database import Database

    settings = load_settings()
    target: Path = args.path if args.path is not None else settings.home / "backups"
    database = Database(settings.database_url, timeout=settings.database_timeout)
    try:
        seal_to = sealed.public_key(args.encrypt_to) if args.encrypt_to is not None else None
        if args.path is None:
            target.mkdir(parents=True, exist_ok=True, mode=0o700)
        keys = gather(settings.home, settings.secret_key)
        made = copy(database, target, keep=settings.backup_keep, keys=keys, seal_to=seal_to)
    except (BackupError, sealed.SealError) as error:
        print(f"pbm backup: {error}", file=sys.stderr)
        return 1
    finally:
        database.dispose()
    print(f"backed up to {made.path} ({made.size:,} bytes in {made.seconds:.2f} s)")
    carried = "the secret key" if "secret.key" in keys else "no secret key"
    signing = sum(1 for name in keys if name.startswith("signing/"))
    sealed_to = f", encrypted to {args.encrypt_to}" if seal_to is not None else ""
    print(f"with the database: {carried} and {signing} signing key file(s){sealed_to}")
    for old in made.pruned:
        print(f"deleted the older backup {old}")
    return 0


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the backup file")
    parser.add_argument(
        "--decrypt-with",
        metavar="PRIVATE_KEY_FILE",
        type=Path,
        help="the X25519 private key an encrypted backup was made for (pbm backup --encrypt-to)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace a database that holds data (stop pbm serve first)"
    )


@subcommand(
    "put a backup in place of the database",
    description=(
        "Check a backup (whole, a pbm database, at a migration this version knows), then put it in place "
        "of the database and migrate it, and put the keys it carries back into PBM_HOME. A database "
        "that holds data is replaced only with --force, and is backed up first."
    ),
    arguments=_restore_arguments,
)
def restore(args: argparse.Namespace) -> int:
    """``pbm restore PATH``: 1 when the copy is refused or the database holds data and --force is not given."""
    from pbm.crypto import sealed
    from pbm.store.backup import BackupError, opened
    from pbm.store.database import Database
    from pbm.store.holding import Held, exclusively

    settings = load_settings()
    database = Database(settings.database_url, timeout=settings.database_timeout)
    try:
        key = sealed.private_key(args.decrypt_with) if args.decrypt_with is not None else None
        with opened(args.path, sqlite=database.is_sqlite, scratch=settings.home, decrypt_with=key) as copy:
            with exclusively(database):  # no server writes into the database while it is replaced
                if not _restore_database(settings, database, args, copy.database):
                    return 1
                _put_keys_back(settings, copy.keys)
    except (BackupError, sealed.SealError, Held) as error:
        print(f"pbm restore: {error}", file=sys.stderr)
        return 1
    finally:
        database.dispose()
    return 0


def _restore_database(settings: Settings, database: Database, args: argparse.Namespace, copy: Path) -> bool:
    """The checks before a restore, and the restore: False when refused (said on stderr)."""
    from pbm.store.backup import backup, check_copy, drop_foreign_objects, holds_data, restore
    from pbm.store.backup_keys import gather

    checked = check_copy(copy, sqlite=database.is_sqlite)
    print(f"{args.path} is a pbm database at migration {checked.revision}; its integrity check passed")
    if holds_data(database):
        if not args.force:
            print(
                "pbm restore: the database already holds data, and restoring would replace it. "
                "Stop pbm serve, then run this again with --force (the database is backed up first).",
                file=sys.stderr,
            )
            return False
        folder = settings.home / "backups"
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        kept = backup(database, folder, keys=gather(settings.home, settings.secret_key))
        print(f"backed up the database it replaces, and the keys, to {kept.path}")
    for dropped in drop_foreign_objects(database):  # they would act on the restored data
        print(f"dropped the {dropped} left in the database, which pbm does not make")
    restore(database, copy)
    upgraded = " and migrated it to the newest schema" if checked.revision != checked.head else ""
    print(f"restored {args.path}{upgraded}")
    return True


def _put_keys_back(settings: Settings, keys: dict[str, str] | None) -> None:
    """The keys a backup carried, back in PBM_HOME, and what was (or was not) restored, said."""
    from pbm.store.backup_keys import put_back

    home = settings.home
    if keys is None:
        print(
            "the keys were not in it (a backup made before pbm carried them): copy secret.key and signing/ "
            f"from the old machine's data folder into {home}, or reply addresses in mail sent before and "
            "records signed before will not be accepted"
        )
        return
    put = put_back(home, keys)
    if put.secret_key:
        print(f"restored the secret key to {home / 'secret.key'}")
        if settings.secret_key and settings.secret_key + "\n" != keys["secret.key"]:
            print("warning: PBM_SECRET_KEY is set and differs from it, and the setting wins: unset it", file=sys.stderr)
    if put.signing_keys:
        print(f"restored the signing keys to {home / 'signing'} ({put.signing_keys} files)")
    if not put.secret_key and not put.signing_keys:
        print("the backup holds no keys: the server it was taken from had made none yet")
