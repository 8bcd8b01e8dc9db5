"""The fault suite's scale, its figures, and the databases and servers it runs on.

`make test` runs the bounded form (a few kills, tens of mails). `make faults`
sets ``FAULTS_SCALE=full`` for the full size, and the figures the issue's
closing note needs are printed at the end of the run and written to
``test-artifacts/faults.json``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

from tests.conftest import BACKENDS, fresh_database
from tests.faults.harness import MIB

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@dataclass(frozen=True)
class Scale:
    name: str
    kills: int
    """SIGKILLs per backend in the crash loop."""
    matches: int
    """Games played at once in the crash loop, each by its own client."""
    moves_per_match: int
    tour_rounds: int
    """README tours raced over two workers."""
    crossed_rounds: int
    """Pairs of crossed multi-command mails raced over two workers."""
    racing_games: int
    """Games played at once over two workers, each move to either worker, some to both."""
    racing_moves: int
    fuzz_mails: int
    outage_seconds: float
    """How long the database stays away: long enough for a worker's back-off to grow."""
    long_run_backends: tuple[str, ...]
    """Backends for the runs that take minutes whatever the backend (the fuzz run)."""
    lockout_players: int
    """Players a stranger tries to lock out by guessing their passwords."""
    flood_connections: int
    """Idle connections the connection flood opens to each listener."""
    flood_open_files: int
    """The server's soft open-file limit in the connection flood: fewer than the flood."""
    flood_seconds: float
    """How long the flood holds its connections (the audit's log grew 82-181 MB in 25 s)."""


BOUNDED = Scale(
    "bounded",
    kills=3,
    matches=3,
    moves_per_match=5,
    tour_rounds=8,
    crossed_rounds=5,
    racing_games=6,
    racing_moves=8,
    fuzz_mails=32,
    outage_seconds=16,
    long_run_backends=("sqlite",),
    lockout_players=8,
    flood_connections=300,
    flood_open_files=256,
    flood_seconds=5,
)
FULL = Scale(
    "full",
    kills=25,
    matches=8,
    moves_per_match=24,
    tour_rounds=30,
    crossed_rounds=15,
    racing_games=24,
    racing_moves=24,
    fuzz_mails=2000,
    outage_seconds=40,
    long_run_backends=("sqlite", "postgresql"),
    lockout_players=40,
    flood_connections=1100,
    flood_open_files=1024,
    flood_seconds=25,
)


@pytest.fixture(scope="session")
def scale() -> Scale:
    chosen = os.environ.get("FAULTS_SCALE", "bounded")
    if chosen not in ("bounded", "full"):
        raise pytest.UsageError(f"FAULTS_SCALE must be bounded or full, not {chosen!r}")
    return FULL if chosen == "full" else BOUNDED


@dataclass
class Figures:
    """What the fault run did and found: the numbers for the issue's closing note."""

    scale: str = ""
    kills: int = 0
    mails_sent: int = 0
    """Mails that got a 250 (each counted once, however many tries it took)."""
    mails_lost: int = 0
    """Accepted mails never stored, or never processed."""
    mails_doubled: int = 0
    """Accepted mails stored or processed twice, or replies delivered twice."""
    moves_applied_twice: int = 0
    poison_mails_survived: int = 0
    fuzz_mails_tried: int = 0
    worst_seconds_per_mail: float = 0.0
    worst_mail: str = ""
    worst_rss_mib: float = 0.0
    notes: list[str] = field(default_factory=list)

    def time_per_mail(self, seconds: float, what: str) -> None:
        if seconds > self.worst_seconds_per_mail:
            self.worst_seconds_per_mail, self.worst_mail = round(seconds, 2), what

    def rss(self, peak_bytes: int) -> None:
        self.worst_rss_mib = max(self.worst_rss_mib, round(peak_bytes / MIB, 1))


FIGURES = pytest.StashKey[Figures]()


@pytest.fixture(scope="session")
def figures(request, scale) -> Figures:
    found = request.config.stash.setdefault(FIGURES, Figures())
    found.scale = scale.name
    return found


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    found = config.stash.get(FIGURES, None)
    if found is None:
        return
    numbers = asdict(found)
    terminalreporter.section(f"fault suite figures ({found.scale})")
    for name, value in numbers.items():
        if name != "notes":
            terminalreporter.write_line(f"{name.replace('_', ' '):>24}: {value}")
    for note in found.notes:
        terminalreporter.write_line(f"  - {note}")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "faults.json").write_text(json.dumps(numbers, indent=2) + "\n")


@pytest.fixture(scope="module", params=BACKENDS)
def module_database_url(request, tmp_path_factory, sqlite_template, postgres_databases) -> Iterator[str]:
    """One migrated database per backend for a whole module (a scenario run once, checked by many tests)."""
    yield from fresh_database(request.param, tmp_path_factory.mktemp("faults"), sqlite_template, postgres_databases)


@pytest.fixture
def postgres_url(postgres_databases) -> Iterator[str]:
    """A fresh PostgreSQL database (on the shared test server), for what only PostgreSQL shows."""
    if postgres_databases is None:
        pytest.skip("PostgreSQL tests need PBM_TEST_DATABASE_URL")
    url = postgres_databases.create()
    yield url
    postgres_databases.drop(url)
