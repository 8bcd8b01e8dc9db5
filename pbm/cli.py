"""The ``pbm`` command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path
from typing import TYPE_CHECKING

from pbm.config import ConfigError, Settings, load_settings

if TYPE_CHECKING:
    from pbm.doctor import ProviderSetup
    from pbm.serving.server import Server
    from pbm.store.database import Database
    from pbm.store.inbox import Stored
    from pbm.store.models import OutboxMessage

log = logging.getLogger(__name__)

EX_NOUSER = 67
"""`pbm process`: the mail is not for us; the MTA bounces it."""
EX_TEMPFAIL = 75
"""`pbm process`: the mail could not be stored; the MTA keeps it and tries again later."""


class UsageError(Exception):
    """Arguments the parser took that the subcommand cannot: said as the parser says its own."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    _configure_logging(args.command)
    from pbm.store.database import SchemaOutOfDate

    try:
        return SUBCOMMANDS[args.command](args)
    except UsageError as error:
        parser.error(str(error))
    except (ConfigError, SchemaOutOfDate) as error:
        print(f"pbm: {error}", file=sys.stderr)
        return 2


# -- what each subcommand needs, and no more ---------------------------------------


def _database(settings: Settings) -> Database:
    """The database alone, its schema checked: what a read-only admin command opens."""
    from pbm.store.database import Database

    database = Database(settings.database_url, timeout=settings.database_timeout)
    try:
        database.check_schema()
    except BaseException:
        database.dispose()
        raise
    return database


def _server(settings: Settings, *, agree: bool = True) -> Server:
    """The whole server as `pbm serve` wires it (not listening): for commands that process or send mail.
    Its keys are the club's (`Server.agree_on_keys`) unless `agree` is False (a rehearsal changes nothing)."""
    from pbm.serving.server import Server

    server = Server(settings)
    try:
        server.database.check_schema()
        if agree:
            server.agree_on_keys()
    except BaseException:
        server.close()
        raise
    return server


