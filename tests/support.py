"""Helpers shared by the server tests: building mails, reading replies."""

from __future__ import annotations

import atexit
import email
import itertools
import os
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from pbm.config import Settings
from pbm.mail.reader import MailReader

_serial = itertools.count(1)


def mail(
    sender: str,
    body: str = "",
    *,
    subject: str = "",
    to: str = "pbm@localhost",
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> bytes:
    """A plain-text mail as a player's client would send it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id or make_msgid(idstring=str(next(_serial)), domain="client.example")
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body)
    return bytes(message)


def read(raw: bytes) -> EmailMessage:
    """Parse a mail as a client shows it (CRLF from the wire becomes plain newlines)."""
    return email.message_from_bytes(raw.replace(b"\r\n", b"\n"), policy=default_policy)  # type: ignore[return-value]


def body_of(message: EmailMessage) -> str:
    """The text a reader reads: the whole body, or the text part of a mail with an attachment."""
    if message.is_multipart():
        return message.get_body(preferencelist=("plain",)).get_content()
    return message.get_content()


def reply_to_board(board_mail: EmailMessage, sender: str, first_line: str, comment: str = "") -> bytes:
    """A reply as a mail client writes it: our text on top, the board quoted below."""
    quoted = "\n".join("> " + line for line in body_of(board_mail).splitlines())
    text = f"{first_line}\n\n{comment}\n\nOn Sat, 21 Nov 2026, PBeM Server wrote:\n{quoted}\n"
    reply_to = board_mail["Reply-To"].addresses[0].addr_spec
    return mail(
        sender,
        text,
        subject="Re: " + board_mail["Subject"],
        to=reply_to,
        headers={"In-Reply-To": board_mail["Message-ID"], "References": board_mail["Message-ID"]},
    )


def confirmation_reply(asking: EmailMessage, first_line: str = "") -> bytes | None:
    """The reply that confirms the address `asking` went to, as its owner's mail client writes it
    (`first_line` on top, the mail quoted below); None when `asking` asks nothing."""
    reply_to = asking["Reply-To"].addresses[0].addr_spec if asking["Reply-To"] else ""
    if "+confirm-" not in reply_to:
        return None
    owner = asking["To"].addresses[0].addr_spec
    quoted = "\n".join("> " + line for line in body_of(asking).splitlines())
    return mail(owner, f"{first_line}\n\n{quoted}\n", subject="Re: " + str(asking["Subject"]), to=reply_to)


class Clock:
    """The server's time, moved by the test: for what happens an hour or a day later."""

    def __init__(self, start: datetime = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)) -> None:
        self.time = start

    def __call__(self) -> datetime:
        return self.time

    def advance(self, **delta: float) -> None:
        self.time += timedelta(**delta)


_SHARED_READERS: dict[tuple[str, float, int], MailReader] = {}


def shared_reader(settings: Settings) -> MailReader:
    """One mail reader, and so one child process, for every server a test process starts with
    the same reading settings: a child costs a new interpreter (some 0.1 s of CPU and 0.3 s of
    waiting here) and reads each mail alike whichever server asks. Production servers have
    their own; the reader's own tests make theirs. Closed when the test process ends."""
    key = (settings.address, settings.mail_read_seconds, settings.mail_read_memory_mb)
    reader = _SHARED_READERS.get(key)
    if reader is None:
        reader = MailReader(loop_marker=key[0], seconds=key[1], memory_mb=key[2])
        _SHARED_READERS[key] = reader
        atexit.register(reader.close)
    return reader


def _shared_children() -> set[int]:
    return {reader._child.process.pid for reader in _SHARED_READERS.values() if reader._child is not None}


def reader_children(parent: int | None = None) -> set[int]:
    """The live mail reader children of `parent` (this process by default), but those of the
    readers its servers share (`shared_reader`)."""
    parent = os.getpid() if parent is None else parent
    children = set()
    for process in Path("/proc").glob("[0-9]*"):
        try:
            state, parent_id = (process / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            command = (process / "cmdline").read_bytes()
        except OSError:
            continue  # it just ended
        if int(parent_id) == parent and state != "Z" and b"pbm.mail.reader_child" in command:
            children.add(int(process.name))
    return children - _shared_children()


def claim_on_this_host(pid: int | str, nonce: str = "00000000") -> str:
    """A claim as a worker on this host, in this process's pid namespace, names itself when it
    runs as process `pid` (`pbm.mail.worker.Worker`)."""
    from pbm.mail.worker import Worker

    host, _pid, _nonce = Worker.here().name.split(":")
    return f"{host}:{pid}:{nonce}"


def end_words(board) -> str:
    """How a stored game ended, in the words a player reads: its `end_fact`, said in English."""
    from pbm.facts import Fact
    from pbm.words import Words

    return Words().say(Fact.from_json(board.end_fact))
