"""Real `pbm serve` processes and an MTA-like client, for the fault suite.

Everything here talks to the server through its contracts: the ``PBM_*``
environment, SMTP on loopback, ``/healthz`` and the web over HTTP, the
``pbm`` command line. A server runs in a process group of its own, so a
SIGKILL takes down whatever children it started (a sandboxed mail reader),
as a crash of the machine would; its log (stderr) goes to a file the tests
read afterwards.
"""

from __future__ import annotations

import os
import resource
import signal
import smtplib
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.e2e.test_processes import PbmProcess, wait_for_port

MIB = 1024 * 1024
RUNAWAY_RSS = 2048 * MIB
"""Server memory (all its processes together) at which the watch kills it, to keep the
machine usable when a bomb gets through; a test then fails on the recorded runaway."""

GENEROUS_LIMITS = {
    "PBM_MAX_MAILS_PER_ADDRESS_PER_HOUR": "100000",
    "PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR": "100000",
    "PBM_MAX_SIGNUPS_PER_SENDER_PER_DAY": "100000",
    "PBM_MAX_CHALLENGES_PER_SENDER_PER_HOUR": "100000",
    "PBM_CONFIRM_ADDRESSES": "off",
}
"""For tests of crashes and races, where players legitimately mail a lot: the volume
limits are configurable, and these tests are not about them. Their players' addresses
are vouched for, as a closed club's are: each mail's replies are counted, and a
confirmation round trip per player would only add to them (test_spam_cannon confirms)."""


