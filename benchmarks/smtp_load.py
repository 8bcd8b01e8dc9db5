"""SMTP load: concurrent clients mail valid moves across many games.

    python -m benchmarks.smtp_load [--games 60] [--moves 10] [--clients 8]
                                   [--mode password|reply] [--database-url URL]

Starts a real ``pbm serve`` process on loopback (SQLite in a temporary folder
unless a database URL is given), sets up players and Cephalopod games, then
has the clients send every game's moves in order, games interleaved. Reports:

- accepted messages per second (SMTP 250s per wall-clock second);
- processing throughput (mails fully processed per second);
- latency from SMTP acceptance (the stored inbound row) to the reply being
  handed to the outbound side (its outbox row): median and p99, both taken
  from the database's own timestamps;
- the same load against a bare aiosmtpd sink on this machine (accept and
  drop), so the ratio shows what storing a mail durably costs at the door.

Unpaced, the latency is mostly queueing (mails arrive faster than they are
processed); `--rate` paces the clients below capacity to show the latency a
player meets.

`--mode password` sends ``cephalopod move B USER PASSWORD MOVE`` (each costs
an argon2 verification at production cost); `--mode reply` sends the move as
a reply to the board mail (token address, no password).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtplib import SMTP
from sqlalchemy import func, select

import pbm.games
from benchmarks.serving import SECRET, free_port, pbm_serve
from pbm.mail.tokens import ReplyTokens
from pbm.passwords import Passwords
from pbm.store.database import Database
from pbm.store.models import Board, InboundMessage, OutboxMessage, Player, PlayerAddress, Seat

PASSWORD = "bench-password"


@dataclass
class Mail:
    sender: str
    recipient: str
    raw: bytes


def set_up_games(database: Database, games: int, moves: int, mode: str, seed: int) -> list[list[Mail]]:
    """Players and games straight into the store; returns each game's move mails in order."""
    engine = pbm.games.get("cephalopod")
    tokens = ReplyTokens(SECRET.encode())
    password_hash = Passwords().hash(PASSWORD)
    chooser = random.Random(seed)
    streams = []
    with database.transaction() as session:
        for number in range(games):
            players = []
            for side in ("a", "b"):
                userid = f"p{number}{side}"
                player = Player(userid=userid, password_hash=password_hash)
                player.addresses = [PlayerAddress(address=f"{userid}@bench.example", position=0)]
                players.append(player)
            state = engine.new(players=2)
            game = Board(
                game_type="cephalopod",
                board=101 + number,
                options={},
                state=engine.dump(state),
                move_count=0,
                to_move=0,
                status="active",
            )
            game.seats = [Seat(seat=i, player=p) for i, p in enumerate(players)]
            session.add(game)
            session.flush()
            mails = []
            for ply in range(moves):
                move = chooser.choice(engine.legal_moves(state))
                player = players[state.to_move]
                address = player.addresses[0].address
                if mode == "password":
                    body = f"cephalopod move {game.board} {player.userid} {PASSWORD} {move}#{ply + 1}"
                    recipient = "pbm@localhost"
                else:
                    body = move
                    recipient = f"pbm+{tokens.make(game.id, player.id, ply)}@localhost"
                raw = (
                    f"From: {address}\r\nTo: {recipient}\r\nSubject: move\r\n"
                    f"Message-ID: <g{game.id}.m{ply}.{seed}@bench.example>\r\n\r\n{body}\r\n"
                ).encode()
                mails.append(Mail(address, recipient, raw))
                state = engine.play(state, move)
            streams.append(mails)
    return streams


async def send_all(port: int, streams: list[list[Mail]], clients: int, rate: float = 0) -> tuple[int, float]:
    """Each client owns some games and sends their moves round-robin; returns (accepted, seconds).

    With `rate`, the clients together send that many mails a second at most.
    """
    accepted = 0
    gap = clients / rate if rate else 0.0

    async def client(own: list[list[Mail]]) -> None:
        nonlocal accepted
        smtp = SMTP(hostname="127.0.0.1", port=port, timeout=120)
        await smtp.connect()
        due = time.perf_counter()
        for ply in range(max(len(s) for s in own)):
            for stream in own:
                if ply < len(stream):
                    mail = stream[ply]
                    await asyncio.sleep(max(0.0, due - time.perf_counter()))
                    due += gap
                    await smtp.sendmail(mail.sender, [mail.recipient], mail.raw)
                    accepted += 1
        await smtp.quit()

    start = time.perf_counter()
    await asyncio.gather(*(client(streams[i::clients]) for i in range(clients)))
    return accepted, time.perf_counter() - start


class DropHandler:
    async def handle_DATA(self, server, session, envelope) -> str:
        return "250 OK"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--moves", type=int, default=10, help="moves per game")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--mode", choices=("password", "reply"), default="password")
    parser.add_argument("--database-url", help="default: SQLite in a temporary folder")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0, help="mails per second in all (default: as fast as accepted)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/pbm.db"
        database = Database(url)
        database.upgrade()
        streams = set_up_games(database, args.games, args.moves, args.mode, args.seed)
        total = sum(len(s) for s in streams)

        with pbm_serve(url, Path(folder)) as port:
            accepted, seconds = asyncio.run(send_all(port, streams, args.clients, args.rate))
            while True:
                with database.reading() as session:
                    pending = session.scalar(
                        select(func.count()).select_from(InboundMessage).where(InboundMessage.status == "pending")
                    )
                if not pending:
                    break
                time.sleep(0.2)

        with database.reading() as session:
            first_reply = (
                select(OutboxMessage.inbound_id, func.min(OutboxMessage.created_at).label("at"))
                .group_by(OutboxMessage.inbound_id)
                .subquery()
            )
            rows = session.execute(
                select(InboundMessage.received_at, InboundMessage.status, first_reply.c.at).join(
                    first_reply, first_reply.c.inbound_id == InboundMessage.id
                )
            ).all()
            applied = session.scalar(select(func.sum(Board.move_count)))
        latencies = [(at - received).total_seconds() * 1000 for received, _, at in rows]
        span = (max(at for _, _, at in rows) - min(received for received, _, _ in rows)).total_seconds()
        database.dispose()

    sink_port = free_port()
    sink = Controller(DropHandler(), hostname="127.0.0.1", port=sink_port)
    sink.start()
    try:
        sink_accepted, sink_seconds = asyncio.run(send_all(sink_port, streams, args.clients))
    finally:
        sink.stop()

    ours, bare = accepted / seconds, sink_accepted / sink_seconds
    print(
        f"SMTP load: {args.games} games x {args.moves} moves = {total} mails, {args.clients} clients, "
        f"mode {args.mode}, {'SQLite' if url.startswith('sqlite') else 'PostgreSQL'}, "
        + (f"paced at {args.rate:g} mails/s" if args.rate else "as fast as accepted")
    )
    print(f"  moves applied:                 {applied} of {total}")
    print(f"  accepted (pbm serve):          {ours:8.1f} mails/s")
    ratio = "" if args.rate else f"   ratio sink/pbm = {bare / ours:.1f}x"
    print(f"  accepted (bare aiosmtpd sink): {bare:8.1f} mails/s (unpaced){ratio}")
    print(f"  processed end to end:          {len(rows) / span:8.1f} mails/s")
    print(
        f"  acceptance -> reply queued:    median {statistics.median(latencies):7.1f} ms   "
        f"p99 {percentile(latencies, 0.99):7.1f} ms   max {max(latencies):7.1f} ms"
    )
    return 0 if applied == total else 1


if __name__ == "__main__":
    sys.exit(main())
