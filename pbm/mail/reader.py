"""Reading mail in a child process: no mail can take the server's time or memory.

``parse_mail`` keeps what one mail costs within ``MailLimits``; ``MailReader`` is the
backstop for whatever those limits miss.  It runs ``parse_mail`` in a long-lived child
process, one mail at a time, with an address-space limit (``RLIMIT_AS``) and a CPU
timer set for each mail, and a wall-clock timeout in the parent for what the timer
cannot interrupt (a C call that never returns).  A child that runs out of time or
memory, crashes or is killed is replaced; ``read`` still returns a ``ParsedMail``,
with ``unreadable`` saying why in plain words and what the headers say (read in the
parent, within the limits) so that the sender can be told.

The child is a program of its own (``pbm.mail.reader_child``, which also describes
the protocol), started with ``subprocess``: it is never a fork of a threaded server,
and it runs nothing of the parent's (not its main module, which a script without an
``if __name__ == "__main__":`` guard would run again).  It exits by itself when its
input from the parent ends, so it never outlives the server.

The child's answers are JSON, never pickles: the child reads hostile input, and
nothing it sends can make the parent run code.
"""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any

from pbm.facts import Fact
from pbm.mail import reader_child
from pbm.mail.limits import MailLimits
from pbm.mail.parse import COULD_NOT_READ, NEEDED_TOO_MUCH_MEMORY, ParsedMail, parse_headers, parse_mail

log = logging.getLogger(__name__)

Parse = Callable[..., ParsedMail]
"""``parse_mail``'s signature: (raw, *, envelope_sender, loop_marker, limits)."""


@dataclass(frozen=True)
class ReadCost:
    seconds: float
    """CPU seconds the child spent on this mail; when it could not answer (stopped by
    the wall-clock timeout, crashed, killed), the wall-clock seconds waited for it."""
    peak_memory_kb: int
    """The child's peak resident memory after this mail (its own, not counting the
    parent it was started from); when it could not answer, the peak it last reported
    (0 if none)."""


@dataclass(frozen=True)
class Reading:
    mail: ParsedMail
    cost: ReadCost


STOPPED_UNEXPECTEDLY = Fact("unread-stopped")

# A child starts in a fraction of a second and takes a mail at once; this bound is
# for a busy machine, and for a child that stopped listening.
_START_SECONDS = 30.0
_READ_BYTES = 64 * 1024  # a pipe's buffer