def _parser() -> argparse.ArgumentParser:
    """Every subcommand with its arguments: what ``pbm --help`` and ``pbm COMMAND --help`` print."""
    parser = argparse.ArgumentParser(prog="pbm", description="A play-by-email board-game server.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the SMTP and web server (configured by PBM_* variables)")
    serve.add_argument(
        "--no-process",
        action="store_true",
        help="only receive and store mail; leave processing to another `pbm serve` or `pbm process`",
    )

    db = commands.add_parser("db", help="database maintenance")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_commands.add_parser("upgrade", help="migrate the database schema to the newest version")

    process = commands.add_parser(
        "process", help="process one raw RFC 5322 message offline (e.g. from a Postfix pipe transport)"
    )
    process.add_argument("file", help="the message file, or - for standard input")
    process.add_argument("--sender", help="the envelope sender (default: the Return-Path header)")
    process.add_argument("--recipient", action="append", help="the envelope recipient (default: PBM_ADDRESS)")

    perft = commands.add_parser(
        "perft",
        help="count move sequences of a game (engine validation)",
        description="Count the legal move sequences of each length up to DEPTH and time the count.",
    )
    perft.add_argument("game", help="the game, e.g. cephalopod")
    perft.add_argument("depth", type=int, help="the longest sequence to count (0 or more)")
    perft.add_argument("--size", type=int, help="board size option (-size=N)")
    perft.add_argument("--dice", type=int, help="dice option (-dice=N)")
    perft.add_argument("--players", type=int, default=2, help="number of players (default 2)")
    perft.add_argument("--position", help="start from this position instead of the initial one")
    perft.add_argument(
        "--generic", action="store_true", help="walk legal_moves/apply even where the game has a faster counter"
    )
    perft.add_argument("--divide", action="store_true", help="also print the count at DEPTH for each first move")

    verify = commands.add_parser(
        "verify-dice",
        help="recompute every dice roll of a finished game from its revealed seed",
        description="Recompute every dice roll of a finished game from its revealed seed.",
        epilog=(
            'RECORD is a JSON file {"game", "players", "options", "commitment", "seed", "moves", "rolls"}'
            " as the server exports it; - or nothing reads standard input."
        ),
    )
    verify.add_argument("record", nargs="?", default="-", help="the game record (JSON); - for standard input")
    verify.add_argument("--list", action="store_true", help="print every recomputed roll")

    check = commands.add_parser(
        "verify",
        help="check a game record offline: every hash, the signature, every move, the dice",
        description=(
            "Check a game record (GET /<game>/<board>/record.json with its proof, "
            "GET /<game>/<board>/record.proof.json; or the attachment of `GAME record BOARD`, which holds "
            "both): the hash chain, the server's signature, every move replayed through the game's engine, "
            "and for a finished game with dice every roll against the revealed seed. Exit 0 when genuine; 1 "
            "naming the first thing wrong; 2 when a file cannot be read."
        ),
    )
    check.add_argument("file", help="the record (JSON); - for standard input")
    check.add_argument(
        "--proof",
        metavar="FILE",
        type=Path,
        help="the record's proof (record.proof.json), when the record is the APGameRecord alone",
    )
    check.add_argument(
        "--keys",
        metavar="DIR",
        type=Path,
        help="a server's signing-key folder (var/signing): the signature must be by one of its keys",
    )

    keys = commands.add_parser("keys", help="the server's signing keys (receipts and records)")
    key_commands = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    key_commands.add_parser("show", help="print every public key, the current one first")
    key_commands.add_parser(
        "rotate", help="sign with a new key from now on; the old public key stays, so what it signed still verifies"
    )

    record = commands.add_parser("dice-record", help="print the dice record of a finished game (for verify-dice)")
    record.add_argument("game", help="the game type, e.g. dodeca")
    record.add_argument("board", type=int, help="the board number")

    tick = commands.add_parser(
        "tick",
        help="run the time pass once: reminders, forfeits, vacations, expired open challenges",
        description=(
            "Run the time pass once, as `pbm serve` does every minute (for cron or a systemd timer; "
            "deploy/pbm-tick.timer), and deliver what it queued. Running it twice, or from two "
            "hosts at once, sends each reminder once and applies each forfeit once."
        ),
    )
    tick.add_argument(
        "--now",
        metavar="TIMESTAMP",
        type=_timestamp,
        help=(
            "rehearse the pass as if it were TIMESTAMP (ISO 8601, UTC unless it has an offset, e.g. "
            "2026-12-24T09:00): print what it would do, change nothing and send nothing"
        ),
    )

    inbox = commands.add_parser("inbox", help="show received mail that failed, or was not answered")
    inbox.add_argument("--retry", type=int, nargs="+", metavar="ID", help="process these failed mails again")
    inbox.add_argument(
        "--duplicates",
        action="store_true",
        help="also list the copies recorded as duplicates of a mail processed before (each names it)",
    )

    outbox = commands.add_parser("outbox", help="show mail waiting for delivery, held back, or failed")
    outbox.add_argument("--all", action="store_true", help="also list delivered mail")
    outbox.add_argument(
        "--resume",
        metavar="ADDRESS",
        action="append",
        default=[],
        help="mail goes to ADDRESS again, though it bounced; what waited for it goes",
    )

    backup = commands.add_parser(
        "backup",
        help="copy the database while the server runs",
        description=(
            "Copy the database while the server runs (SQLite with its backup API, PostgreSQL with pg_dump), "
            "with the server's secret key and signing keys: all a new machine needs to carry on. The backup "
            "is readable by the server's user alone, and encrypted with --encrypt-to. Without PATH it goes to "
            "PBM_HOME/backups and only the newest PBM_BACKUP_KEEP are kept."
        ),
    )
    backup.add_argument("path", nargs="?", type=Path, help="a file to write, or a folder to write a new backup in")
    backup.add_argument(
        "--encrypt-to",
        metavar="PUBLIC_KEY_FILE",
        type=Path,
        help="encrypt the backup to this X25519 public key (PEM or DER: openssl genpkey -algorithm x25519, "
        "then openssl pkey -pubout); keep its private key off the server",
    )

    restore = commands.add_parser(
        "restore",
        help="put a backup in place of the database",
        description=(
            "Check a backup (whole, a pbm database, at a migration this version knows), then put it in place "
            "of the database and migrate it, and put the keys it carries back into PBM_HOME. A database "
            "that holds data is replaced only with --force, and is backed up first."
        ),
    )
    restore.add_argument("path", type=Path, help="the backup file")
    restore.add_argument(
        "--decrypt-with",
        metavar="PRIVATE_KEY_FILE",
        type=Path,
        help="the X25519 private key an encrypted backup was made for (pbm backup --encrypt-to)",
    )
    restore.add_argument(
        "--force", action="store_true", help="replace a database that holds data (stop pbm serve first)"
    )

    config = commands.add_parser("config", help="the server's settings")
    config_commands = config.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    config_commands.add_parser("show", help="print every setting, its value and where it came from (secrets hidden)")

    doctor = commands.add_parser(
        "doctor",
        help="check the game domain's DNS for mail: MX, SPF, DKIM, DMARC and reverse DNS",
        description=(
            "Look up the domain's MX hosts, its SPF policy, the DKIM key at the selector the MTA signs with, "
            "its DMARC policy and the reverse DNS of the MX hosts' addresses, and say for each what is found "
            "and what is missing or wrong, with the record to add where it can. Exit 0 when the domain is "
            "ready for mail (with warnings or without), 1 when something required is missing or wrong, or "
            "the DNS did not answer. Changes nothing."
        ),
    )
    doctor.add_argument(
        "domain", nargs="?", help="the game's domain, e.g. games.example.org (default: the domain of PBM_ADDRESS)"
    )
    doctor.add_argument(
        "--selector", type=_selector, help="the DKIM selector the MTA signs with (default: PBM_DKIM_SELECTOR)"
    )

    return parser


