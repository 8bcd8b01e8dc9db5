"""Live updates on a real server: a move mailed over SMTP, or applied by another process,
reaches an open event stream; and real board mails leak nothing onto the pages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from urllib.parse import quote

import httpx
import pytest

from tests.e2e.conftest import loopback_settings, start_server
from tests.support import mail

ALICE, BOB = "alice@example.org", "bob@example.net"


def start_game(server, sink) -> None:
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)


def page_position(base: str, path: str) -> tuple[str, str]:
    """The event stream a page names, and the feed position it was made at."""
    html = httpx.get(base + path).text
    found = re.search(r'data-live-events="([^"]*)" data-live-after="([^"]*)"', html)
    assert found is not None
    return found.group(1).replace("&amp;", "&"), found.group(2)


class Listener:
    """Reads an event stream in a thread and keeps the change events it carries."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.changes: list[dict] = []
        self.opened = threading.Event()
        self.arrived = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.opened.wait(10), "the event stream did not open"

    def _read(self) -> None:
        with httpx.stream("GET", self.url, timeout=httpx.Timeout(30.0)) as answer:
            assert answer.headers["content-type"].startswith("text/event-stream")
            self.opened.set()
            event = None
            for line in answer.iter_lines():
                if line.startswith("event: "):
                    event = line.removeprefix("event: ")
                elif line.startswith("data: ") and event == "change":
                    with self.arrived:
                        self.changes.append(json.loads(line.removeprefix("data: ")))
                        self.arrived.notify_all()

    def wait(self, count: int, timeout: float) -> list[dict]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.changes) >= count, timeout), self.changes
            return list(self.changes)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_move_mailed_to_the_server_reaches_an_open_page_at_once(server, sink):
    start_game(server, sink)
    server.server.changes.poll_seconds = 3600  # only the processor's wake-up can tell in time
    base = f"http://127.0.0.1:{server.http_port}"
    events, after = page_position(base, "/cephalopod/101")
    listener = Listener(f"{base}{events}&after={after}")
    time.sleep(0.2)  # the poll a new listener triggers is done; from here only a wake-up tells
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    [change] = listener.wait(1, timeout=5)
    assert change["game"] == "cephalopod" and change["board"] == 101
    assert change["move_count"] == 1 and change["to_move"] == "bob"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_move_applied_by_a_pbm_process_pipe_reaches_an_open_page(server, sink, database_url, tmp_path):
    start_game(server, sink)
    server.server.changes.poll_seconds = 0.5
    base = f"http://127.0.0.1:{server.http_port}"
    events, after = page_position(base, "/cephalopod/101")
    listener = Listener(f"{base}{events}&after={after}")
    env = {
        **os.environ,
        "PBM_DATABASE_URL": database_url,
        "PBM_SECRET_KEY": server.server.settings.secret_key,
        "PBM_OUTBOUND": f"smtp://127.0.0.1:{sink.port}",
    }
    piped = subprocess.run(
        [sys.executable, "-m", "pbm", "process", "--sender", ALICE, "-"],
        input=mail(ALICE, "cephalopod move 101 alice alice-pw c3"),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr.decode()
    assert b"processed 1" in piped.stdout
    [change] = listener.wait(1, timeout=10)
    assert (change["board"], change["move_count"]) == (101, 1)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_page_for_another_board_hears_nothing_of_this_one(server, sink):
    start_game(server, sink)
    server.send(mail(BOB, "cephalopod challenge bob alice"), BOB)
    sink.wait(2)
    base = f"http://127.0.0.1:{server.http_port}"
    events, after = page_position(base, "/cephalopod/102")
    other_events, other_after = page_position(base, "/cephalopod/101")
    elsewhere = Listener(f"{base}{events}&after={after}")
    here = Listener(f"{base}{other_events}&after={other_after}")
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    here.wait(1, timeout=5)
    time.sleep(0.5)
    assert elsewhere.changes == []


def test_stopping_the_server_ends_open_event_streams(database_url, sink, tmp_path):
    running = start_server(loopback_settings(database_url, f"smtp://127.0.0.1:{sink.port}", "live"), tmp_path)
    listener = Listener(f"http://127.0.0.1:{running.http_port}/api/events")
    started = time.monotonic()
    running.thread.stop()
    listener.thread.join(5)
    assert not listener.thread.is_alive()
    assert time.monotonic() - started < 5


def test_real_board_mails_put_no_reply_token_address_or_comment_on_any_page(server, sink):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "dodeca challenge alice bob\n\nPrivate: my phone is 555-0123"), ALICE)
    boards = sink.wait(2)
    tokens = {m["Reply-To"].addresses[0].addr_spec.split("+")[1].split("@")[0] for m in boards}
    assert len(tokens) == 2
    base = f"http://127.0.0.1:{server.http_port}"
    urls = ["/", "/api/games", "/dodeca", "/api/dodeca", "/dodeca/101", "/api/dodeca/101"]
    urls += [f"/players/{quote(u)}" for u in ("alice", "bob")] + [f"/api/players/{u}" for u in ("alice", "bob")]
    for url in urls:
        answer = httpx.get(base + url)
        assert answer.status_code == 200, url
        for private in [*tokens, ALICE, BOB, "555-0123", "alice-pw"]:
            assert private not in answer.text, (url, private)
