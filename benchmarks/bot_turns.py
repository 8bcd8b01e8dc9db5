"""A bot's turn by mail, and mail while a bot thinks: ``python -m benchmarks.bot_turns``.

    python -m benchmarks.bot_turns [--level 4] [--moves 4] [--mails 10] [--size 5] [--alice 1] [--show]

Starts a server (SQLite in a scratch folder, replies to a maildir) in this process, its bots
thinking in their own process as `pbm serve`'s do. Alice challenges the bot of `--level` to
Cephalopod on a `--size` board and mails `--moves` moves, each the one the bot of level
`--alice` would choose; it prints how long the bot took each time from her move being applied
to its own (the move list's times). While the bot thinks, bob mails ``help`` every tenth of a
second (`--mails` of them), and once more with no bot thinking: it prints how long those mails
waited from their receipt to their answer (median and worst), side by side. With `--show`, it
prints the last mail alice received as well: with `--moves 200`, the board at the game's end.
Numbers only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import mailbox
import smtplib
import statistics
import tempfile
import time
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import select

import pbm.bots
import pbm.games
from benchmarks.club import served_club
from pbm.serving.server import Server, ServerThread
from pbm.store.models import Board, InboundMessage, MoveRecord

ALICE, BOB = "alice@bench.example", "bob@bench.example"


def send(port: int, sender: str, text: str) -> None:
    raw = f"From: {sender}\r\nTo: pbm@localhost\r\nSubject: \r\nMessage-ID: {make_msgid()}\r\n\r\n{text}\r\n"
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.sendmail(sender, ["pbm@localhost"], raw.encode())


def board(server: Server) -> tuple[int, object, str] | None:
    """Board 101's move count, position and status; None until it is started."""
    with server.database.reading() as session:
        row = session.scalar(select(Board))
        if row is None:
            return None
        return row.move_count, pbm.games.get("cephalopod").resume(row.state, row.secret), row.status


def settled(server: Server, count: int, timeout: float = 600.0) -> None:
    """Wait until the board has `count` moves, or is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = board(server)
        if now is not None and (now[0] >= count or now[2] != "active"):
            return
        time.sleep(0.02)
    raise TimeoutError(f"the board did not reach move {count}")


def helps(server: Server, port: int, mails: int) -> list[float]:
    """Bob's `mails` help mails, a tenth of a second apart: seconds each waited for its answer."""
    first = _last_inbound(server)
    for _ in range(mails):
        send(port, BOB, "help")
        time.sleep(0.1)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with server.database.reading() as session:
            rows = session.execute(
                select(InboundMessage.received_at, InboundMessage.processed_at).where(
                    InboundMessage.id > first, InboundMessage.envelope_from == BOB
                )
            ).all()
        if len(rows) == mails and all(done is not None for _, done in rows):
            return [(done - received).total_seconds() for received, done in rows]
        time.sleep(0.05)
    raise TimeoutError("bob's mails were not answered")


def _last_inbound(server: Server) -> int:
    with server.database.reading() as session:
        return session.scalar(select(InboundMessage.id).order_by(InboundMessage.id.desc()).limit(1)) or 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bot_turns", description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=4)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--mails", type=int, default=10)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--alice", type=int, default=1, help="the bot level whose moves alice mails (1)")
    parser.add_argument("--show", action="store_true", help="print the last mail alice received")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        server = served_club(home)
        with ServerThread(server, timeout=60) as running:
            assert running.smtp_port is not None
            port = running.smtp_port
            send(port, ALICE, "signup alice alice-pw")
            send(port, BOB, "signup bob bob-pw")
            send(port, ALICE, f"cephalopod challenge -size={args.size} alice bot{args.level}")
            settled(server, 0)
            thinking: list[float] = []
            for _ in range(args.moves):
                now = board(server)
                assert now is not None
                moves, state, status = now
                if status != "active":
                    break
                move = pbm.bots.choose("cephalopod", state, args.alice, seed=moves)
                send(port, ALICE, f"cephalopod move 101 alice alice-pw {move}#{moves + 1}")
                thinking += helps(server, port, args.mails)
                settled(server, moves + 2)
            idle = helps(server, port, args.mails)
            with server.database.reading() as session:
                played = session.scalars(select(MoveRecord.created_at).order_by(MoveRecord.number)).all()
            bot_seconds = [(bot - alice).total_seconds() for alice, bot in zip(played[::2], played[1::2])]
            last_to_alice = _last_mail_to(home / "outbox", ALICE) if args.show else None
    print(f"bot{args.level}, Cephalopod {args.size}x{args.size}: seconds from alice's move applied to the bot's")
    print("   ", " ".join(f"{s:.2f}" for s in bot_seconds))
    print("bob's help mails, seconds from receipt to answer committed:")
    for name, taken in (("while the bot thinks", thinking), ("with no bot thinking", idle)):
        if taken:
            print(f"    {name:22s} median {statistics.median(taken):.3f}  worst {max(taken):.3f}  ({len(taken)} mails)")
    if last_to_alice is not None:
        print(last_to_alice)


def _last_mail_to(maildir: Path, address: str) -> str:
    """The headers that say what it is (subject, recipient) and the text of the last mail to `address`."""
    mails = [message for message in mailbox.Maildir(maildir, create=False) if address in str(message["To"])]
    last = max(mails, key=lambda message: message.get_date())  # when it was delivered to the maildir
    text = next(part for part in last.walk() if part.get_content_type() == "text/plain")
    body = text.get_payload(decode=True).decode(text.get_content_charset() or "utf-8")
    return f"Subject: {last['Subject']}\nTo: {last['To']}\n\n{body}"


if __name__ == "__main__":
    main()
