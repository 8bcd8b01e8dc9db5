"""Reading a mail holds no write lock: however long a mail takes to read, others are stored meanwhile.

On SQLite one writer at a time holds the whole database; if a mail were read
(MIME, charsets, HTML) inside the transaction that applies it, every SMTP
client would wait for its 250 behind a mail built to be slow to read.
"""

from __future__ import annotations

import sqlite3

import pytest

from pbm.mail.reader import Reading
from tests.support import mail


class WriterCheckingReader:
    """Reads through the real reader, first checking that another writer could write right now."""

    def __init__(self, reader, database_path: str) -> None:
        self.reader = reader
        self.database_path = database_path
        self.could_write: list[bool] = []

    def read(self, raw: bytes, *, envelope_sender: str | None) -> Reading:
        other = sqlite3.connect(self.database_path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            self.could_write.append(True)
        except sqlite3.OperationalError:
            self.could_write.append(False)
        finally:
            other.close()
        return self.reader.read(raw, envelope_sender=envelope_sender)


def test_while_a_mail_is_read_another_writer_can_write(make_mailroom, database_url):
    if not database_url.startswith("sqlite"):
        pytest.skip("PostgreSQL has no database-wide write lock")
    room = make_mailroom(confirming=False)  # the readings counted are the two mails'
    checking = WriterCheckingReader(room.server.processor.reader, database_url.removeprefix("sqlite:///"))
    room.server.processor.reader = checking
    room.send(mail("alice@example.org", "signup alice alice-pw"))
    room.send(mail("bob@example.org", "help"))
    assert checking.could_write == [True, True]
