"""`pbm serve` under systemd's ``Type=notify``: READY=1 once it listens, STOPPING=1 when told to stop."""

from __future__ import annotations

import signal
import socket

from pbm.serving.systemd import notify
from tests.faults.harness import ServeProcess


def test_notify_sends_to_an_abstract_socket_and_does_nothing_without_one():
    name = f"pbm-test-{id(object())}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind("\0" + name)
        systemd.settimeout(5)
        assert notify("STATUS=hello", {"NOTIFY_SOCKET": "@" + name})
        assert systemd.recv(100) == b"STATUS=hello"
    assert not notify("READY=1", {})


def test_serve_tells_systemd_it_is_ready_once_listening_and_when_it_stops(sqlite_template, tmp_path):
    database = tmp_path / "pbm.db"
    database.write_bytes(sqlite_template.read_bytes())
    database_url = f"sqlite:///{database}"
    address = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(str(address))
        systemd.settimeout(60)
        server = ServeProcess(database_url, tmp_path / "serve", env={"NOTIFY_SOCKET": str(address)})
        server.start()  # returns once SMTP and HTTP answer
        try:
            assert systemd.recv(100) == b"READY=1"
            assert server.process is not None
            server.process.send_signal(signal.SIGTERM)
            assert systemd.recv(100) == b"STOPPING=1"
            assert server.process.wait(30) == 0
        finally:
            server.stop()
