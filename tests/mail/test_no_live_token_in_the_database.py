"""No credential that works is ever written to the database, nor so to its journal or its free
pages: board mails, a digest and a password reset are sent, and the SQLite file and its ``-wal``
and ``-journal`` are read as bytes for every token the mails carried as they were handed over
(each whole, and its MAC alone). The outbox keeps each mail with its tokens sealed; delivery makes
them from the key as it hands the mail over (`pbm.mail.tokens.ReplyTokens.unseal`)."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timezone
from pathlib import Path

from pbm.mail.delivery import Delivery
from tests.mail.test_digests import pass_hours, setup
from tests.support import Clock, mail

ALICE, BOB = "alice@example.org", "bob@example.net"
LIVE = re.compile(
    rb"pbm\+(\d+-\d+-\d+-t[a-z2-7]{20}|digest-\d+-(?:\d+-)?[a-z2-7]{20}|(?:reset|confirm)-[0-9a-f]{32}(?:-[a-z2-7]{20})?)@"
)
"""A token that works, as a mail handed over carries it in a reply address (and as it did before
tokens were sealed: a digest's without a mark, a reset's without a MAC)."""


class Handed:
    def __init__(self) -> None:
        self.raws: list[bytes] = []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.raws.append(raw)

    async def check(self) -> None:
        return None

    async def rest(self) -> None:
        return None


def database_bytes(url: str) -> bytes:
    """The SQLite file and whatever journal beside it, as bytes: free pages and the WAL included."""
    path = Path(url.removeprefix("sqlite:///").split("?")[0])
    return b"".join(
        Path(f"{path}{suffix}").read_bytes() for suffix in ("", "-wal", "-journal") if Path(f"{path}{suffix}").exists()
    )


def test_no_token_a_mail_carried_is_in_the_database_file_or_its_journal(make_mailroom, database_url):
    if not database_url.startswith("sqlite"):
        return  # the bytes of a PostgreSQL cluster are not this test's to read
    clock = Clock(datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc))
    room = setup(make_mailroom, clock)  # alice takes digests; two games wait for her
    pass_hours(room, clock, 19)  # her digest goes
    room.send(mail(BOB, "password reset alice"))
    room.send(mail(BOB, "password reset bob"))
    handed = Handed()
    asyncio.run(Delivery(room.database, handed, "pbm@localhost", unseal=room.server.delivery.unseal).deliver_due())
    tokens = {found for raw in handed.raws for found in LIVE.findall(raw.replace(b"=\n", b""))}
    kinds = {token.split(b"-")[0] if not token[:1].isdigit() else b"board" for token in tokens}
    assert kinds == {b"board", b"digest", b"reset"}, "board mails, a digest and resets were handed over"
    stored = database_bytes(database_url).lower()
    assert b"SQLite format 3" in database_bytes(database_url)
    found = [token for token in tokens if token in stored or token[-20:] in stored]  # whole, or its MAC
    assert found == [], f"{len(found)} of {len(tokens)} live tokens are readable in the database's bytes"


UNSUBSCRIBE = re.compile(rb"/unsubscribe/([wed]-[0-9a-z-]+-([a-z2-7]{24}))>")
"""A one-click unsubscribe URL that acts, as a watcher's mail handed over carries it."""


def test_no_unsubscribe_url_a_mail_carried_is_in_the_database_file_or_its_journal(make_mailroom, database_url):
    if not database_url.startswith("sqlite"):
        return
    room = make_mailroom(public_url="https://games.example.org", confirm_addresses=False)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), ("carol@example.com", "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail("carol@example.com", "cephalopod subscribe carol carol-pw all"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"))
    handed = Handed()
    asyncio.run(Delivery(room.database, handed, "pbm@localhost", unseal=room.server.delivery.unseal).deliver_due())
    urls = {found for raw in handed.raws for found in UNSUBSCRIBE.findall(raw)}
    assert urls, "carol's copies carry one-click unsubscribe"
    stored = database_bytes(database_url).lower()
    assert [token for token, mac in urls if token in stored or mac in stored] == []
