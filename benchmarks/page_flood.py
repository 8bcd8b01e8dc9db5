"""SMTP latency while the web pages are flooded: ``python -m benchmarks.page_flood``.

    python -m benchmarks.page_flood [--games 20000] [--mails 200] [--clients 16]
                                    [--database-url URL]

SMTP and the web share one process and one event loop. This fills a fresh
database with `--games` games (as `benchmarks.web_pages` does), starts
``pbm serve`` in a process of its own, and times small mails, one at a time
(connection to the 250 after DATA, then QUIT), twice in one run: on a quiet
server, and while `--clients` web clients, in a process of their own, ask for
pages (the front page, a type's list, a game, a player, the JSON API) as fast
as the server answers them. It prints the latency of each (median, 90th and
99th percentile) side by side, and the pages served a second during the flood.
Numbers only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import shutil
import smtplib
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.serving import free_port, pbm_serve
from benchmarks.web_pages import fill, percentile, scratch_database
from pbm.store.database import Database

PAGES = ["/", "/cephalopod", "/cephalopod/{board}", "/players/player7", "/api/games", "/dodeca?status=finished"]


def small_mail(number: int) -> tuple[str, bytes]:
    sender = f"sender{number % 50}@bench.example"
    raw = (
        f"From: {sender}\r\nTo: pbm@localhost\r\nSubject: help\r\n"
        f"Message-ID: <flood.{number}.{time.time_ns()}@bench.example>\r\n\r\nhelp\r\n"
    ).encode()
    return sender, raw


def smtp_latencies(port: int, mails: int, seed: int) -> list[float]:
    """Seconds from connecting to the 250 after DATA, for `mails` mails sent one after another,
    a random pause of up to 40 ms between two (a mail that waited only behind the last one
    would measure nothing but its queue)."""
    pauses = random.Random(seed)
    taken = []
    for number in range(mails):
        sender, raw = small_mail(seed * 100_000 + number)
        started = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.sendmail(sender, ["pbm@localhost"], raw)
            taken.append(time.perf_counter() - started)
        time.sleep(pauses.uniform(0, 0.04))
    return taken


def flood(base: str, clients: int, board: int, running, served) -> None:
    """`clients` web clients asking for pages back to back until `running` is cleared."""

    async def client(number: int) -> None:
        paths = [page.format(board=board) for page in PAGES]
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            turn = number
            while running.is_set():
                await http.get(paths[turn % len(paths)])
                turn += 1
                with served.get_lock():
                    served.value += 1

    async def all_clients() -> None:
        await asyncio.gather(*(client(number) for number in range(clients)))

    asyncio.run(all_clients())


def row(what: str, taken: list[float]) -> str:
    ms = [value * 1000 for value in taken]
    return f"{what:34} {statistics.median(ms):8.1f}ms {percentile(ms, 0.9):8.1f}ms {percentile(ms, 0.99):8.1f}ms"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.page_flood", description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="a PostgreSQL server to run on (default: SQLite)")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--mails", type=int, default=200, help="timed mails in each phase")
    parser.add_argument("--clients", type=int, default=16, help="web clients flooding the pages")
    args = parser.parse_args(argv)

    with scratch_database(args.database_url) as url:
        database = Database(url)
        database.upgrade()
        fill(database, args.games, args.players, random.Random(6))
        database.dispose()
        backend = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
        folder = Path(tempfile.mkdtemp(prefix="pbm-bench-"))
        http_port = free_port()
        base = f"http://127.0.0.1:{http_port}"
        with pbm_serve(url, folder, http_listen=f"127.0.0.1:{http_port}") as smtp_port:
            board = httpx.get(f"{base}/api/cephalopod", timeout=60).json()["games"][0]["board"]
            smtp_latencies(smtp_port, 10, seed=0)  # the server's first mails and pages warm it up
            quiet = smtp_latencies(smtp_port, args.mails, seed=1)

            running = multiprocessing.Event()
            served = multiprocessing.Value("l", 0)
            running.set()
            flooding = multiprocessing.Process(target=flood, args=(base, args.clients, board, running, served))
            flooding.start()
            time.sleep(2)  # the flood under way
            with served.get_lock():
                served.value = 0
            started = time.perf_counter()
            flooded = smtp_latencies(smtp_port, args.mails, seed=2)
            pages_per_second = served.value / (time.perf_counter() - started)
            running.clear()
            flooding.join(60)
        shutil.rmtree(folder, ignore_errors=True)

    print(f"{backend}: {args.games:,} games; {args.mails} small mails, one at a time, in each phase")
    print(f"{'SMTP latency (connect to 250)':34} {'median':>10} {'p90':>10} {'p99':>10}")
    print(row("quiet server", quiet))
    print(row(f"{args.clients} web clients flooding pages", flooded))
    print(f"pages served during the flood: {pages_per_second:.0f}/s")


if __name__ == "__main__":
    main()
