"""How fast the web pages are with many games stored: ``python -m benchmarks.web_pages``.

Fills a fresh database with 100 000 games (bulk inserts: players, games,
seats, ratings), starts the server as ``pbm serve`` does (SMTP, HTTP and the
workers on loopback ports), and times requests to every page and API answer over
real HTTP, in English and in French: median and 99th percentile. Numbers only; nothing is asserted.

SQLite (a file in a temporary folder) by default. With
``--database-url postgresql+psycopg://USER@HOST/DB`` it runs on that
PostgreSQL server instead, in a scratch database it creates (the user needs
CREATEDB) and drops afterwards.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.engine import make_url

import pbm.games
from pbm.config import Settings
from pbm.serving.server import Server, ServerThread
from pbm.store.database import Database
from pbm.store.models import Board, BoardCounter, Player, Rating, Seat

CHUNK = 5000


@contextmanager
def scratch_database(url: str | None) -> Iterator[str]:
    """A fresh, empty database URL: a SQLite file, or a database made on the PostgreSQL server."""
    if url is None:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'bench.db'}"
        return
    server = make_url(url)
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"pbm_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def kept_or_scratch(keep: Path | None, url: str | None) -> Iterator[str]:
    """The kept SQLite file's URL, or a scratch database (`scratch_database`)."""
    if keep is not None:
        yield f"sqlite:///{keep.resolve()}"
        return
    with scratch_database(url) as scratch:
        yield scratch


def kept_filled(database: Database) -> bool:
    with database.reading() as session:
        return bool(session.scalar(select(func.count()).select_from(Board)))


def fill(database: Database, games: int, players: int, rng: random.Random) -> None:
    """`games` games of all types, most of them active, spread over a year of activity."""
    engines = pbm.games.all_games()
    starts = {}
    for engine in engines:
        state = engine.new(players=2, seed=bytes(32))
        starts[engine.name] = (engine.dump(state), engine.secret_of(state))
    now = datetime.now(timezone.utc)
    with database.transaction() as session:
        session.execute(
            insert(Player),
            [
                {"id": i, "userid": f"player{i}", "password_hash": "x", "created_at": now - timedelta(days=400)}
                for i in range(1, players + 1)
            ],
        )
        ratings = [
            {
                "player_id": i,
                "game_type": engine.name,
                "rating": rng.gauss(1600, 120),
                "games": (n := rng.randint(1, 60)),
                "wins": n // 2,
                "losses": n - n // 2,
                "draws": 0,
            }
            for i in range(1, players + 1)
            for engine in engines
        ]
        session.execute(insert(Rating), ratings)
    next_board = {engine.name: 101 for engine in engines}
    for first in range(1, games + 1, CHUNK):
        rows, seats = [], []
        for game_id in range(first, min(first + CHUNK, games + 1)):
            engine = engines[game_id % len(engines)]
            board = next_board[engine.name]
            next_board[engine.name] += 1
            status = rng.choices(("active", "finished", "cancelled"), (60, 35, 5))[0]
            updated = now - timedelta(seconds=rng.uniform(0, 365 * 86400))
            state, secret = starts[engine.name]
            a, b = rng.sample(range(1, players + 1), 2)
            rows.append(
                {
                    "id": game_id,
                    "game_type": engine.name,
                    "board": board,
                    "options": {},
                    "status": status,
                    "state": state,
                    "secret": secret,
                    "move_count": rng.randint(0, 80),
                    "to_move": rng.randint(0, 1) if status == "active" else None,
                    "winners": [rng.randint(0, 1)] if status == "finished" else None,
                    "end_reason": None if status == "active" else "benchmark",
                    "created_at": updated - timedelta(days=3),
                    "updated_at": updated,
                    "finished_at": None if status == "active" else updated,
                }
            )
            seats += [{"game_id": game_id, "seat": 0, "player_id": a}, {"game_id": game_id, "seat": 1, "player_id": b}]
        with database.transaction() as session:
            session.execute(insert(Board), rows)
            session.execute(insert(Seat), seats)
    with database.transaction() as session:
        session.execute(insert(BoardCounter), [{"game_type": k, "next_board": v} for k, v in next_board.items()])
        if not database.is_sqlite:
            # The rows above came with their ids: the sequences must go on after them.
            for table in ("players", "games"):
                latest = f"(SELECT max(id) FROM {table})"
                session.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {latest})"))
    # Planner statistics, and on PostgreSQL the visibility map autovacuum would keep in a
    # running server (index-only scans rely on it).
    maintenance = "ANALYZE" if database.is_sqlite else "VACUUM ANALYZE"
    with database.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(maintenance))