def _selector(text: str) -> str:
    from pbm.config import DKIM_SELECTOR

    if not DKIM_SELECTOR.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a DKIM selector: {text!r} (e.g. pbm2026)")
    return text


def _timestamp(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 timestamp: {text!r} (e.g. 2026-12-24T09:00)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _serve(args: argparse.Namespace) -> int:
    """``pbm serve``: listen, process and deliver until stopped."""
    from pbm.serving.server import Server

    server = Server(load_settings())
    asyncio.run(server.run(process=not args.no_process))
    return 0


def _db(args: argparse.Namespace) -> int:
    """``pbm db upgrade``: migrate the schema to the newest version."""
    from pbm.store.database import Database

    settings = load_settings()
    Database(settings.database_url, timeout=settings.database_timeout).upgrade()
    print("database schema is up to date")
    return 0


def _tick(args: argparse.Namespace) -> int:
    """``pbm tick``: the time pass once, and delivery; with ``--now``, a rehearsal that changes nothing."""
    server = _server(load_settings(), agree=args.now is None)
    at: datetime | None = args.now
    time_pass = server.processor.time_pass
    now = time_pass.now()
    if at is not None and at < now:
        print(
            f"warning: {at:%Y-%m-%d %H:%M} UTC is in the past (now is {now:%Y-%m-%d %H:%M} UTC): what was due by "
            "then has been done, so this shows only what is overdue; give a later time to see what is coming",
            file=sys.stderr,
        )
    report = time_pass.rehearse(at) if at is not None else time_pass.run()
    rehearsal = at is not None
    print(f"time pass {'rehearsed as if at' if rehearsal else 'at'} {report.at:%Y-%m-%d %H:%M:%S} UTC")
    for line in report.done:
        print(f"  {'would queue' if rehearsal else 'queued'} {line}")
    for note in report.held:
        print(f"  {note.replace(' was held back', ' would be held back', 1)}")
    for what in report.failed:
        print(f"  failed at {what} (logged; the next pass tries again)")
    if report.pruned is not None:
        from pbm.words import Words

        print(f"  {Words().say(report.pruned)}")
    if not report.done and not report.failed and report.pruned is None:
        print("  nothing was due")
    if rehearsal:
        print("nothing was changed: this was a rehearsal")
        return 0
    try:
        sent = asyncio.run(server.delivery.deliver_due())
    except Exception:
        log.exception("delivering the outbox failed; the mail stays in it")
        return 1
    print(f"delivered {sent}")
    return 1 if report.failed else 0


def _process(args: argparse.Namespace) -> int:
    """Store one piped mail, then process and deliver what is due.

    The exit status is all the MTA learns: 0 once the mail is stored, whatever
    happens to it next (processing or delivery failing is logged, and a
    running `pbm serve` or the next `pbm process` takes it up again); 75 when
    it could not be stored, for any reason, so the MTA tries again later; 67
    when it is not for us.
    """
    from pbm.serving.server import Server
    from pbm.store.inbox import save_inbound

    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        settings = load_settings()
        server = Server(settings)
    except Exception as error:  # unreadable input, bad configuration, no database driver...
        return _not_stored(error)
    sender = args.sender if args.sender is not None else _return_path(raw)
    recipients = args.recipient or [settings.address]
    refused = [r for r in recipients if not server.addressing.accepts(r)]
    if refused:
        print(f"pbm: not our address: {', '.join(refused)}", file=sys.stderr)
        return EX_NOUSER

    def store() -> Stored:
        server.database.check_schema()
        server.agree_on_keys()  # a worker with other keys than the club's stores nothing: the MTA keeps it
        return save_inbound(server.database, raw, envelope_from=sender, envelope_to=recipients, peer="pbm process")

    try:
        row = asyncio.run(server.database.call(store))
    except Exception as error:
        return _not_stored(error)
    processed = sent = 0
    try:
        processed = server.processor.process_pending()
    except Exception:
        log.exception("inbound message %s is stored, but processing failed; it stays in the inbox", row.id)
    try:
        sent = asyncio.run(server.delivery.deliver_due())
    except Exception:
        log.exception("delivering the outbox failed; replies stay in it")
    print(f"stored inbound message {row.id} ({row.status}); processed {processed}; delivered {sent}")
    return 0


def _backup(args: argparse.Namespace) -> int:
    """``pbm backup [PATH]``: a copy of the database and the keys now; 1 when none could be made."""
    from pbm.crypto import sealed
    from pbm.store.backup import BackupError, backup
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
        made = backup(database, target, keep=settings.backup_keep, keys=keys, seal_to=seal_to)
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


def _restore(args: argparse.Namespace) -> int:
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


def _config(args: argparse.Namespace) -> int:
    """``pbm config show``: each setting, its value (secrets hidden) and where it came from."""
    from pbm.config import described, load

    loaded = load()
    rows = described(loaded)
    width = max(len(name) for name, _, _ in rows)
    print(f"configuration file: {loaded.file or 'none'}")
    for name, value, source in rows:
        print(f"{name:<{width}}  {value}  ({source})")
    return 0


def _perft(args: argparse.Namespace) -> int:
    """``pbm perft``: each depth's count of move sequences, with the time it took."""
    import time

    import pbm.games
    from pbm.games.perft import divide, perft

    if args.depth < 0:
        raise UsageError("perft: DEPTH must be 0 or more")
    options = {name: value for name in ("size", "dice") if (value := getattr(args, name)) is not None}
    try:
        game = pbm.games.get(args.game)
        if args.position is not None:
            state = game.from_position(args.position, options)
        else:
            state = game.new(players=args.players, options=options)
    except pbm.games.GameError as error:
        print(f"pbm perft: {error}", file=sys.stderr)
        return 2
    fast = not args.generic
    print(f"{'depth':>5} {'nodes':>14} {'seconds':>10} {'nodes/s':>12}")
    for depth in range(min(args.depth, 1), args.depth + 1):
        start = time.perf_counter()
        nodes = perft(game, state, depth, fast=fast)
        seconds = time.perf_counter() - start
        print(f"{depth:>5} {nodes:>14,} {seconds:>10.3f} {nodes / max(seconds, 1e-9):>12,.0f}")
    if args.divide and args.depth > 0:
        for move, nodes in divide(game, state, args.depth, fast=fast).items():
            print(f"{move} {nodes}")
    return 0


def _verify_dice(args: argparse.Namespace) -> int:
    """``pbm verify-dice``: 0 when every roll matches, 1 on a mismatch, 2 on a record that cannot be read."""
    from pbm.games import fairdice
    from pbm.records.reading import Unreadable, read_json
    from pbm.words import Words

    try:
        record = read_json(args.record)
    except Unreadable as unreadable:
        print("verify-dice: " + Words().say(unreadable.fact), file=sys.stderr)
        return 2
    try:
        if not isinstance(record, dict):
            raise fairdice.RecordError("the record must be a JSON object")
        result = fairdice.verify(record)
    except fairdice.RecordError as error:
        print(f"verify-dice: {error}", file=sys.stderr)
        return 2
    if args.list:
        for r in result.rolls:
            print(f"{r.index:5}  d{r.sides:<3} {r.face:3}  {r.what}")
    for problem in result.problems:
        print(problem)
    if result.ok:
        checked = "compared with the published faces" if "rolls" in record else "listed (no published faces given)"
        print(f"OK: the commitment matches the seed; {len(result.rolls)} rolls recomputed and {checked}")
        return 0
    print(f"FAILED: {len(result.problems)} problem(s)")
    return 1


def _verify(args: argparse.Namespace) -> int:
    """``pbm verify``: 0 when the record is genuine, 1 naming the first thing wrong, 2 unreadable
    (or a served record.json given without its proof)."""
    from pbm.crypto.keys import SigningKeys
    from pbm.facts import Fact
    from pbm.records import verify
    from pbm.records.reading import Unreadable, read_json
    from pbm.words import Words

    words = Words()
    try:
        record = read_json(args.file)
        if args.proof is not None:
            record = verify.combined(record, read_json(str(args.proof)))
    except Unreadable as error:
        print("pbm verify: " + words.say(error.fact), file=sys.stderr)
        return 2
    if verify.proof_apart(record):
        # Not "not genuine": half of what is needed to say so was given.
        apart = Fact("record-proof-apart", file=args.file, proof=verify.PROOF_FILE)
        print("pbm verify: " + words.say(apart), file=sys.stderr)
        return 2
    known = SigningKeys.known(args.keys) if args.keys is not None else None
    verdict = verify.verify(record, known_keys=known)
    for fact in verdict.checked:
        print(words.say(fact))
    if verdict.problem is not None:
        print("pbm verify: " + words.say(verdict.problem), file=sys.stderr)
        return 1
    return 0


def _keys(args: argparse.Namespace) -> int:
    """``pbm keys show|rotate``: the signing keys in PBM_HOME/signing; rotating records the new key
    in the database as the club's, so that every worker takes it up."""
    from pbm.config import secret_key, signing_keys
    from pbm.store.club_keys import KeysDisagree, rotate, secret_source

    settings = load_settings()
    keys = signing_keys(settings)
    if args.keys_command == "rotate":
        database = _database(settings)
        try:
            source = secret_source(settings.home, bool(settings.secret_key))
            keys = rotate(database, secret_key(settings), keys, secret_source=source)
        except KeysDisagree as error:
            print(f"pbm keys: {error}", file=sys.stderr)
            return 1
        finally:
            database.dispose()
    print(f"{keys.key_id} {keys.public_keys()[keys.key_id]} current")
    for identifier, public in keys.public_keys().items():
        if identifier != keys.key_id:
            print(f"{identifier} {public}")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """``pbm doctor [DOMAIN]``: the domain's DNS for mail, checked; 1 when something required is missing or wrong."""
    from pbm import doctor

    domain, selector = args.domain, args.selector
    if domain is None:
        settings = load_settings()
        if settings.inbound is not None:  # the provider receives, signs and sends: its own checks
            findings = doctor.diagnose_provider(_provider_setup(settings))
            for line in doctor.report(settings.domain, findings):
                print(line)
            return doctor.exit_status(findings)
    if domain is None or selector is None:
        settings = load_settings()
        domain = domain or settings.domain
        selector = selector or settings.dkim_selector
    domain = domain.lower().rstrip(".")
    if not doctor.DOMAIN.fullmatch(domain):
        raise UsageError(f"doctor: not a domain name: {domain!r} (give the game's domain, e.g. games.example.org)")
    try:
        resolver = doctor.system_resolver()
    except doctor.LookupFailed as error:
        print(f"pbm doctor: {error}", file=sys.stderr)
        return 1
    findings = doctor.diagnose(domain, selector, resolver)
    for line in doctor.report(domain, findings):
        print(line)
    return doctor.exit_status(findings)


def _provider_setup(settings: Settings) -> ProviderSetup:
    from pbm import doctor

    return doctor.ProviderSetup(
        address=settings.address,
        inbound=str(settings.inbound),
        outbound=str(settings.outbound),
        outbound_kind=settings.outbound.kind,
        max_per_day=settings.outbound_max_per_day,
        password_file=str(settings.mail_password_file) if settings.mail_password_file else None,
        password_command=bool(settings.mail_password_command),
    )


def _not_stored(error: Exception) -> int:
    """Say why a piped mail was not stored, and ask the MTA to try again later.

    The MTA logs this line, and quotes it to the sender should it give up in
    the end: the kind of error, not its text (which may name hosts and paths).
    """
    print(f"pbm: the mail could not be stored ({type(error).__name__}); try again later", file=sys.stderr)
    return EX_TEMPFAIL


def _configure_logging(command: str) -> None:
    """INFO to standard error, and quiet: a line per mail from the SMTP door, none per query.

    Alembic says what it sets up at every schema check ("Context impl SQLiteImpl", the plugins
    it loads): nothing a person needs. Of what it says at INFO only the migrations it runs are
    kept, so a command prints them when it runs one and is silent otherwise.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    migrations = logging.getLogger("alembic.runtime.migration")
    migrations.setLevel(logging.INFO)
    migrations.addFilter(_migration_run)


def _migration_run(record: logging.LogRecord) -> bool:
    """Alembic's own records worth a line: warnings, and each migration it runs."""
    return record.levelno >= logging.WARNING or record.getMessage().startswith(("Running upgrade", "Running downgrade"))


def _return_path(raw: bytes) -> str:
    """The envelope sender a delivering MTA wrote into the mail (``""`` when there is none)."""
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw)
        return str(headers.get("Return-Path") or "").strip().strip("<>")
    except Exception:  # a header block we cannot read names no sender
        return ""


