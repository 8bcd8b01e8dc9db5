"""Hostile numbers: in web addresses, and in the files handed to ``pbm verify``.

The audit asked for ``?ply=²`` and for ply and board numbers of 4 400 digits:
each a 500 with a 40-line traceback (600 requests wrote 1.7 MB of log in 3 s).
It handed ``pbm verify`` 200 000 nested brackets and a 100 000-digit number: a
traceback and exit 1, the code that says "not genuine". Here the same requests
go to a running server, and the same files to ``pbm verify``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter

import httpx
import pytest

from tests.faults.harness import ServeProcess

HUGE = "1" * 4400
SMALL_LOG = 16 * 1024
"""Bytes the log may grow by for all the hostile requests: no traceback, whatever their number."""


def hostile_addresses() -> list[str]:
    addresses = []
    for text in ("²", "3²", "١٢", HUGE):
        addresses += [f"/cephalopod/101?ply={text}", f"/api/cephalopod/101?ply={text}", f"/cephalopod?before={text}"]
        addresses += [f"/api/cephalopod?after={text}", f"/cephalopod/standings?page={text}"]
    return addresses + [f"/cephalopod/{HUGE}", f"/api/cephalopod/{HUGE}", f"/cephalopod/{HUGE}/record.json"]


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("hostile-numbers")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    server = ServeProcess(f"sqlite:///{workdir / 'pbm.db'}", workdir)
    server.start()
    yield server
    server.stop()


def test_hostile_numbers_in_web_addresses_are_refused_in_a_line(server, scale, figures):
    rounds = 40 if scale.name == "full" else 4
    addresses = hostile_addresses()
    log_before = server.log_path.stat().st_size
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=10) as client:
        for _ in range(rounds):
            for address in addresses:
                try:
                    statuses[client.get(address).status_code] += 1
                except httpx.HTTPError:
                    statuses[0] += 1  # no answer
    growth = server.log_path.stat().st_size - log_before
    figures.notes.append(
        f"hostile numbers: {statuses.total()} requests with ²-like or 4 400-digit numbers answered "
        f"{dict(sorted(statuses.items()))}; the log grew {growth} bytes"
    )
    assert set(statuses) <= {400, 404}
    assert growth < SMALL_LOG


HOSTILE_FILES = {
    "nested": "[" * 200_000,
    "digits": "1" * 100_000,
    "digits-inside": '{"pbm": {"board": ' + "9" * 100_000 + "}}",
}


def test_hostile_files_make_pbm_verify_say_a_sentence_and_exit_2(tmp_path, figures):
    found = {}
    for name, text in HOSTILE_FILES.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        done = subprocess.run(
            [sys.executable, "-m", "pbm", "verify", str(path)], capture_output=True, text=True, timeout=60
        )
        found[name] = (done.returncode, len(done.stderr.splitlines()))
    figures.notes.append(f"hostile files to pbm verify: (exit code, lines on stderr) {found}")
    assert all(found_for == (2, 1) for found_for in found.values()), found
