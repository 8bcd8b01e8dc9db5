"""``pbm process``, ``pbm inbox`` and ``pbm outbox``: mail in and out, by hand or from the MTA."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path
from typing import TYPE_CHECKING

from pbm.commandline import opening, subcommand
from pbm.config import load_settings

if TYPE_CHECKING:
    from pbm.store.inbox import Stored
    from pbm.store.models import OutboxMessage

log = logging.getLogger("pbm.cli")  # every subcommand logs as the command line, whatever its module

EX_NOUSER = 67
"""`pbm process`: the mail is not for us; the MTA bounces it."""
EX_TEMPFAIL = 75
"""`pbm process`: the mail could not be stored; the MTA keeps it and tries again later."""


def _process_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the message file, or - for standard input")
    parser.add_argument("--sender", help="the envelope sender (default: the Return-Path header)")
    parser.add_argument("--recipient", action="append", help="the envelope recipient (default: PBM_ADDRESS)")


@subcommand(
    "process one raw RFC 5322 message offline (e.g. from a Postfix pipe transport)", arguments=_process_arguments
)
def process(args: argparse.Namespace) -> int:
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


def _not_stored(error: Exception) -> int:
    """Say why a piped mail was not stored, and ask the MTA to try again later.

    The MTA logs this line, and quotes it to the sender should it give up in
    the end: the kind of error, not its text (which may name hosts and paths).
    """
    print(f"pbm: the mail could not be stored ({type(error).__name__}); try again later", file=sys.stderr)
    return EX_TEMPFAIL


def _return_path(raw: bytes) -> str:
    """The envelope sender a delivering MTA wrote into the mail (``""`` when there is none)."""
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw)
        return str(headers.get("Return-Path") or "").strip().strip("<>")
    except Exception:  # a header block we cannot read names no sender
        return ""


def _inbox_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--retry", type=int, nargs="+", metavar="ID", help="process these failed mails again")
    parser.add_argument(
        "--duplicates",
        action="store_true",
        help="also list the copies recorded as duplicates of a mail processed before (each names it)",
    )


@subcommand("show received mail that failed, or was not answered", arguments=_inbox_arguments)
def inbox(args: argparse.Namespace) -> int:
    """``pbm inbox``: list what needs attention (the database alone), or ``--retry`` failed mail."""
    if args.retry:
        return _retry(args.retry)
    from pbm.store.inbox import needing_attention, status_counts
    from pbm.store.models import InboundStatus

    duplicates = args.duplicates
    database = opening.database(load_settings())
    with opening.disposed(database), database.reading() as session:
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

    server = opening.server(load_settings())
    requeued = requeue_failed(server.database, retry)
    print(f"requeued {len(requeued)} of {len(retry)}: {' '.join(map(str, requeued)) or 'none'} (only failed mail)")
    processed = server.processor.process_pending()
    print(f"processed {processed}")
    return 0 if len(requeued) == len(retry) else 1


def _outbox_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all", action="store_true", help="also list delivered mail")
    parser.add_argument(
        "--resume",
        metavar="ADDRESS",
        action="append",
        default=[],
        help="mail goes to ADDRESS again, though it bounced; what waited for it goes",
    )


@subcommand("show mail waiting for delivery, held back, or failed", arguments=_outbox_arguments)
def outbox(args: argparse.Namespace) -> int:
    """``pbm outbox``: what waits, is held or failed (and with ``--all`` what went), from the database alone."""
    from pbm.store import bounces
    from pbm.store.outbox import rows

    database = opening.database(load_settings())
    with opening.disposed(database):
        for address in args.resume:
            with database.transaction() as session:
                waited = bounces.resume(session, address, datetime.now(timezone.utc))
            print(f"{address}: " + ("nothing bounced" if waited is None else f"resumed, {waited} held mail(s) go"))
        with database.reading() as session:
            for row in rows(session, include_sent=args.all):
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