class ServeProcess(PbmProcess):
    """`python -m pbm serve` as in tests/e2e, plus: a name, its own log, extra settings,
    its HTTP port, a kill that takes the whole process group, a memory watch, and with
    `open_files`, the soft open-file limit a service starts with (systemd's is 1024)."""

    def __init__(
        self,
        database_url: str,
        workdir: Path,
        *,
        name: str = "pbm",
        env: dict[str, str] | None = None,
        open_files: int | None = None,
    ):
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(database_url, workdir)
        self.name = name
        self.open_files = open_files
        self.http_port = int(self.env["PBM_HTTP_LISTEN"].rpartition(":")[2])
        self.env.update(env or {})
        self.log_path = workdir / f"{name}.log"
        self.kills = 0
        self.memory = MemoryWatch()

    @property
    def secret_key(self) -> str:
        return self.env["PBM_SECRET_KEY"]

    def start(self, *args: str) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pbm", "serve", *args],
                env=self.env,
                cwd=self.workdir,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        if self.open_files:
            # Set from outside, long before the server listens: the child has only just started Python.
            _, hard = resource.prlimit(self.process.pid, resource.RLIMIT_NOFILE)
            resource.prlimit(self.process.pid, resource.RLIMIT_NOFILE, (self.open_files, hard))
        self.memory.follow(self.process)
        wait_for_port(self.smtp_port, self.process)
        wait_for_port(self.http_port, self.process)

    def kill(self) -> None:
        """SIGKILL to the server and every process it started."""
        assert self.process is not None
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.kills += 1
        self.process.wait(10)
        self.memory.follow(None)

    def stop(self) -> None:
        """The end of a test: a SIGKILL unless it already ended (a runaway, a crash)."""
        if self.process is not None:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.memory.stop()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def get(self, path: str, timeout: float = 10.0) -> httpx.Response:
        return httpx.get(f"http://127.0.0.1:{self.http_port}{path}", timeout=timeout)

    def healthz(self, timeout: float = 10.0) -> httpx.Response:
        return self.get("/healthz", timeout=timeout)

    def cli(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """A `pbm` command with this server's environment (e.g. `pbm outbox`)."""
        return subprocess.run(
            [sys.executable, "-m", "pbm", *args],
            env=self.env,
            cwd=self.workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@dataclass
class MemoryWatch:
    """Follows a server's processes in /proc: the peak RSS of each, and a runaway guard.

    Sampled every 50 ms; the kernel's own per-process peak (VmHWM) is read, so a
    short spike between two samples still counts for a process seen once.
    """

    peak_rss: int = 0
    """The largest peak resident size of any one of the server's processes, in bytes."""
    runaway: str = ""
    _process: subprocess.Popen | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopped: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def follow(self, process: subprocess.Popen | None) -> None:
        with self._lock:
            self._process = process
        if self._thread is None and process is not None:
            self._thread = threading.Thread(target=self._watch, name="memory-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(5)

    def _watch(self) -> None:
        while not self._stopped.wait(0.05):
            with self._lock:
                process = self._process
            if process is None or process.poll() is not None:
                continue
            total = 0
            for pid in _process_tree(process.pid):
                peak, current = _rss(pid)
                self.peak_rss = max(self.peak_rss, peak)
                total += current
            if total > RUNAWAY_RSS:
                self.runaway = f"the server's processes held {total // MIB} MiB; killed"
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _process_tree(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
                queue.extend(int(child) for child in children)
        except OSError:
            continue
    return found


def _rss(pid: int) -> tuple[int, int]:
    """(peak, current) resident set size of a process in bytes; zeros once it is gone."""
    peak = current = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1]) * 1024
            elif line.startswith("VmRSS:"):
                current = int(line.split()[1]) * 1024
    except OSError:
        pass
    return peak, current


# -- SMTP, as an MTA sends ---------------------------------------------------------


class Refused(Exception):
    """The server refused a mail for good (5xx), or kept deferring it past the deadline."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code} {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Attempt:
    """What one SMTP transaction came to: the reply code (0: the connection failed)."""

    code: int
    message: str

    @property
    def accepted(self) -> bool:
        return self.code == 250


def attempt(port: int, sender: str, raw: bytes, recipients: list[str] | None = None, timeout: float = 30.0) -> Attempt:
    """One SMTP transaction, reporting instead of raising: how the server answered."""
    wire = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=timeout) as client:
            refused = client.sendmail(sender, recipients or ["pbm@localhost"], wire)
    except smtplib.SMTPResponseException as error:
        return Attempt(error.smtp_code, _text(error.smtp_error))
    except smtplib.SMTPRecipientsRefused as error:
        code, message = next(iter(error.recipients.values()))
        return Attempt(code, _text(message))
    except smtplib.SMTPSenderRefused as error:
        return Attempt(error.smtp_code, _text(error.smtp_error))
    except (OSError, smtplib.SMTPException) as error:
        return Attempt(0, f"{type(error).__name__}: {error}")
    if refused:
        code, message = next(iter(refused.values()))
        return Attempt(code, _text(message))
    return Attempt(250, "")


def _text(message: bytes | str) -> str:
    return message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)


@dataclass
class Sent:
    """A mail that got its 250, and how many tries that took."""

    message_id: str
    attempts: list[Attempt]


def deliver(
    port: int,
    sender: str,
    raw: bytes,
    *,
    message_id: str,
    recipients: list[str] | None = None,
    give_up_after: float = 120.0,
) -> Sent:
    """Send as an MTA does: a 4xx, a refused connection or one cut before the
    reply is tried again shortly; a 5xx is final. Raises `Refused` unless a 250 came."""
    tries: list[Attempt] = []
    deadline = time.monotonic() + give_up_after
    while True:
        result = attempt(port, sender, raw, recipients)
        tries.append(result)
        if result.accepted:
            return Sent(message_id, tries)
        if 500 <= result.code < 600:
            raise Refused(result.code, result.message)
        if time.monotonic() > deadline:
            raise Refused(result.code, f"still deferred after {give_up_after:.0f} s: {result.message}")
        time.sleep(0.2)


def wait_for(condition, timeout: float, interval: float = 0.1):
    """Poll until `condition()` is truthy; returns its value, or None at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)
