"""SMTP load: the mail pipeline against a bare SMTP sink, on SQLite and PostgreSQL, with 1-4 workers.

    python -m benchmarks.smtp_load [--games 60] [--moves 10] [--clients 8]
                                   [--postgresql URL] [--only sqlite|postgresql]

Each run starts real ``pbm serve`` processes on loopback (several share one
PostgreSQL database), sets up players and Cephalopod games straight in a
fresh database, then has the clients send every game's moves in order, games
interleaved, spread over the workers' listeners. In one run it prints:

- the bare sink: an aiosmtpd server on this machine that accepts and drops,
  in a process of its own as each ``pbm serve`` is, sent the same mails by
  the same clients: what this machine's SMTP costs;
- per database, mode and number of workers: accepted mails/s (SMTP 250s per
  wall-clock second), processed mails/s (first acceptance to last reply in the
  outbox), and both as a fraction of the sink;
- latency from SMTP acceptance (the stored inbound row) to the reply in the
  outbox, median and p99, measured with mail arriving at half the processing
  capacity just measured, as a Poisson stream (independent players, not
  clients in step): the wait a player meets on a busy day. Unpaced, latency
  is only queueing, and says nothing.

Modes: ``reply`` sends the move as a reply to the board mail (token address,
no password); ``password`` sends ``cephalopod move B USER PASSWORD MOVE``,
each player with their own password hashed at production cost, so a worker
pays one argon2 check per player before its cache answers: a fifth of the
mails pay one. ``warm`` is ``password`` on a server that has heard from every
player before, as a club's server has on most days: each player's first move
is sent and processed before the measured load (the rest of the moves), and
only that load is counted. With several workers, a player's check is warm
only in the worker that processed their first move.

PostgreSQL is used when ``--postgresql`` or ``PBM_TEST_DATABASE_URL`` gives
a server: each run gets a database of its own, dropped after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from aiosmtplib import SMTP
from sqlalchemy import func, select

import pbm.games
from benchmarks import club
from benchmarks.serving import SECRET, free_port, listening, pbm_serve
from benchmarks.web_pages import scratch_database
from pbm.crypto.passwords import Passwords
from pbm.mail.tokens import ReplyTokens
from pbm.store.database import Database
from pbm.store.models import Board, InboundMessage, OutboxMessage, utcnow

PASSWORD_PREFIX = "bench-password-"
MODES = ("reply", "password", "warm")


@dataclass
class Mail:
    sender: str
    recipient: str
    raw: bytes


def set_up_games(database: Database, games: int, moves: int, mode: str, seed: int) -> list[list[Mail]]:
    """Players and games put into the store as the server puts them (`benchmarks.club`); returns
    each game's move mails in order."""
    engine = pbm.games.get("cephalopod")
    tokens = ReplyTokens(SECRET.encode())
    passwords = Passwords()
    chooser = random.Random(seed)
    now = utcnow()
    streams = []
    with database.transaction() as session:
        for number in range(games):
            # Each their own hash in password mode: a server pays argon2 once per player.
            seated = [
                club.sign_up(session, userid, password_hash=passwords.hash(PASSWORD_PREFIX + userid), now=now)
                if mode != "reply"
                else club.sign_up(session, userid, now=now)
                for userid in (f"p{number}a", f"p{number}b")
            ]
            game = club.start_game(session, "cephalopod", seated, now=now)
            state, board = game.state, game.row
            mails = []
            for ply in range(moves):
                move = chooser.choice(engine.legal_moves(state))
                player = seated[state.to_move]
                address = player.addresses[0].address
                if mode != "reply":
                    password = PASSWORD_PREFIX + player.userid
                    body = f"cephalopod move {board.board} {player.userid} {password} {move}#{ply + 1}"
                    recipient = "pbm@localhost"
                else:
                    body = move
                    recipient = f"pbm+{tokens.make(board.id, player.id, ply)}@localhost"
                raw = (
                    f"From: {address}\r\nTo: {recipient}\r\nSubject: move\r\n"
                    f"Message-ID: <g{board.id}.m{ply}.{seed}@bench.example>\r\n\r\n{body}\r\n"
                ).encode()
                mails.append(Mail(address, recipient, raw))
                state = engine.play(state, move)
            streams.append(mails)
    return streams


