"""A private PostgreSQL cluster for tests that need the database to fail.

Tests must never stop or pause the machine's shared PostgreSQL server; a test
that needs an outage starts a cluster of its own (``initdb`` into a temporary
folder, ``pg_ctl`` on a free loopback port) and does what it likes to it::

    def test_something(pg_cluster):  # the fixture (tests/conftest.py loads this module as a plugin)
        url = pg_cluster.create_database("pbm")  # postgresql+psycopg://...
        ...
        pg_cluster.pause()            # SIGSTOP: the server hangs, connections stay open
        pg_cluster.resume()           # SIGCONT: it carries on where it stopped
        pg_cluster.stop("immediate")  # a crash (or "fast": a clean shutdown)
        pg_cluster.start()            # the same data, the same port and URL

`PrivateCluster` is the class behind the fixture, for other lifetimes
(``with PrivateCluster() as cluster: ...``). `skip_reason()` says why there
can be no cluster here (no ``initdb`` on PATH; root without a ``postgres``
user to run it as), and the fixture skips with that reason.

``initdb`` refuses to run as root, so as root the cluster runs as the
``postgres`` user, in a folder that user owns. The cluster trades durability
for speed (no fsync): what was committed survives a crash of PostgreSQL (a
stop "immediate", a SIGKILL), but not a crash of the machine.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    # A commit is written to the OS before it returns (synchronous_commit stays on), so an
    # immediate stop loses nothing committed; skipping fsync only risks a crash of the machine.
    "fsync": "off",
    "full_page_writes": "off",
    "shared_buffers": "16MB",
}


def skip_reason() -> str | None:
    """Why no private cluster can run here, or ``None`` when one can."""
    if shutil.which("initdb") is None or shutil.which("pg_ctl") is None:
        return "initdb and pg_ctl are not on PATH (install PostgreSQL's server package)"
    if os.geteuid() == 0 and _postgres_user() is None:
        return "initdb refuses to run as root, and there is no postgres user to run it as"
    return None


def _postgres_user() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivateCluster:
    """A PostgreSQL cluster of the test's own: start, stop, pause, resume, connect.

    The superuser is ``postgres`` with trust authentication on loopback.
    """

    def __init__(self) -> None:
        reason = skip_reason()
        if reason is not None:
            raise RuntimeError(reason)
        self.port = _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="pbm-pgcluster-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self._owner = _postgres_user() if os.geteuid() == 0 else None
        if self._owner is not None:
            os.chown(self.folder, self._owner.pw_uid, self._owner.pw_gid)
        self._paused: list[int] = []
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of `database` on this cluster."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; returns its URL."""
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)

    def start(self) -> None:
        """Start the server (again) and wait until it takes connections."""
        options = " ".join(f"-c {name}={value}" for name, value in SERVER_SETTINGS.items())
        server_options = f"-p {self.port} -k {self.folder} {options}"
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.log), "-o", server_options)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``"fast"`` (clean: sessions ended, data flushed) or
        ``"immediate"`` (a crash: recovery runs at the next start). Resumes a paused server first."""
        self.resume()
        self._run("pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", str(self.data))

    def pause(self) -> None:
        """SIGSTOP the server and every process of it: connections stay open, nothing answers.

        New connections are still accepted by the kernel and then hang, as
        with a server that is stuck rather than down.
        """
        postmaster = self.postmaster_pid()
        os.kill(postmaster, signal.SIGSTOP)  # first, so that it forks nothing new meanwhile
        self._paused = [postmaster, *self._children(postmaster)]
        for pid in self._paused[1:]:
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT what `pause` stopped; nothing happens if it is not paused."""
        for pid in reversed(self._paused):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._paused = []

    @property
    def paused(self) -> bool:
        return bool(self._paused)

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def destroy(self) -> None:
        """Stop the server as a crash would (if it runs) and delete its files."""
        self.resume()
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", str(self.data), check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PrivateCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    @staticmethod
    def _children(parent: int) -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            # The command name is in parentheses and may hold spaces; the parent follows it.
            fields = stat.rpartition(")")[2].split()
            if int(fields[1]) == parent:
                found.append(int(entry.name))
        return found

    def _run(self, *command: str, check: bool = True) -> None:
        owner = self._owner
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=120,
            check=False,
            user=owner.pw_uid if owner else None,
            group=owner.pw_gid if owner else None,
            extra_groups=[] if owner else None,
            cwd=self.folder,
        )
        if check and done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(command[:2])} failed: {done.stderr.decode(errors='replace')}{log}")


@pytest.fixture
def pg_cluster() -> Iterator[PrivateCluster]:
    """A started private cluster, destroyed after the test (skips where none can run)."""
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    with PrivateCluster() as cluster:
        yield cluster

