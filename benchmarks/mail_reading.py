"""Reading hostile mail: what each known bomb costs parse_mail, and what MailReader adds.

    python -m benchmarks.mail_reading [--only NAME ...] [--timeout 300] [--no-reader]

Each bomb is read once by ``parse_mail`` in a fresh Python process, so that its peak
memory is its own; the table shows the CPU and wall-clock seconds of the reading
(some virtual machines count CPU time only in coarse ticks), the peak resident memory
of that process (an empty mail's row gives the interpreter's share), the
characters of body that came out and the notes.  A bomb that outlasts --timeout is
shown as such.  The bombs use only ``parse_mail(raw, envelope_sender=...,
loop_marker=...)``, so the same table can be made for an older parser by putting it
first on PYTHONPATH (with --no-reader).

Then the per-mail cost of ``MailReader.read`` (a child process, JSON both ways)
against ``parse_mail`` in-process, on an ordinary reply from tests/data/mail.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.timing import repeat_for

MAIL_DATA = Path(__file__).parent.parent / "tests" / "data" / "mail"
HEAD = (
    b"From: Alice <alice@example.com>\r\nTo: pbm@example.org\r\nMessage-ID: <m1@example.com>\r\n"
    b"Subject: move\r\nMIME-Version: 1.0\r\n"
)


def mail(body: bytes, content_type: bytes = b"text/plain; charset=utf-8", head: bytes = HEAD) -> bytes:
    return head + b"Content-Type: " + content_type + b"\r\n\r\n" + body


def nested_multipart(depth: int, lines: int) -> bytes:
    opening = b"".join(
        b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (level, level + 1) for level in range(depth)
    )
    body = opening + b"--b%d\r\nContent-Type: text/plain\r\n\r\n" % depth + b"x\r\n" * lines
    return mail(body, b"multipart/mixed; boundary=b0")


def commented_parts(parts: int) -> bytes:
    header = b"Content-Type: text/plain (" + b"(a)" * 30_000 + b")\r\n"
    body = b"".join(b"--b\r\n" + header + b"\r\nx\r\n" for _ in range(parts)) + b"--b--\r\n"
    return mail(body, b"multipart/mixed; boundary=b")


BOMBS: dict[str, Callable[[], bytes]] = {
    "empty mail": lambda: mail(b""),
    "utf-7 body": lambda: mail(b"help +2AA-\r\n", b"text/plain; charset=utf-7"),
    "injected Message-ID": lambda: mail(
        b"help\r\n",
        head=HEAD.replace(
            b"<m1@example.com>", b"=?utf-8?q?<x@y>=0D=0ABcc:_someone@evil.test=0D=0A=0D=0A<h1>pwned</h1>?="
        ),
    ),
    "400-character From": lambda: mail(
        b"help\r\n", head=HEAD.replace(b"alice@example.com", b"a" * 388 + b"@example.com")
    ),
    "nested lists 80 KB": lambda: mail(b"<ol><li>move" * (80 * 1024 // 12), b"text/html"),
    "nested lists 160 KB": lambda: mail(b"<ol><li>move" * (160 * 1024 // 12), b"text/html"),
    "nested quotes 240 KB": lambda: mail(b"<blockquote>c3<br>" * 20_000, b"text/html"),
    "unclosed comments 400 KB": lambda: mail(b"<p>c3</p>" + b"<!--" * 100_000, b"text/html"),
    "unclosed tags 400 KB": lambda: mail(b"<p>c3</p>" + b"<a" * 200_000, b"text/html"),
    "HTML 2 MB": lambda: mail(b"<div>c3</div>" + b"<p>a paragraph of <b>comment</b></p>\r\n" * 50_000, b"text/html"),
    "multipart 500 deep": lambda: nested_multipart(500, 200_000),
    "5000 parts": lambda: mail(
        b"--b\r\nContent-Type: text/plain\r\n\r\nc3\r\n" + b"--b\r\nContent-Type: image/png\r\n\r\nx\r\n" * 5000,
        b"multipart/mixed; boundary=b",
    ),
    "99 parts, 90 KB Content-Types": lambda: commented_parts(99),
    "5000 headers": lambda: b"".join(b"References: <r%d@example.org>\r\n" % i for i in range(5000)) + mail(b"c3"),
    "From of 300 KB comments": lambda: mail(b"c3", head=b"From: Alice (" + b"(a)" * 100_000 + b") <a@b.example>\r\n"),
    "Subject of 50000 encoded words": lambda: mail(b"c3", head=b"Subject: " + b"=?utf-8?q?move?= " * 50_000 + b"\r\n"),
    "text 6 MB": lambda: mail(b"c3=b3+c2\r\n" + b"a comment line\r\n" * 400_000),
}

# Run in a fresh interpreter: reads one bomb, prints what it cost as JSON.
MEASURE = """
import json, resource, sys, time
from benchmarks.mail_reading import BOMBS
from pbm.mail.parse import parse_mail
raw = BOMBS[sys.argv[1]]()
started, wall = time.process_time(), time.perf_counter()
mail = parse_mail(raw, envelope_sender="alice@example.com", loop_marker="pbm@example.org")
seconds, wall = time.process_time() - started, time.perf_counter() - wall
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "wall": wall, "peak_mb": peak_mb, "mail_kb": len(raw) / 1024,
                  "body": len(mail.body), "notes": list(mail.notes), "unreadable": getattr(mail, "unreadable", None)}))
