"""The ``pbm`` command line: the table of its subcommands, and `main`.

Each subcommand lives in `pbm.commandline` with the arguments it reads; this module puts them
in the order ``pbm --help`` lists them and runs the one asked for.
"""

from __future__ import annotations

import argparse
import logging
import sys

from pbm.commandline import Subcommand, UsageError, backups, configuration, games, mail, records, running
from pbm.config import ConfigError

SUBCOMMANDS: dict[str, Subcommand] = {
    "serve": running.serve,
    "db": running.db,
    "process": mail.process,
    "perft": games.perft,
    "verify-dice": games.verify_dice,
    "verify": records.verify,
    "keys": records.keys,
    "dice-record": games.dice_record,
    "tick": running.tick,
    "inbox": mail.inbox,
    "outbox": mail.outbox,
    "backup": backups.backup,
    "restore": backups.restore,
    "config": configuration.config,
    "doctor": configuration.doctor,
}
"""Every subcommand by name, in the order ``pbm --help`` lists them."""


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


def _parser() -> argparse.ArgumentParser:
    """Every subcommand with its arguments: what ``pbm --help`` and ``pbm COMMAND --help`` print."""
    parser = argparse.ArgumentParser(prog="pbm", description="A play-by-email board-game server.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, subcommand in SUBCOMMANDS.items():
        subcommand.add_to(commands, name)
    return parser


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


if __name__ == "__main__":
    sys.exit(main())