def _dice_record(args: argparse.Namespace) -> int:
    """``pbm dice-record``: a finished game's dice record, read from the database alone."""
    import json

    import pbm.games
    from pbm.store import boards
    from pbm.views.board import dice_record

    game_type, board = args.game, args.board
    engine = pbm.games.get(game_type)
    database = _database(load_settings())
    with _disposed(database), database.reading() as session:
        game = boards.find(session, engine.name, board)
        if game is None:
            print(f"pbm: there is no {engine.title} board {board}", file=sys.stderr)
            return 1
        state = engine.load(game.state, game.secret)
        record = dice_record(engine, game, state, boards.moves_of(session, game))
        rolled = game.secret is not None and engine.published_rolls(state) is not None
    if record is None:
        why = "the seed stays secret until the end" if rolled else f"{engine.title} is played without dice"
        print(f"pbm: {engine.title} board {board} has no dice record to show: {why}", file=sys.stderr)
        return 1
    print(json.dumps(record, indent=2))
    return 0


def _inbox(args: argparse.Namespace) -> int:
    """``pbm inbox``: list what needs attention (the database alone), or ``--retry`` failed mail."""
    if args.retry:
        return _retry(args.retry)
    from pbm.store.inbox import needing_attention, status_counts
    from pbm.store.models import InboundStatus

    duplicates = args.duplicates
    database = _database(load_settings())
    with _disposed(database), database.reading() as session:
        for row in needing_attention(session, duplicates=duplicates):
            sender = row.envelope_from[:30]
            print(f"{row.id:6d} {row.status:9s} {row.received_at:%Y-%m-%d %H:%M} {sender:30s} {_whole(row.note)}")
        copies = status_counts(session).get(InboundStatus.DUPLICATE, 0)
        if copies and not duplicates:
            kept = f"{copies} cop{'y' if copies == 1 else 'ies'} recorded as duplicates"
            print(f"{kept}, not listed: pbm inbox --duplicates")
    return 0


