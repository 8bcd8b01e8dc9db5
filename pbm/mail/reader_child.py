"""The mail reader's child: a program of its own that reads mail for ``MailReader``.

``pbm.mail.reader`` starts it as ``python -P -m pbm.mail.reader_child``, so it
depends on nothing in its parent's process: it imports this module, the parse
function it is told to use and what that needs, never its parent's main module.

It speaks over its standard input and output in frames: four bytes giving a
length (big-endian), then that many bytes.

1. The parent sends the setup, JSON: ``{"parse": [module, name], "loop_marker": ...,
   "limits": {MailLimits' fields}, "seconds": ..., "memory_bytes": ...}``.  The child
   imports the parse function, limits its own address space and answers ``READY``.
2. For each mail the parent sends ``{"envelope_sender": ...}`` (JSON) and then the
   raw mail.  The child answers ``TAKEN`` at once, then JSON: ``{"mail": ...}`` or
   ``{"failed": "time" | "memory" | "error"}``, with ``"seconds"`` (CPU) and
   ``"peak_memory_kb"``.  After a failure it exits.
3. When its standard input ends (the reader was closed, or the parent is gone), it exits.

Answers are JSON, never pickles: the child reads hostile input, and nothing it
sends can make the parent run code.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import FrameType
from typing import Any, BinaryIO

from pbm.mail.limits import MailLimits
from pbm.mail.parse import ParsedMail

LENGTH_BYTES = 4
READY = b"ready"
"""The child's answer to the setup: it can read mail."""
TAKEN = b"taken"
"""The child's first answer to a mail: it has taken it.  A child that dies before
saying so died before this mail (killed between two reads) and is simply replaced."""


def framed(payload: bytes) -> bytes:
    return len(payload).to_bytes(LENGTH_BYTES, "big") + payload


def setup_request(
    *, parse: tuple[str, str], loop_marker: str, limits: MailLimits, seconds: float, memory_bytes: int
) -> bytes:
    """The parent's first frame: `parse` is the parse function's module and name."""
    setup = {
        "parse": parse,
        "loop_marker": loop_marker,
        "limits": asdict(limits),
        "seconds": seconds,
        "memory_bytes": memory_bytes,
    }
    return framed(json.dumps(setup).encode())


def mail_request(raw: bytes, envelope_sender: str | None) -> bytes:
    return framed(json.dumps({"envelope_sender": envelope_sender}).encode()) + framed(raw)


@dataclass(frozen=True)
class _Setup:
    parse: Callable[..., ParsedMail]
    loop_marker: str
    limits: MailLimits
    seconds: float
    memory_bytes: int

    @classmethod
    def from_json(cls, setup: dict[str, Any]) -> _Setup:
        module, name = setup["parse"]
        parse = getattr(importlib.import_module(module), name)
        limits = MailLimits(**setup["limits"])
        return cls(parse, setup["loop_marker"], limits, setup["seconds"], setup["memory_bytes"])


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for the parent, which decides
    # The pipes are the protocol's alone: whatever else reads standard input or
    # prints (a library, a parse function given for a test) gets /dev/null.
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDWR)
    os.dup2(nothing, 0)
    os.dup2(nothing, 1)
    request = _receive(requests)
    if request is None:
        return
    setup = _Setup.from_json(json.loads(request))
    signal.signal(signal.SIGPROF, _out_of_time)
    _limit_address_space(setup.memory_bytes)
    _send(answers, READY)
    # Until now an error (a broken installation) is worth a traceback on the parent's
    # standard error; from here on the child reads hostile mail, and nothing a library
    # might print about one belongs in the server's log.
    os.dup2(nothing, 2)
    _serve(requests, answers, setup)


def _limit_address_space(memory_bytes: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        memory_bytes = min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _serve(requests: BinaryIO, answers: BinaryIO, setup: _Setup) -> None:
    """Read mails from `requests` until they end, one answer each.

    After a mail that ran out of time or memory the child exits: an exception raised
    at an arbitrary point may have left its state half changed.
    """
    while True:
        control = _receive(requests)
        raw = _receive(requests)
        if control is None or raw is None:
            return
        envelope_sender = json.loads(control)["envelope_sender"]
        _send(answers, TAKEN)
        answer = _read_one(setup, raw, envelope_sender)
        try:
            message = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate fails here rather than in a reply
            answer = {"failed": "error", "seconds": answer["seconds"], "peak_memory_kb": answer["peak_memory_kb"]}
            message = json.dumps(answer).encode()
        _send(answers, message)
        if "failed" in answer:
            return


def _receive(requests: BinaryIO) -> bytes | None:
    """The next frame, or None when the input ends (a frame cut short ends it too)."""
    length = requests.read(LENGTH_BYTES)
    if len(length) < LENGTH_BYTES:
        return None
    size = int.from_bytes(length, "big")
    payload = requests.read(size)
    return payload if len(payload) == size else None


def _send(answers: BinaryIO, payload: bytes) -> None:
    answers.write(framed(payload))
    answers.flush()


class _OutOfTime(BaseException):
    """The CPU timer fired.  Not an Exception: parse_mail's last resort must not catch it."""


def _out_of_time(signum: int, frame: FrameType | None) -> None:
    raise _OutOfTime


def _read_one(setup: _Setup, raw: bytes, envelope_sender: str | None) -> dict[str, Any]:
    started = time.process_time()
    answer: dict[str, Any]
    try:
        signal.setitimer(signal.ITIMER_PROF, setup.seconds)
        try:
            mail = setup.parse(raw, envelope_sender=envelope_sender, loop_marker=setup.loop_marker, limits=setup.limits)
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
    answer["peak_memory_kb"] = _peak_memory_kb()
    return answer


def _peak_memory_kb() -> int:
    """This program's peak resident memory (Linux's high-water mark), 0 where unknown.

    Not ``ru_maxrss``: the kernel carries into it the peak of the process this one
    replaced when it started (the parent, forked or vforked, then exec'd), so in
    the child of a large server it would report the server.
    """
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass  # no /proc
    return 0


if __name__ == "__main__":
    main()