class MailReader:
    """Reads mail in a child process within CPU time and memory limits.

    Thread-safe: one mail is read at a time.  Use as a context manager, or call
    ``close`` to stop the child.

    `parse` replaces ``parse_mail`` in the child, which imports it by module and
    name: it must be a module-level function of a module other than ``__main__``
    (ValueError otherwise), and take ``parse_mail``'s arguments.  Tests use it to
    prove the time and memory limits.
    """

    def __init__(
        self,
        *,
        loop_marker: str,
        seconds: float = 5.0,
        memory_mb: int = 512,
        limits: MailLimits = MailLimits(),  # noqa: B008 (frozen: one shared default is safe)
        parse: Parse = parse_mail,
    ) -> None:
        self._loop_marker = loop_marker
        self._seconds = seconds
        self._limits = limits
        self._setup = reader_child.setup_request(
            parse=_importable_name(parse),
            loop_marker=loop_marker,
            limits=limits,
            seconds=seconds,
            memory_bytes=memory_mb * 1024 * 1024,
        )
        # The CPU timer is the limit; the wall clock only catches what the timer
        # cannot interrupt, so it leaves room for a busy machine.
        self._wall_seconds = 2 * seconds + 1
        # An answer holds at most the body (4 bytes a character in UTF-8) and a few
        # bounded headers and notes.
        self._max_answer_bytes = 4 * limits.max_body_chars + 1024 * 1024
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._peak_memory_kb = 0
        self._closed = False

    def read(self, raw: bytes, *, envelope_sender: str | None) -> Reading:
        """Read one mail.  Whatever the mail does to the child, this returns a Reading;
        it raises only if no child process can be started at all (OSError), a fault of
        the machine rather than of the mail."""
        raw = bytes(raw)
        with self._lock:
            if self._closed:
                raise ValueError("read from a closed MailReader")
            started = time.monotonic()
            answer = self._ask(raw, envelope_sender)
            mail = None
            if "failed" not in answer:
                try:
                    mail = ParsedMail.from_json(answer["mail"])
                except (KeyError, ValueError):
                    log.warning("the mail reader gave a malformed answer")
            if mail is None:
                self._stop_child()
                mail = self._unreadable(raw, envelope_sender, answer.get("failed"))
            peak = answer.get("peak_memory_kb")
            if isinstance(peak, int):
                self._peak_memory_kb = peak
            seconds = answer.get("seconds")
            if not isinstance(seconds, float | int):
                seconds = time.monotonic() - started
            return Reading(mail, ReadCost(seconds=seconds, peak_memory_kb=self._peak_memory_kb))

    def start(self) -> None:
        """Start the child now, if none is running, rather than when the first mail comes: a
        new interpreter takes some fifty milliseconds to start and import the reader."""
        with self._lock:
            if self._closed:
                raise ValueError("start a closed MailReader")
            if self._child is None:
                self._child = _Child.start(self._setup)

    def close(self) -> None:
        """Stop the child; it ends the mail it is reading first."""
        with self._lock:
            self._closed = True
            if self._child is not None:
                self._child.close(timeout=self._wall_seconds)
                self._child = None

    def __enter__(self) -> MailReader:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def _ask(self, raw: bytes, envelope_sender: str | None) -> dict[str, Any]:
        """The child's answer: {"mail": ..., "seconds": ..., "peak_memory_kb": ...}, or
        {"failed": "time" | "memory" | "error" | "crash", ...}."""
        for _ in range(2):
            if self._child is None:
                self._child = _Child.start(self._setup)
            answer = self._child.ask(
                raw, envelope_sender, wall_seconds=self._wall_seconds, max_answer_bytes=self._max_answer_bytes
            )
            if answer is not None:
                return answer
            self._stop_child()  # it was gone before it took the mail: a new one takes it
        return {"failed": "crash"}

    def _stop_child(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child = None

    def too_large(self, header: bytes, envelope_sender: str | None, size: int, limit: int) -> Reading:
        """A mail of which only the header was fetched, being over the size limit: answered as too
        large, as the SMTP listener's 552 has the sender's own server answer."""
        marker, limits = self._loop_marker, self._limits
        facts = parse_headers(header, envelope_sender=envelope_sender, loop_marker=marker, limits=limits)
        reason = Fact("unread-too-large", size=str(size), limit=str(limit))
        return Reading(replace(facts, unread_because=reason), ReadCost(0.0, 0))

    def _unreadable(self, raw: bytes, envelope_sender: str | None, failure: Any) -> ParsedMail:
        reasons = {
            "time": Fact("unread-too-slow", seconds=f"{self._seconds:g}"),
            "memory": NEEDED_TOO_MUCH_MEMORY,
            "error": COULD_NOT_READ,
        }
        reason = reasons.get(failure, STOPPED_UNEXPECTEDLY) if isinstance(failure, str) else STOPPED_UNEXPECTEDLY
        log.warning("mail not read: %s", reason.code)
        facts = parse_headers(raw, envelope_sender=envelope_sender, loop_marker=self._loop_marker, limits=self._limits)
        return replace(facts, unread_because=reason)


def _importable_name(parse: Parse) -> tuple[str, str]:
    """The module and name the child imports `parse` by."""
    module, name = getattr(parse, "__module__", None), getattr(parse, "__qualname__", None)
    if not module or not name or module == "__main__" or getattr(sys.modules.get(module), name, None) is not parse:
        raise ValueError(f"the mail reader's child cannot import {parse!r} by name")
    return module, name


class _Child:
    """One child process and the parent's ends of its pipes."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None, "started with both pipes"
        self.process = process
        self._stdin, self._stdout = process.stdin, process.stdout
        self._requests = self._stdin.fileno()
        self._answers = self._stdout.fileno()
        # Non-blocking, with a deadline for each wait: a child that stops reading or
        # answering can never hold the parent.
        os.set_blocking(self._requests, False)
        os.set_blocking(self._answers, False)
        self._writable = select.poll()
        self._writable.register(self._requests, select.POLLOUT)
        self._readable = select.poll()
        self._readable.register(self._answers, select.POLLIN)
        self._received = bytearray()

    @classmethod
    def start(cls, setup: bytes) -> _Child:
        """A child that has taken `setup` and is ready to read mail.  OSError if none
        could be started: a fault of the machine or the installation, never of a mail."""
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", reader_child.__name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # why a child cannot start goes to the parent's log; it goes quiet once ready
            close_fds=True,
            env=_child_environment(),
        )
        child = cls(process)
        deadline = time.monotonic() + _START_SECONDS
        try:
            child._send(setup, deadline)
            if child._receive(len(reader_child.READY), deadline) == reader_child.READY:
                return child
        except (EOFError, OSError, ValueError):
            pass
        child.kill()
        raise OSError(f"the mail reader's child process did not start (exit status {process.returncode})")

    def ask(
        self, raw: bytes, envelope_sender: str | None, *, wall_seconds: float, max_answer_bytes: int
    ) -> dict[str, Any] | None:
        """The child's answer to one mail, a failure, or None if the child was gone
        (or not listening) before it took the mail."""
        deadline = time.monotonic() + _START_SECONDS
        try:
            self._send(reader_child.mail_request(raw, envelope_sender), deadline)
            taken = self._receive(len(reader_child.TAKEN), deadline)
        except (EOFError, OSError, ValueError):
            return None
        if taken != reader_child.TAKEN:
            return None
        started = time.monotonic()
        try:
            answer = json.loads(self._receive(max_answer_bytes, started + wall_seconds))
        except TimeoutError:
            return {"failed": "time", "seconds": time.monotonic() - started}
        except (EOFError, OSError, ValueError):
            return {"failed": "crash", "seconds": time.monotonic() - started}
        return answer if isinstance(answer, dict) else {"failed": "crash"}

    def close(self, *, timeout: float) -> None:
        """Let the child finish and exit (EOF on its input); kill it if it does not."""
        self._stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def kill(self) -> None:
        self.process.kill()  # nothing if it has exited already
        self.process.wait()
        self._stdin.close()
        self._stdout.close()

    def _send(self, data: bytes, deadline: float) -> None:
        unsent = memoryview(data)
        while unsent:
            try:
                unsent = unsent[os.write(self._requests, unsent) :]
            except BlockingIOError:
                _wait(self._writable, deadline)

    def _receive(self, max_bytes: int, deadline: float) -> bytes:
        """The next frame; ValueError if it is longer than `max_bytes`."""
        size = int.from_bytes(self._read_exactly(reader_child.LENGTH_BYTES, deadline), "big")
        if size > max_bytes:
            raise ValueError(f"an answer of {size} bytes, more than {max_bytes}")
        return self._read_exactly(size, deadline)

    def _read_exactly(self, size: int, deadline: float) -> bytes:
        while len(self._received) < size:
            try:
                chunk = os.read(self._answers, max(size - len(self._received), _READ_BYTES))
            except BlockingIOError:
                _wait(self._readable, deadline)
                continue
            if not chunk:
                raise EOFError
            self._received += chunk
        data = bytes(self._received[:size])
        del self._received[:size]
        return data


def _wait(poller: select.poll, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not poller.poll(remaining * 1000):
        raise TimeoutError


def _child_environment() -> dict[str, str]:
    """The parent's environment, with the parent's own sys.path as PYTHONPATH.

    The child must find pbm and the parse function where the parent found them,
    however the parent was started (a console script, ``python -m pbm``, a test
    run that put folders on sys.path itself): the child's own start would put
    other folders first (its working directory, say) or miss some.  With ``-P``
    nothing comes before PYTHONPATH, the interpreter's own folders that follow are
    already in it, and site only adds what is not there yet, so the child's
    sys.path is the parent's.
    """
    return {**os.environ, "PYTHONPATH": os.pathsep.join(os.path.abspath(folder) for folder in sys.path)}