def _retry(retry: list[int]) -> int:
    """``pbm inbox --retry``: requeue failed mails and process them, as `pbm serve` would."""
    from pbm.store.inbox import requeue_failed

    server = _server(load_settings())
    requeued = requeue_failed(server.database, retry)
    print(f"requeued {len(requeued)} of {len(retry)}: {' '.join(map(str, requeued)) or 'none'} (only failed mail)")
    processed = server.processor.process_pending()
    print(f"processed {processed}")
    return 0 if len(requeued) == len(retry) else 1


def _outbox(args: argparse.Namespace) -> int:
    """``pbm outbox``: what waits, is held or failed (and with ``--all`` what went), from the database alone."""
    from pbm.store import bounces, outbox

    database = _database(load_settings())
    with _disposed(database):
        for address in args.resume:
            with database.transaction() as session:
                waited = bounces.resume(session, address, datetime.now(timezone.utc))
            print(f"{address}: " + ("nothing bounced" if waited is None else f"resumed, {waited} held mail(s) go"))
        with database.reading() as session:
            for row in outbox.rows(session, include_sent=args.all):
                why = _held_why(row) if row.status == "held" else row.last_error
                print(f"{row.id:6d} {row.status:8s} {row.attempts:3d} {row.recipient:30s} {_whole(why)}")
            for bounced in bounces.reported(session):
                state = f"stopped since {bounced.stopped_at:%Y-%m-%d %H:%M} UTC" if bounced.stopped_at else "still sent"
                failures = f"{bounced.temporary_failures} temporary failure(s)"
                print(f"bounced {bounced.address:30s} {bounced.status:8s} {state}; {failures}")
    return 0