@contextmanager
def serving(url: str, folder: Path) -> Iterator[str]:
    """`pbm serve` on loopback ports (SMTP, HTTP and the workers): the base URL of its pages."""
    settings = Settings(
        database_url=url,
        smtp_listen="127.0.0.1:0",
        http_listen="127.0.0.1:0",
        outbound=f"maildir:{folder / 'outbox'}",
        secret_key="benchmark-" + "k" * 32,
    )
    with ServerThread(Server(settings, var_dir=folder)) as server:
        server.settle()  # as `pbm serve` does once it listens
        yield f"http://127.0.0.1:{server.http_port}"


def timings(client: httpx.Client, path: str, requests: int, language: str) -> list[float]:
    headers = {"Accept-Language": language}
    for _ in range(5):
        client.get(path, headers=headers).raise_for_status()
    taken = []
    for _ in range(requests):
        started = time.perf_counter()
        client.get(path, headers=headers).raise_for_status()
        taken.append(time.perf_counter() - started)
    return taken


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def every_page(board: int) -> list[str]:
    """Every page and API answer the web side has, on a board of the filled database."""
    return [
        "/",
        "/cephalopod",
        "/cephalopod?status=finished",
        f"/cephalopod?before={101 + (board - 101) // 2}",
        "/cephalopod?player=player7&status=all",
        f"/cephalopod/{board}",
        f"/cephalopod/{board}?ply=0",
        f"/cephalopod/{board}/record.json",
        "/cephalopod/standings",
        "/cephalopod/rules",
        "/players/player7",
        "/players/player7/deadlines.ics",
        "/bots",
        "/api/games",
        "/api/cephalopod",
        "/api/cephalopod?status=finished",
        f"/api/cephalopod/{board}",
        "/api/cephalopod/standings",
        "/api/players/player7",
        "/api/bots",
        "/healthz",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web_pages", description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="a PostgreSQL server to run on (default: SQLite)")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--requests", type=int, default=300, help="timed requests per page and language")
    parser.add_argument("--languages", nargs="+", default=["en", "fr"], help="Accept-Language of the requests")
    parser.add_argument("--only", nargs="*", help="only the pages whose path contains one of these")
    parser.add_argument(
        "--keep", type=Path, help="a SQLite file: filled if it does not exist, else measured as it is (runs compared)"
    )
    args = parser.parse_args(argv)

    with kept_or_scratch(args.keep, args.database_url) as url:
        database = Database(url)
        database.upgrade()
        started = time.perf_counter()
        if args.keep is None or not database.is_sqlite or not kept_filled(database):
            fill(database, args.games, args.players, random.Random(6))
        backend = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
        filled = time.perf_counter() - started
        print(f"{backend}: {args.games:,} games, {args.players:,} players stored in {filled:.1f} s")
        database.dispose()
        folder = Path(tempfile.mkdtemp(prefix="pbm-bench-"))
        with serving(url, folder) as base, httpx.Client(base_url=base, timeout=30) as client:
            board = client.get("/api/cephalopod").json()["games"][0]["board"]
            pages = [path for path in every_page(board) if not args.only or any(part in path for part in args.only)]
            print(f"{'page':42} {'lang':>4} {'median':>9} {'p99':>9}   ({args.requests} requests each, one client)")
            for path in pages:
                for language in args.languages:
                    taken = timings(client, path, args.requests, language)
                    median, p99 = statistics.median(taken) * 1000, percentile(taken, 0.99) * 1000
                    print(f"{path:42} {language:>4} {median:7.1f}ms {p99:7.1f}ms")
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
