"""Reading mail in a child process: no mail can take the server's time or memory.

``parse_mail`` keeps what one mail costs within ``MailLimits``; ``MailReader`` is the
backstop for whatever those limits miss.  It runs ``parse_mail`` in a long-lived child
process, one mail at a time, with an address-space limit (``RLIMIT_AS``) and a CPU
timer set for each mail, and a wall-clock timeout in the parent for what the timer
cannot interrupt (a C call that never returns).  A child that runs out of time or
memory, crashes or is killed is replaced; ``read`` still returns a ``ParsedMail``,
with ``unreadable`` saying why in plain words and what the headers say (read in the
parent, within the limits) so that the sender can be told.

Children come from a ``forkserver`` with ``pbm.mail.parse`` preloaded: each starts in
milliseconds and is never a fork of a threaded server.  A child exits by itself when
its pipe to the parent ends, so it never outlives the server.

The child's answers are JSON, never pickles: the child reads hostile input, and
nothing it sends can make the parent run code.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import FrameType, TracebackType
from typing import Any

from pbm.mail.parse import COULD_NOT_READ, NEEDED_TOO_MUCH_MEMORY, MailLimits, ParsedMail, parse_headers, parse_mail

log = logging.getLogger(__name__)

Parse = Callable[..., ParsedMail]
"""``parse_mail``'s signature: (raw, *, envelope_sender, loop_marker, limits)."""


@dataclass(frozen=True)
class ReadCost:
    seconds: float
    """CPU seconds the child spent on this mail; when it could not answer (stopped by
    the wall-clock timeout, crashed, killed), the wall-clock seconds waited for it."""
    peak_memory_kb: int
    """The child's peak resident memory after this mail (ru_maxrss); when it could not
    answer, the peak it last reported (0 if none)."""


@dataclass(frozen=True)
class Reading:
    mail: ParsedMail
    cost: ReadCost


STOPPED_UNEXPECTEDLY = "reading the message stopped unexpectedly"

# The child's first answer to a mail: it has taken it.  A child that dies before
# saying so died before this mail (killed between two reads) and is simply replaced.
_TAKEN = b"taken"
# A child takes a mail at once, but a new one first imports the parent's main
# module (multiprocessing does, to find the target), which is slow on a busy machine.
_START_SECONDS = 30.0


