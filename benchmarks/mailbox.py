"""A club's mailbox at a provider (issue 46): how long a player waits, and what the mailbox keeps.

    nice -n 19 python -m benchmarks.mailbox [--moves 200] [--fill 1000] [--json FILE] [--postfix]

Against a private Dovecot (the club's mailbox, IMAPS with IDLE) and a submission service in this
process (`tests.provider`), with `pbm serve` set up as the README says (PBM_INBOUND,
PBM_OUTBOUND=submission://..., PBM_MAIL_PASSWORD_FILE, PBM_MAIL_CA_FILE):

- latency: Cephalopod games are set up in the store (`benchmarks.smtp_load`), then each move is
  APPENDed to the club's INBOX as a reply to the board mail, one at a time; the time from the
  APPEND to the board mail for the opponent handed to submission. Median and p99 over --moves.
  With --postfix, the submission service is Debian's Postfix (`tests.submission`) and the time
  runs until the board mail is delivered into the opponent's mailbox.
- mailbox size: --fill mails (``help``) APPENDed at once; once every one is answered, what the
  club's mailbox holds (INBOX, the folder of processed mail, bytes on disk); then the expunge
  of processed mail `pbm serve`'s reader does every hour, run with its clock
  PBM_INBOUND_KEEP_DAYS and a day ahead (the server's dates are days: SAVEDBEFORE), and the
  mailbox again.

Needs Debian's dovecot-imapd and root (the private Dovecot drops privileges); says why not and
ends otherwise. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select

from benchmarks.serving import SECRET, pbm_serve
from benchmarks.smtp_load import percentile, set_up_games
from pbm.config import Inbound
from pbm.mail.account import Account
from pbm.mail.mailbox import MailboxReader
from pbm.mail.tokens import Addressing
from pbm.store.database import Database
from pbm.store.models import InboundMessage, OutboxMessage
from tests import dovecot, submission
from tests.provider import CLUB, ClubMailbox, PostfixProvider, Provider

LIMITS = {
    "max_mails_per_address_per_hour": "100000",
    "max_error_replies_per_sender_per_hour": "100000",
    "max_signups_per_sender_per_day": "100000",
    "confirm_addresses": "off",
}
KEEP_DAYS = 7


def served(provider: Provider) -> dict[str, str]:
    """The README's settings for `pbm serve`, as `benchmarks.serving.pbm_serve` takes them."""
    return {name.removeprefix("PBM_").lower(): value for name, value in provider.settings().items()}


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        time.sleep(0.01)


