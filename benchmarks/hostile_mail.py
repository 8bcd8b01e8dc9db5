"""Hostile mail against a real server: what ordinary senders meet while it comes in.

    python -m benchmarks.hostile_mail [--ordinary 40] [--database-url URL]

Starts ``pbm serve`` (SQLite in a temporary folder unless a URL is given, and
argon2 at production cost), then measures the same stream of ordinary mails
(``help`` from different senders, one after another) twice in one run:

- alone (the baseline), and
- while an attacker sends, at the same time, a mail of 400 signups, one of
  1000 bad command lines, 80 KB of nested HTML lists and 400 KB of ``<!--``.

For both it prints the time each ordinary mail waited for its SMTP 250 and for
its reply to be queued (median, p99, max), and for the attack what each
hostile mail made the server send: mails and bytes. Numbers only, no verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from aiosmtplib import SMTP
from sqlalchemy import func, select

from benchmarks.serving import pbm_serve
from benchmarks.smtp_load import percentile
from pbm.store.database import Database
from pbm.store.models import InboundMessage, OutboxMessage


def plain(sender: str, body: str, subject: str = "pbm") -> bytes:
    return f"From: {sender}\r\nTo: pbm@localhost\r\nSubject: {subject}\r\n\r\n{body}\r\n".encode()


def html(sender: str, markup: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "pbm@localhost", "pbm"
    message.set_content(markup, subtype="html")
    return bytes(message)


def attack() -> dict[str, tuple[str, bytes]]:
    """The hostile mails, by name: (sender, raw)."""
    signups = "\n".join(f"signup flood{n} pw-flood-{n} victim@target.example" for n in range(400))
    bad_lines = "\n".join(f"cephalopod frobnicate {n}" for n in range(1000))
    nested = "<ol><li>" * 10_000 + "move" + "</li></ol>" * 10_000
    return {
        "400 signups naming a third party": ("signer@hostile.example", plain("signer@hostile.example", signups)),
        "1000 bad command lines": ("lines@hostile.example", plain("lines@hostile.example", bad_lines)),
        "80 KB of nested lists": ("lists@hostile.example", html("lists@hostile.example", nested[:80_000])),
        "400 KB of <!--": ("comments@hostile.example", html("comments@hostile.example", "<!--" * 100_000)),
    }


@dataclass
class Waits:
    accepted_ms: list[float]
    replied_ms: list[float]


async def send_ordinary(port: int, count: int, tag: str) -> list[tuple[str, float, float]]:
    """(Message-ID, when sent, ms to the 250) of `count` help mails, one after another."""
    sent = []
    smtp = SMTP(hostname="127.0.0.1", port=port, timeout=300)
    await smtp.connect()
    for n in range(count):
        message_id = f"<{tag}.{n}@ordinary.example>"
        raw = plain(f"player{n}@ordinary.example", "help").replace(
            b"Subject: pbm\r\n", f"Subject: pbm\r\nMessage-ID: {message_id}\r\n".encode()
        )
        started = time.perf_counter()
        await smtp.sendmail(f"player{n}@ordinary.example", ["pbm@localhost"], raw)
        sent.append((message_id, time.time(), (time.perf_counter() - started) * 1000))
    await smtp.quit()
    return sent


async def send_attack(port: int, mails: dict[str, tuple[str, bytes]]) -> None:
    async def one(sender: str, raw: bytes) -> None:
        smtp = SMTP(hostname="127.0.0.1", port=port, timeout=300)
        await smtp.connect()
        await smtp.sendmail(sender, ["pbm@localhost"], raw)
        await smtp.quit()

    await asyncio.gather(*(one(sender, raw) for sender, raw in mails.values()))


def settle(database: Database) -> None:
    while True:
        with database.reading() as session:
            pending = session.scalar(select(func.count()).where(InboundMessage.status == "pending"))
        if not pending:
            return
        time.sleep(0.2)


def waits(database: Database, sent: list[tuple[str, float, float]]) -> Waits:
    with database.reading() as session:
        rows = dict(
            session.execute(
                select(InboundMessage.message_id, func.min(OutboxMessage.created_at))
                .join(OutboxMessage, OutboxMessage.inbound_id == InboundMessage.id)
                .group_by(InboundMessage.message_id)
            ).all()
        )
    return Waits(
        accepted_ms=[ms for _, _, ms in sent],
        replied_ms=[(rows[mid].timestamp() - at) * 1000 for mid, at, _ in sent if mid in rows],
    )


def caused(database: Database, senders: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Per hostile mail: (mails the server queued to send, their bytes)."""
    out = {}
    with database.reading() as session:
        for name, sender in senders.items():
            mails, size = session.execute(
                select(func.count(), func.coalesce(func.sum(func.length(OutboxMessage.raw)), 0))
                .join(InboundMessage, InboundMessage.id == OutboxMessage.inbound_id)
                .where(InboundMessage.envelope_from == sender, OutboxMessage.status != "suppressed")
            ).one()
            out[name] = (mails, size)
    return out


def line(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:30s} none"
    return (
        f"  {label:30s} median {statistics.median(values):8.1f} ms   p99 {percentile(values, 0.99):8.1f} ms"
        f"   max {max(values):8.1f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ordinary", type=int, default=40, help="ordinary mails in each stream")
    parser.add_argument("--database-url", help="default: SQLite in a temporary folder")
    args = parser.parse_args(argv)
    mails = attack()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/pbm.db"
        database = Database(url)
        database.upgrade()
        with pbm_serve(url, Path(folder)) as port:
            alone = asyncio.run(send_ordinary(port, args.ordinary, "alone"))
            settle(database)

            async def both() -> list[tuple[str, float, float]]:
                hostile = asyncio.create_task(send_attack(port, mails))
                await asyncio.sleep(0.05)  # the attack arrives first
                ordinary = await send_ordinary(port, args.ordinary, "attacked")
                await hostile
                return ordinary

            attacked = asyncio.run(both())
            settle(database)
        baseline, under_attack = waits(database, alone), waits(database, attacked)
        costs = caused(database, {name: sender for name, (sender, _) in mails.items()})
        database.dispose()

    print(f"Hostile mail: {args.ordinary} ordinary mails alone, then the same while {len(mails)} hostile ones arrive")
    print(f"  ({'SQLite' if url.startswith('sqlite') else 'PostgreSQL'}, argon2 at production cost)")
    print(line("250, alone:", baseline.accepted_ms))
    print(line("250, under attack:", under_attack.accepted_ms))
    print(line("reply queued, alone:", baseline.replied_ms))
    print(line("reply queued, under attack:", under_attack.replied_ms))
    print("  what each hostile mail made the server send:")
    for name, (count, size) in costs.items():
        print(f"    {name:34s} {count:4d} mails {size / 1024:8.1f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
