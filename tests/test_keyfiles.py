"""Keys made once by whichever process starts first, and read whole by every other.

Two `pbm tick` started at once (cron and a timer) met a signing key another had created but not
yet written, and the time pass failed ("An Ed25519 private key is 32 bytes long").
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from pbm.config import Settings, secret_key
from pbm.crypto.keyfiles import create_once
from pbm.crypto.keys import SigningKeys

STARTERS = 6


def test_a_file_is_made_once_and_a_second_maker_leaves_it_as_it_is(tmp_path):
    path = tmp_path / "var" / "secret.key"
    assert create_once(path, "first\n")
    assert not create_once(path, "second\n")
    assert path.read_text() == "first\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["secret.key"], "no temporary file is left"


def _start(folder: str, at: float) -> tuple[str, bytes]:
    """What one process starting on the data directory `folder` at time `at` finds its keys to be."""
    time.sleep(max(0.0, at - time.time()))
    home = Path(folder)
    return SigningKeys(home / "signing").key_id, secret_key(Settings(secret_key=None, home=home), home)


def test_processes_starting_at_once_share_one_signing_key_and_one_secret_key(tmp_path):
    at = time.time() + 2.0  # all of them started and waiting, then all at once
    with multiprocessing.get_context("spawn").Pool(STARTERS) as pool:
        found = pool.starmap(_start, [(str(tmp_path), at)] * STARTERS)
    assert len(set(found)) == 1, found
    assert len(SigningKeys.known(tmp_path / "signing")) == 1
