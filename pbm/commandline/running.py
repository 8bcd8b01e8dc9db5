"""``pbm serve``, ``pbm db upgrade`` and ``pbm tick``: the server, its schema and its time pass."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from pbm.commandline import opening, subcommand
from pbm.config import load_settings

if TYPE_CHECKING:
    from pbm.mail.time_pass import PassReport

log = logging.getLogger("pbm.cli")  # every subcommand logs as the command line, whatever its module


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-process",
        action="store_true",
        help="only receive and store mail; leave processing to another `pbm serve` or `pbm process`",
    )


@subcommand("run the SMTP and web server (configured by PBM_* variables)", arguments=_serve_arguments)
def serve(args: argparse.Namespace) -> int:
    """``pbm serve``: listen, process and deliver until stopped."""
    from pbm.serving.server import Server

    server = Server(load_settings())
    asyncio.run(server.run(process=not args.no_process))
    return 0


def _db_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    actions.add_parser("upgrade", help="migrate the database schema to the newest version")


@subcommand("database maintenance", arguments=_db_arguments)
def db(args: argparse.Namespace) -> int:
    """``pbm db upgrade``: migrate the schema to the newest version."""
    from pbm.store.database import Database

    settings = load_settings()
    Database(settings.database_url, timeout=settings.database_timeout).upgrade()
    print("database schema is up to date")
    return 0


def _timestamp(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 timestamp: {text!r} (e.g. 2026-12-24T09:00)") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _tick_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--now",
        metavar="TIMESTAMP",
        type=_timestamp,
        help=(
            "rehearse the pass as if it were TIMESTAMP (ISO 8601, UTC unless it has an offset, e.g. "
            "2026-12-24T09:00): print what it would do, change nothing and send nothing"
        ),
    )


@subcommand(
    "run the time pass once: reminders, forfeits, vacations, expired open challenges",
    description=(
        "Run the time pass once, as `pbm serve` does every minute (for cron or a systemd timer; "
        "deploy/pbm-tick.timer), and deliver what it queued. Running it twice, or from two "
        "hosts at once, sends each reminder once and applies each forfeit once."
    ),
    arguments=_tick_arguments,
)
def tick(args: argparse.Namespace) -> int:
    """``pbm tick``: the time pass once, and delivery; with ``--now``, a rehearsal that changes nothing."""
    server = opening.server(load_settings(), agree=args.now is None)
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
    _print_pass(report, rehearsal=rehearsal)
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


def _print_pass(report: PassReport, *, rehearsal: bool) -> None:
    """What the time pass did, or would do in a rehearsal, a line each."""
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
