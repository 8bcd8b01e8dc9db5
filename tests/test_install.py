"""`pip install .` into a new venv, away from the checkout, gives a `pbm` that serves a club:
templates, migrations and the locale data come with it, the data goes to PBM_HOME, and a game
is played by mail to its end of the first moves.

Minutes of building and installing: marked ``install``, run by `make install-check`, left out
of `make test`.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import free_port
from tests.e2e.test_processes import wait_for_port
from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import wait_for
from tests.faults.players import Match, challenge, new_player, post, signup

pytestmark = pytest.mark.install

CHECKOUT = Path(__file__).resolve().parents[1]
MOVES = 6


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A venv outside the checkout with pbm installed from it as a user would: its bin folder."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    started = time.monotonic()
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(CHECKOUT)],
        check=True,
        timeout=900,
        env=_clean_environment(),
    )
    print(f"pip install . took {time.monotonic() - started:.1f} s")
    return venv / "bin"


def _clean_environment(**variables: str) -> dict[str, str]:
    """The environment without what points at the checkout or at a test's settings."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PBM_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**kept, **variables}


def test_the_installed_package_is_the_wheel_not_the_checkout_and_has_its_data(installed, tmp_path):
    found = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            "import pbm, pbm.resources as r; from pathlib import Path; "
            "print(pbm.__file__); print(r.resource_dir('templates')); print(r.resource_dir('migrations')); "
            "print(sorted(p.name for p in (Path(pbm.__file__).parent / 'locale' / 'fr' / 'LC_MESSAGES').glob('*.mo')))",
        ],
        cwd=tmp_path,
        env=_clean_environment(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    package, templates, migrations, compiled = found
    assert "site-packages" in package and str(CHECKOUT) not in package
    assert templates.startswith(str(Path(package).parent)) and migrations.startswith(str(Path(package).parent))
    # Compiled by the build (hatch_build.py): git keeps only the .po.
    catalogues = sorted(po.with_suffix(".mo").name for po in (CHECKOUT / "pbm/locale/fr/LC_MESSAGES").glob("*.po"))
    assert catalogues and compiled == str(catalogues)


def test_an_installed_pbm_serves_a_game_by_mail_from_its_data_directory(installed, tmp_path):
    home = tmp_path / "club"
    smtp, http = free_port(), free_port()
    env = _clean_environment(
        PBM_HOME=str(home),
        PBM_SMTP_LISTEN=f"127.0.0.1:{smtp}",
        PBM_HTTP_LISTEN=f"127.0.0.1:{http}",
        PBM_CONFIRM_ADDRESSES="off",
    )
    elsewhere = tmp_path / "elsewhere"  # the working directory: nothing is written to it
    elsewhere.mkdir()

    first = subprocess.run(
        [str(installed / "pbm"), "db", "upgrade"], env=env, cwd=elsewhere, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert "Running upgrade" in first.stderr  # a migration ran, and says so
    again = subprocess.run(
        [str(installed / "pbm"), "db", "upgrade"], env=env, cwd=elsewhere, capture_output=True, text=True
    )
    assert (again.stdout, again.stderr) == ("database schema is up to date\n", "")  # nothing ran: no chatter

    server = subprocess.Popen(
        [str(installed / "pbm"), "serve"],
        env=env,
        cwd=elsewhere,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "serve.log").open("wb"),
        start_new_session=True,
    )
    tables = Tables(f"sqlite:///{home / 'pbm.db'}")
    try:
        wait_for_port(smtp, server)
        rng = random.Random("installed")
        match = Match("cephalopod", [new_player("i", rng), new_player("i", rng)])
        for player in match.players:
            post(smtp, signup(player))
        post(smtp, challenge("cephalopod", match.players))
        match.board = wait_for(lambda: tables.board_of("cephalopod", match.userids), 60)
        assert match.board == 101
        played = []
        for _ in range(MOVES):
            mail, move = match.move_letter(rng)
            post(smtp, mail)
            played.append(move)
        assert wait_for(lambda: len(tables.moves()) == MOVES and not tables.pending(), 60)
        game = httpx.get(f"http://127.0.0.1:{http}/api/cephalopod/101", timeout=30).json()
        assert [m["notation"] for m in game["moves"]] == played
        # Two welcomes, the new board to both, then a board to both players for each move.
        assert wait_for(lambda: len(maildir_files(home / "outbox")) == 2 + 2 + 2 * MOVES, 60)
    finally:
        tables.close()
        server.terminate()
        server.wait(30)
    made = {path.name for path in home.iterdir()} - {"pbm.db-wal", "pbm.db-shm"}
    assert made == {"outbox", "pbm.db", "secret.key", "signing"}
    assert list(elsewhere.iterdir()) == []