"""


def measure_bomb(name: str, timeout: float) -> dict | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, name], capture_output=True, text=True, timeout=timeout, check=True
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout)


def reader_overhead(seconds: float) -> None:
    from pbm.mail.parse import parse_mail
    from pbm.mail.reader import MailReader

    raw = (MAIL_DATA / "gmail_reply.eml").read_bytes()
    rounds, elapsed = repeat_for(seconds, lambda: parse_mail(raw, envelope_sender=None, loop_marker="pbm@example.org"))
    direct = elapsed / rounds
    with MailReader(loop_marker="pbm@example.org") as reader:
        started = time.perf_counter()
        reader.read(raw, envelope_sender=None)
        first = time.perf_counter() - started
        rounds, elapsed = repeat_for(seconds, lambda: reader.read(raw, envelope_sender=None))
    through_reader = elapsed / rounds
    print(f"\nordinary reply ({len(raw):,} bytes), wall clock per mail:")
    print(f"  parse_mail in-process   {direct * 1e3:7.2f} ms")
    print(f"  MailReader.read         {through_reader * 1e3:7.2f} ms  (+{(through_reader - direct) * 1e3:.2f} ms)")
    print(f"  first read (child start){first * 1e3:7.2f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mail_reading", description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", choices=list(BOMBS), help="bombs to read (all)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds one bomb may take (300)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time to spend on each overhead measurement (2)")
    parser.add_argument("--no-reader", action="store_true", help="skip the MailReader overhead")
    args = parser.parse_args(argv)

    print(f"{'bomb':32} {'mail KB':>8} {'CPU s':>8} {'wall s':>8} {'peak MB':>8} {'body':>9}  notes")
    for name in args.only or BOMBS:
        result = measure_bomb(name, args.timeout)
        if result is None:
            print(f"{name:32} {'':>8} {'':>8} {'>' + format(args.timeout, 'g'):>8}")
            continue
        notes = "; ".join(result["notes"] + ([f"unreadable: {result['unreadable']}"] if result["unreadable"] else []))
        print(
            f"{name:32} {result['mail_kb']:8.0f} {result['seconds']:8.2f} {result['wall']:8.2f}"
            f" {result['peak_mb']:8.0f} {result['body']:9,}  {notes[:110]}",
            flush=True,
        )
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"(all bombs: {own.ru_utime + own.ru_stime:.1f} CPU s)")
    if not args.no_reader:
        reader_overhead(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