async def send_all(
    ports: list[int], streams: list[list[Mail]], clients: int, rate: float = 0, seed: int = 1
) -> tuple[int, float]:
    """Each client owns some games and sends their moves round-robin to one of `ports`; returns
    (accepted, seconds). With `rate`, the clients together send that many mails a second on
    average, as independent players would: each waits an exponentially distributed time before
    each mail (its own seeded draws), so together they make a Poisson stream. Clients pacing
    with one fixed gap from one start would send in step, `clients` mails at once, and the
    latency measured would be that of a burst, not of mail arriving at `rate`."""
    accepted = 0
    mean_gap = clients / rate if rate else 0.0

    async def client(port: int, own: list[list[Mail]], draws: random.Random) -> None:
        nonlocal accepted
        smtp = SMTP(hostname="127.0.0.1", port=port, timeout=120)
        await smtp.connect()
        due = time.perf_counter()
        for ply in range(max(len(s) for s in own)):
            for stream in own:
                if ply < len(stream):
                    mail = stream[ply]
                    if mean_gap:
                        due += draws.expovariate(1 / mean_gap)
                        await asyncio.sleep(max(0.0, due - time.perf_counter()))
                    await smtp.sendmail(mail.sender, [mail.recipient], mail.raw)
                    accepted += 1
        await smtp.quit()

    start = time.perf_counter()
    await asyncio.gather(
        *(
            client(ports[i % len(ports)], streams[i::clients], random.Random(f"{seed}-{i}"))
            for i in range(clients)
        )
    )
    return accepted, time.perf_counter() - start


def sink_rate(streams: list[list[Mail]], clients: int) -> float:
    """Mails per second a bare aiosmtpd server that drops them (`benchmarks.smtp_sink`, a process of
    its own like ``pbm serve``) takes from the same clients."""
    port = free_port()
    with listening([sys.executable, "-m", "benchmarks.smtp_sink", str(port)], port):
        accepted, seconds = asyncio.run(send_all([port], streams, clients))
    return accepted / seconds


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


@dataclass(frozen=True)
class Run:
    mails: int
    applied: int
    accepted_per_second: float
    processed_per_second: float
    latencies_ms: list[float]
    refused: int
    """Mails answered with an error or that failed: a load measures moves, never refusals."""

    @property
    def measured_what_it_says(self) -> bool:
        return self.applied == self.mails and self.refused == 0


WARM_UP_PLIES = 2
"""In ``warm`` mode, the moves of each game sent before the measured load: each player's first."""


def run(url: str, folder: Path, args: argparse.Namespace, mode: str, workers: int, rate: float = 0) -> Run:
    """One load on a fresh database at `url` with `workers` servers."""
    database = Database(url)
    database.upgrade()
    streams = set_up_games(database, args.games, args.moves, mode, args.seed)
    total = sum(len(s) for s in streams)
    warm_up = WARM_UP_PLIES if mode == "warm" else 0
    with ExitStack() as servers:
        for i in range(workers):
            (folder / f"worker{i}").mkdir()
        ports = [servers.enter_context(pbm_serve(url, folder / f"worker{i}")) for i in range(workers)]
        if warm_up:
            asyncio.run(send_all(ports, [s[:warm_up] for s in streams], args.clients))
            # Its replies sent too: the measured load must not share the server with their delivery.
            wait_until_processed(database, and_sent=True)
        with database.reading() as session:
            measured_after = session.scalar(select(func.coalesce(func.max(InboundMessage.id), 0)))
        load = [s[warm_up:] for s in streams]
        accepted, seconds = asyncio.run(send_all(ports, load, args.clients, rate, args.seed))
        wait_until_processed(database)
    with database.reading() as session:
        first_reply = (
            select(OutboxMessage.inbound_id, func.min(OutboxMessage.created_at).label("at"))
            .group_by(OutboxMessage.inbound_id)
            .subquery()
        )
        rows = session.execute(
            select(InboundMessage.received_at, first_reply.c.at)
            .join(first_reply, first_reply.c.inbound_id == InboundMessage.id)
            .where(InboundMessage.id > measured_after)
        ).all()
        applied = session.scalar(select(func.sum(Board.move_count))) or 0
        refused = session.scalar(
            select(func.count()).select_from(InboundMessage).where(InboundMessage.status == "failed")
        ) + session.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.kind == "error"))
    database.dispose()
    latencies = [(at - received).total_seconds() * 1000 for received, at in rows]
    span = (max(at for _, at in rows) - min(received for received, _ in rows)).total_seconds()
    return Run(total, applied, accepted / seconds, len(rows) / span, latencies, refused)