def count(database: Database, model, *where) -> int:
    with database.reading() as session:
        return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def games_for(moves: int) -> tuple[int, int]:
    """How many games, and moves in each, make `moves` moves (ten a game: a Cephalopod game lasts longer)."""
    games = max(1, moves // 10)
    return games, -(-moves // games)


def players_for(moves: int) -> list[str]:
    """The addresses `benchmarks.club` signs the players of `games_for(moves)` up with."""
    return [f"p{game}{seat}@bench.example" for game in range(games_for(moves)[0]) for seat in "ab"]


def opponent_of(address: str) -> str:
    """The other player of `address`'s game: ``p3a@bench.example`` plays ``p3b@bench.example``."""
    local, _, domain = address.partition("@")
    return f"{local[:-1]}{'b' if local.endswith('a') else 'a'}@{domain}"


def latency(provider: ClubMailbox, database: Database, folder: Path, moves: int) -> list[float]:
    """Seconds from each move's APPEND to its opponent's board mail: handed to the in-process
    submission (`Provider`), or delivered by Postfix into the opponent's mailbox (`PostfixProvider`)."""
    streams = set_up_games(database, *games_for(moves), "reply", seed=46)
    # The benchmark's reply addresses are pbm+TOKEN@localhost; the club's are games+TOKEN@club.test.
    ordered = [mail for round_ in zip(*streams, strict=True) for mail in round_][:moves]
    arrivals = Arrivals(provider)
    client = provider.imap()
    seconds = []
    try:
        with pbm_serve(database.url, folder, secret_key=SECRET, **served(provider), **LIMITS):
            for index, mail in enumerate(ordered):
                raw = mail.raw.replace(b"pbm+", b"games+").replace(b"@localhost", b"@club.test")
                opponent = opponent_of(mail.sender)
                seen = arrivals.count(opponent)
                appended = time.time()
                assert client.append("INBOX", None, None, raw)[0] == "OK"

                def answered(opponent: str = opponent, seen: int = seen) -> bool:
                    return arrivals.count(opponent) > seen

                wait_for(answered, 60, f"the board mail of move {index + 1}")
                seconds.append(arrivals.time_of(opponent, seen) - appended)
                wait_for(lambda: count(database, OutboxMessage, OutboxMessage.status == "pending") == 0, 60, "sent")
    finally:
        client.logout()
    return seconds


class Arrivals:
    """Mails for each player as they arrive: at the in-process submission, or in their Maildir."""

    def __init__(self, provider: ClubMailbox) -> None:
        self.provider = provider
        self.handed: dict[str, list[float]] = {}
        if isinstance(provider, Provider):
            provider.submission.handler.on_arrival = self._handed

    def _handed(self, recipients: list[str]) -> None:
        for recipient in recipients:
            self.handed.setdefault(recipient, []).append(time.time())

    def _delivered(self, player: str) -> list[float]:
        new = self.provider.dovecot.root / "mail" / player.partition("@")[0] / "new"
        return sorted(path.stat().st_mtime for path in new.iterdir()) if new.is_dir() else []

    def count(self, player: str) -> int:
        return len(self.handed.get(player, [])) if isinstance(self.provider, Provider) else len(self._delivered(player))

    def time_of(self, player: str, index: int) -> float:
        if isinstance(self.provider, Provider):
            return self.handed[player][index]
        return self._delivered(player)[index]


def mailbox_state(provider: Provider) -> dict[str, int]:
    """The mails in INBOX and in the folder of processed mail, and the bytes on disk of the club's
    Maildir: of mails (files in cur/, new/, tmp/ of every folder) and of Dovecot's indexes."""
    folder = provider.dovecot.root / "mail" / CLUB.partition("@")[0]
    files = [path for path in folder.rglob("*") if path.is_file()]
    mails = [path for path in files if path.parent.name in ("cur", "new", "tmp")]
    mail_bytes = sum(path.stat().st_size for path in mails)
    return {
        "inbox": provider.count("INBOX"),
        "processed_folder": provider.count("pbm-processed"),
        "mail_files": len(mails),
        "mail_bytes": mail_bytes,
        "index_bytes": sum(path.stat().st_size for path in files) - mail_bytes,
    }


def fill(provider: Provider, database: Database, folder: Path, mails: int) -> dict[str, object]:
    """What the mailbox holds after `mails` are answered, and after the expunge of old processed mail."""
    raws = [
        (
            f"From: p{i % 50}@players.example\r\nTo: {CLUB}\r\nSubject: help\r\n"
            f"Message-ID: <fill.{i}@players.example>\r\n\r\nhelp\r\n"
        ).encode()
        for i in range(mails)
    ]
    began = time.monotonic()
    with pbm_serve(database.url, folder, **served(provider), **LIMITS, inbound_keep_days=str(KEEP_DAYS)):
        provider.append(*raws)
        wait_for(lambda: len(provider.submission.all) >= mails, 900, f"{mails} answers")
        wait_for(lambda: provider.count("INBOX") == 0, 120, "an empty INBOX")
    took = time.monotonic() - began
    after_fill = mailbox_state(provider)
    after_fill["answered"] = len(provider.submission.all)
    after_fill["processed_once"] = count(database, InboundMessage, InboundMessage.status == "processed")
    # The reader's hourly expunge, with its clock past PBM_INBOUND_KEEP_DAYS.
    ahead = datetime.now(UTC) + timedelta(days=KEEP_DAYS + 1)
    account = Account(CLUB, password_file=provider.password_file, ca_file=provider.dovecot.cert)
    inbound = Inbound("imaps", CLUB, "127.0.0.1", provider.dovecot.imaps_port, "INBOX")
    reader = MailboxReader(
        database,
        inbound,
        account,
        Addressing(CLUB),
        on_stored=lambda: None,
        max_size=1 << 20,
        keep=timedelta(days=KEEP_DAYS),
        now=lambda: ahead,
    )

    async def expunge() -> None:
        task = asyncio.create_task(reader.run())
        try:
            while await asyncio.to_thread(provider.count, "pbm-processed") > 0:
                await asyncio.sleep(0.2)
        finally:
            reader.stop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 10)

    asyncio.run(asyncio.wait_for(expunge(), 120))
    return {
        "mails": mails,
        "seconds": round(took, 1),
        "after_fill": after_fill,
        "after_keep_days": mailbox_state(provider),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--fill", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="also write the figures there")
    parser.add_argument(
        "--postfix",
        action="store_true",
        help="latency through Debian's Postfix (tests.submission), to the opponent's mailbox",
    )
    args = parser.parse_args(argv)
    # aiosmtpd (the test provider's submission) logs a deprecation at each login: noise here.
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    why_not = dovecot.unavailable() or (submission.unavailable() if args.postfix else None)
    if why_not is not None:
        print(f"  skipped: {why_not}")
        return 0
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="pbm-bench-mailbox-") as scratch:
        folder = Path(scratch)
        for part in ("latency", "fill"):
            provider = PostfixProvider(players_for(args.moves)) if args.postfix and part == "latency" else Provider()
            provider.start()
            database = Database(f"sqlite:///{folder / part}.db")
            database.upgrade()
            (folder / part).mkdir()
            try:
                if part == "latency" and args.moves:
                    seconds = latency(provider, database, folder / part, args.moves)
                    figures["latency"] = {
                        "moves": len(seconds),
                        "median_seconds": round(statistics.median(seconds), 3),
                        "p90_seconds": round(percentile(seconds, 0.90), 3),
                        "p99_seconds": round(percentile(seconds, 0.99), 3),
                        "over_2_seconds": sum(1 for s in seconds if s > 2),
                        "max_seconds": round(max(seconds), 3),
                    }
                    where = "delivered by Postfix" if args.postfix else "handed to submission"
                    print(f"  APPEND to board mail {where}: {json.dumps(figures['latency'])}", flush=True)
                elif part == "fill" and args.fill:
                    figures["mailbox"] = fill(provider, database, folder / part, args.fill)
                    print(f"  the club's mailbox: {json.dumps(figures['mailbox'])}", flush=True)
            finally:
                database.dispose()
                provider.stop()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
