"""A password reset's reply address, as the mail processor takes it: from the player's own
addresses only, every one of them told which address used it, and no token kept once the
reset mail has gone."""

from __future__ import annotations

import asyncio
import re

import pytest
from sqlalchemy import select

from pbm.mail.delivery import Delivery
from pbm.store.models import OutboxMessage, OutboxStatus
from tests.support import body_of, mail

ALICE, ALICE_AT_WORK, MALLORY = "alice@example.org", "alice@work.example", "mallory@evil.example"
RESET_TOKEN = re.compile(rb"reset-[0-9a-f]{32}-[a-z2-7]{20}")
"""A reset's token that works: its handle and the MAC delivery writes into it."""


class Delivered:
    """What a transport was handed."""

    def __init__(self) -> None:
        self.raws: list[bytes] = []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.raws.append(raw)

    async def rest(self) -> None:
        pass


@pytest.fixture
def room(make_mailroom):
    room = make_mailroom()
    room.send(mail(ALICE, f"signup alice alice-pw {ALICE} {ALICE_AT_WORK}"))
    room.replies()
    return room


def reset_address(room) -> str:
    """Ask for alice's reset, as a stranger may; the reply address her mails carry."""
    room.send(mail(MALLORY, "password reset alice"))
    resets = [m for m in room.replies() if m["Reply-To"]]
    return resets[0]["Reply-To"].addresses[0].addr_spec


def reply(room, sender: str, address: str, first_line: str) -> list:
    room.send(mail(sender, f"{first_line}\n\n> Password reset for alice", to=address), to=address)
    return room.replies()


def password_works(room, password: str) -> bool:
    room.send(mail(ALICE, f"cephalopod limit alice {password}"))
    return all(m["Subject"] == "Cephalopod challenges to alice" for m in room.replies())


def test_a_reply_to_a_reset_from_an_address_the_player_never_registered_sets_nothing(room):
    address = reset_address(room)
    (refusal,) = reply(room, MALLORY, address, "stolen-pw-1")
    assert "counts only from an address the player registered" in body_of(refusal)
    assert "stolen-pw-1" not in body_of(refusal)
    assert password_works(room, "alice-pw")


def test_the_players_own_reply_still_works_after_a_stranger_tried_the_same_address(room):
    address = reset_address(room)
    reply(room, MALLORY, address, "stolen-pw-1")
    reply(room, ALICE_AT_WORK, address, "n3w-secret")
    assert password_works(room, "n3w-secret")


def test_every_address_of_the_player_hears_which_address_used_the_reset_and_what_to_do(room):
    address = reset_address(room)
    told = reply(room, "Alice@Work.Example", address, "n3w-secret")
    assert sorted(m["To"].addresses[0].addr_spec for m in told) == sorted([ALICE, ALICE_AT_WORK])
    for message in told:
        body = body_of(message)
        assert "by a reply to\na password reset mail sent from alice@work.example" in body
        assert "password reset alice" in body
        assert "n3w-secret" not in body


def test_a_reset_mails_token_is_in_the_outbox_neither_before_nor_after_it_is_sent(room):
    """The outbox keeps the reset's token sealed (its handle, no MAC); delivery makes it whole as it
    hands the mail over, and what the outbox keeps once it is sent is still sealed."""
    reset_address(room)
    with room.database.reading() as session:
        assert not any(RESET_TOKEN.search(raw) for raw in session.scalars(select(OutboxMessage.raw)))
    transport = Delivered()
    asyncio.run(Delivery(room.database, transport, "pbm@localhost", unseal=room.server.delivery.unseal).deliver_due())
    assert sum(bool(RESET_TOKEN.search(raw)) for raw in transport.raws) == 2  # alice's two addresses
    with room.database.reading() as session:
        rows = session.execute(select(OutboxMessage.status, OutboxMessage.raw, OutboxMessage.kind)).all()
    assert {status for status, _, _ in rows} == {OutboxStatus.SENT}
    assert [kind for _, raw, kind in rows if RESET_TOKEN.search(raw)] == []
    kept = [raw for _, raw, kind in rows if kind == "password_reset"]
    assert len(kept) == 2 and all(re.search(rb"Reply-To: PBeM Server <pbm\+reset-[0-9a-f]{32}-0{20}@", r) for r in kept)


def test_a_reset_mail_is_not_held_back_by_the_hourly_limit(make_mailroom):
    """Gathered with other held mail it would lose its reply address; its own limit bounds it."""
    room = make_mailroom(max_mails_per_address_per_hour=1, confirm_addresses=False)
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(MALLORY, "password reset alice"))  # alice had her one mail of the hour
    with room.database.reading() as session:
        statuses = session.scalars(select(OutboxMessage.status).where(OutboxMessage.kind == "password_reset")).all()
    assert statuses == [OutboxStatus.PENDING]