def _held_why(row: OutboxMessage) -> str:
    """Why a held mail waits, and until when, as `pbm outbox` says it."""
    when = f"goes at {row.release_at:%Y-%m-%d %H:%M} UTC" if row.release_at else "waits until released"
    return f"{row.hold_reason}; {when}"


def _whole(reason: str) -> str:
    """A recorded reason on the row's one line, all of it: cut short, it read wrong ("(a mail")."""
    return " ".join(reason.split())


@contextlib.contextmanager
def _disposed(database: Database) -> Iterator[None]:
    """Close `database`'s connections when the command is done with it."""
    try:
        yield
    finally:
        database.dispose()


Subcommand = Callable[[argparse.Namespace], int]

SUBCOMMANDS: dict[str, Subcommand] = {
    "serve": _serve,
    "db": _db,
    "process": _process,
    "perft": _perft,
    "verify-dice": _verify_dice,
    "dice-record": _dice_record,
    "verify": _verify,
    "keys": _keys,
    "tick": _tick,
    "inbox": _inbox,
    "outbox": _outbox,
    "backup": _backup,
    "restore": _restore,
    "config": _config,
    "doctor": _doctor,
}
"""Every subcommand of `_parser`, and the function that runs it."""


if __name__ == "__main__":
    sys.exit(main())