def wait_until_processed(database: Database, *, and_sent: bool = False) -> None:
    """Until no received mail is pending (`and_sent`: nor any reply)."""
    waiting = [select(func.count()).select_from(InboundMessage).where(InboundMessage.status == "pending")]
    if and_sent:
        waiting.append(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.status == "pending"))
    while True:
        with database.reading() as session:
            if not any(session.scalar(count) for count in waiting):
                return
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--moves", type=int, default=10, help="moves per game")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgresql", default=os.environ.get("PBM_TEST_DATABASE_URL"), help="a server to use")
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--modes", default=",".join(MODES), help=f"some of {', '.join(MODES)}")
    parser.add_argument("--workers", default="1,2,4", help="worker counts to run on PostgreSQL")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"--modes: {', '.join(sorted(unknown))} is not one of {', '.join(MODES)}")

    with tempfile.TemporaryDirectory() as folder:
        probe = Database(f"sqlite:///{folder}/probe.db")
        probe.upgrade()
        sink = sink_rate(set_up_games(probe, args.games, args.moves, "reply", args.seed), args.clients)
        probe.dispose()
    mails = args.games * args.moves
    print(f"SMTP load: {args.games} games x {args.moves} moves = {mails} mails, {args.clients} clients")
    print(f"  bare aiosmtpd sink: {sink:7.1f} mails/s accepted\n")
    print(
        f"  {'database':10} {'mode':8} {'workers':>7} {'accepted/s':>10} {'x sink':>6} {'processed/s':>11} "
        f"{'x sink':>6} {'paced at/s':>10} {'median ms':>9} {'p99 ms':>7}"
    )
    backends = []
    if args.only != "postgresql":
        backends.append(("SQLite", None, [1]))
    if args.only != "sqlite":
        if args.postgresql:
            backends.append(("PostgreSQL", args.postgresql, [int(n) for n in args.workers.split(",")]))
        else:
            print("  (PostgreSQL: no server given with --postgresql or PBM_TEST_DATABASE_URL)")
    all_applied = True
    for name, server, worker_counts in backends:
        for mode in modes:
            for workers in worker_counts:
                with tempfile.TemporaryDirectory() as folder, scratch_database(server) as url:
                    full = run(url, Path(folder), args, mode, workers)
                paced_at = full.processed_per_second / 2
                with tempfile.TemporaryDirectory() as folder, scratch_database(server) as url:
                    paced = run(url, Path(folder), args, mode, workers, rate=paced_at)
                all_applied &= full.measured_what_it_says and paced.measured_what_it_says
                print(
                    f"  {name:10} {mode:8} {workers:7d} {full.accepted_per_second:10.1f} "
                    f"{full.accepted_per_second / sink:6.2f} {full.processed_per_second:11.1f} "
                    f"{full.processed_per_second / sink:6.2f} {paced_at:10.1f} "
                    f"{statistics.median(paced.latencies_ms):9.1f} {percentile(paced.latencies_ms, 0.99):7.1f}",
                    flush=True,
                )
    if not all_applied:
        print("  NOT EVERY MOVE WAS APPLIED, OR SOME MAIL WAS REFUSED: these figures measure nothing")
    return 0 if all_applied else 1


if __name__ == "__main__":
    sys.exit(main())