class MailReader:
    """Reads mail in a child process within CPU time and memory limits.

    Thread-safe: one mail is read at a time.  Use as a context manager, or call
    ``close`` to stop the child.

    `parse` replaces ``parse_mail`` in the child; it must be importable by name (a
    module-level function) and take ``parse_mail``'s arguments.  Tests use it to
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
        self._memory_bytes = memory_mb * 1024 * 1024
        self._limits = limits
        self._parse = parse
        # The CPU timer is the limit; the wall clock only catches what the timer
        # cannot interrupt, so it leaves room for a busy machine.
        self._wall_seconds = 2 * seconds + 1
        # An answer holds at most the body (4 bytes a character in UTF-8) and a few
        # bounded headers and notes.
        self._max_answer_bytes = 4 * limits.max_body_chars + 1024 * 1024
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["pbm.mail.parse"])
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
                self._child = _Child.start(
                    self._context,
                    parse=self._parse,
                    loop_marker=self._loop_marker,
                    limits=self._limits,
                    seconds=self._seconds,
                    memory_bytes=self._memory_bytes,
                )
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

    def _unreadable(self, raw: bytes, envelope_sender: str | None, failure: Any) -> ParsedMail:
        reasons = {
            "time": f"the message took longer than {self._seconds:g} s to read",
            "memory": NEEDED_TOO_MUCH_MEMORY,
            "error": COULD_NOT_READ,
        }
        reason = reasons.get(failure, STOPPED_UNEXPECTEDLY) if isinstance(failure, str) else STOPPED_UNEXPECTEDLY
        log.warning("mail not read: %s", reason)
        facts = parse_headers(raw, envelope_sender=envelope_sender, loop_marker=self._loop_marker, limits=self._limits)
        return replace(facts, unreadable=reason)


class _Child:
    """One child process and the parent's end of its pipe."""

    def __init__(self, process: Any, connection: Any) -> None:
        self.process = process
        self.connection = connection

    @classmethod
    def start(
        cls,
        context: Any,
        *,
        parse: Parse,
        loop_marker: str,
        limits: MailLimits,
        seconds: float,
        memory_bytes: int,
    ) -> _Child:
        ours, theirs = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(theirs, parse, loop_marker, limits, seconds, memory_bytes),
            name="pbm-mail-reader",
            daemon=True,
        )
        process.start()
        theirs.close()  # the child's end lives in the child only: its death is our EOF
        return cls(process, ours)

    def ask(
        self, raw: bytes, envelope_sender: str | None, *, wall_seconds: float, max_answer_bytes: int
    ) -> dict[str, Any] | None:
        """The child's answer to one mail, a failure, or None if the child was gone
        before it took the mail."""
        try:
            self.connection.send_bytes(json.dumps({"envelope_sender": envelope_sender}).encode())
            self.connection.send_bytes(raw)
            taken = self.connection.poll(_START_SECONDS) and self.connection.recv_bytes(maxlength=len(_TAKEN))
        except (EOFError, OSError):
            return None
        if taken != _TAKEN:
            return {"failed": "crash"}  # alive, but not answering as a child of ours does
        started = time.monotonic()
        try:
            if not self.connection.poll(wall_seconds):
                return {"failed": "time", "seconds": time.monotonic() - started}
            answer = json.loads(self.connection.recv_bytes(maxlength=max_answer_bytes))
        except (EOFError, OSError, ValueError):
            return {"failed": "crash", "seconds": time.monotonic() - started}
        return answer if isinstance(answer, dict) else {"failed": "crash"}

    def close(self, *, timeout: float) -> None:
        """Let the child finish and exit (EOF on its pipe); kill it if it does not."""
        self.connection.close()
        self.process.join(timeout)
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.process.close()
        self.connection.close()


# --------------------------------------------------------------------------- the child


class _OutOfTime(BaseException):
    """The CPU timer fired.  Not an Exception: parse_mail's last resort must not catch it."""


def _out_of_time(signum: int, frame: FrameType | None) -> None:
    raise _OutOfTime


def _serve(
    connection: Any, parse: Parse, loop_marker: str, limits: MailLimits, seconds: float, memory_bytes: int
) -> None:
    """The child: read mails from `connection` until it ends, one answer each.

    After a mail that ran out of time or memory the child exits: an exception raised
    at an arbitrary point may have left its state half changed.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGPROF, _out_of_time)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory_bytes = min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    while True:
        try:
            envelope_sender = json.loads(connection.recv_bytes())["envelope_sender"]
            raw = connection.recv_bytes()
        except EOFError:
            return  # the reader was closed, or the server is gone
        connection.send_bytes(_TAKEN)
        answer = _read_one(parse, raw, envelope_sender, loop_marker, limits, seconds)
        try:
            message = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate fails here rather than in a reply
            answer = {"failed": "error", "seconds": answer["seconds"], "peak_memory_kb": answer["peak_memory_kb"]}
            message = json.dumps(answer).encode()
        connection.send_bytes(message)
        if "failed" in answer:
            return


def _read_one(
    parse: Parse, raw: bytes, envelope_sender: str | None, loop_marker: str, limits: MailLimits, seconds: float
) -> dict[str, Any]:
    started = time.process_time()
    answer: dict[str, Any]
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            mail = parse(raw, envelope_sender=envelope_sender, loop_marker=loop_marker, limits=limits)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        answer = {"mail": mail.to_json()}
    except _OutOfTime:
        answer = {"failed": "time"}
    except MemoryError:
        answer = {"failed": "memory"}
    except Exception:  # parse_mail never raises; a parse given for a test may
        answer = {"failed": "error"}
    answer["seconds"] = time.process_time() - started
    answer["peak_memory_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return answer
