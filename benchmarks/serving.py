"""A real `pbm serve` process for the benchmarks that talk to it over SMTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SECRET = "benchmark-secret-" + "k" * 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def pbm_serve(database_url: str, folder: Path, **settings: str) -> Iterator[int]:
    """`pbm serve` on `database_url`, replies into a maildir in `folder`; yields its SMTP port.

    `settings` are more ``PBM_*`` variables (``max_commands_per_mail="20"``).
    """
    port = free_port()
    env = {
        **os.environ,
        "PBM_DATABASE_URL": database_url,
        "PBM_SMTP_LISTEN": f"127.0.0.1:{port}",
        "PBM_HTTP_LISTEN": f"127.0.0.1:{free_port()}",
        "PBM_OUTBOUND": f"maildir:{folder}/outbox",
        "PBM_SECRET_KEY": SECRET,
        **{f"PBM_{name.upper()}": value for name, value in settings.items()},
    }
    with listening([sys.executable, "-m", "pbm", "serve"], port, env=env, cwd=folder):
        yield port


@contextmanager
def listening(
    command: list[str], port: int, *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Iterator[None]:
    """`command` in a process of its own, once it listens on `port` of loopback; stopped after."""
    quiet = subprocess.DEVNULL
    server = subprocess.Popen(command, env=env, cwd=cwd, stdout=quiet, stderr=quiet)
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"{' '.join(command[1:])} did not start")
            time.sleep(0.1)
        yield
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
