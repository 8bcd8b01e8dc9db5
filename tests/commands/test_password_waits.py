"""Wrong passwords make password commands wait, counted per player and per sender.

Userids are public: were every wrong password counted against the player, any
stranger could lock the owner out. So each of a player's registered addresses
has a count of its own (compared case-insensitively), and every other address
shares one: a stranger's guesses never make the player's own addresses wait,
and a guesser gains nothing by writing from a new address each time.
`Context.authenticate` decides, the store counts (as the mail processor has it
do after each command), on a real database.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from pbm.commands.context import Context
from pbm.commands.effects import PasswordCheck, Refused, Sender
from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.store import players
from pbm.store.database import Database

ALLOWED = 3
ALICE, ALICE_AT_WORK = "alice@example.org", "alice@work.example"
WAITING = "Too many wrong passwords for alice"


class Club:
    """Alice, registered at two addresses, and password checks as mail would make them at `now`."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.passwords = fast_passwords()
        self.limits = replace(Settings().limits, failed_passwords=ALLOWED)
        self.now = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
        with database.transaction() as session:
            players.sign_up(
                session, "alice", self.passwords.hash("alice-pw"), [ALICE, ALICE_AT_WORK], sender=ALICE, now=self.now
            )

    def try_password(self, sender: str | None, password: str, *, forged_from: str | None = None) -> str:
        """ "right", "wrong", or why the password was not even checked. `forged_from`: the host of
        a mail our MTA could not vouch for (a trusted DMARC result other than pass)."""
        with self.database.transaction() as session:
            checks: list[PasswordCheck] = []
            registered = players.with_address(session, sender) if sender else []
            context = Context(
                session,
                self.passwords,
                self.limits,
                Sender(sender, registered, forged_from, unproven=forged_from is not None),
                now=lambda: self.now,
                on_password_check=checks.append,
            )
            try:
                context.authenticate("alice", password)
                outcome = "right"
            except Refused as refusal:
                outcome = "wrong" if str(refusal) == "Wrong password for alice" else str(refusal)
            for check in checks:
                players.note_password_check(
                    session, check.player_id, check.sender, right=check.right, now=self.now, allowed=ALLOWED
                )
        return outcome

    def guess(self, sender: str | None, times: int, *, forged_from: str | None = None) -> list[str]:
        return [self.try_password(sender, f"guess-{i}", forged_from=forged_from) for i in range(times)]


@pytest.fixture
def club(database) -> Club:
    return Club(database)


def test_a_strangers_wrong_passwords_never_make_the_players_own_address_wait(club):
    club.guess("mallory@evil.example", ALLOWED + 5)
    assert club.try_password(ALICE, "alice-pw") == "right"
    assert club.try_password(ALICE_AT_WORK, "alice-pw") == "right"


def test_wrong_passwords_from_every_unregistered_address_count_together(club):
    tries = [club.try_password(f"guesser{i}@evil{i}.example", f"guess-{i}") for i in range(ALLOWED + 1)]
    assert tries[:ALLOWED] == ["wrong"] * ALLOWED
    assert tries[ALLOWED].startswith(f"{WAITING} from addresses it has not registered")
    assert club.try_password("someone-new@elsewhere.example", "alice-pw").startswith(WAITING)
    assert club.try_password(None, "alice-pw").startswith(WAITING)


def test_wrong_passwords_from_one_registered_address_make_only_that_address_wait(club):
    assert club.guess(ALICE, ALLOWED) == ["wrong"] * ALLOWED
    assert club.try_password(ALICE, "alice-pw").startswith(f"{WAITING} from this address")
    assert club.try_password(ALICE_AT_WORK, "alice-pw") == "right"
    assert club.try_password("mallory@evil.example", "guess") == "wrong"


def test_a_registered_address_counts_as_itself_whatever_its_letter_case(club):
    club.guess("Alice@Example.ORG", ALLOWED)
    assert club.try_password(ALICE, "alice-pw").startswith(f"{WAITING} from this address")
    assert club.try_password("mallory@evil.example", "guess") == "wrong"


def test_the_wait_doubles_with_each_wrong_password_after_it_ends(club):
    club.guess("mallory@evil.example", ALLOWED)
    assert "until 2026-11-22 12:01 UTC" in club.try_password("mallory@evil.example", "guess")
    club.now += timedelta(minutes=1, seconds=1)
    assert club.try_password("mallory@evil.example", "guess") == "wrong"
    assert "until 2026-11-22 12:03 UTC" in club.try_password("mallory@evil.example", "guess")


def test_a_right_password_clears_only_its_own_senders_count(club):
    club.guess("mallory@evil.example", ALLOWED - 1)
    club.guess(ALICE, ALLOWED - 1)
    assert club.try_password(ALICE_AT_WORK, "alice-pw") == "right"
    assert club.try_password(ALICE, "guess") == "wrong"
    assert club.try_password(ALICE, "alice-pw").startswith(WAITING)
    assert club.try_password("mallory@evil.example", "guess") == "wrong"
    assert club.try_password("mallory@evil.example", "alice-pw").startswith(WAITING)


def test_a_password_reset_ends_every_wait(club, database):
    club.guess("mallory@evil.example", ALLOWED)
    club.guess(ALICE, ALLOWED)
    with database.transaction() as session:
        alice = players.find(session, "alice")
        assert alice is not None
        players.clear_password_waits(session, alice)
    assert club.try_password(ALICE, "alice-pw") == "right"
    assert club.try_password("mallory@evil.example", "alice-pw") == "right"


def test_the_reading_step_checks_no_password_of_a_sender_that_waits(club, database):
    club.guess("mallory@evil.example", ALLOWED)
    with database.reading() as session:
        assert players.checkable_password_hash(session, "alice", "someone@else.example", now=club.now) is None
        assert players.checkable_password_hash(session, "alice", None, now=club.now) is None
        assert players.checkable_password_hash(session, "alice", "ALICE@example.org", now=club.now) is not None


def test_guesses_in_alices_name_that_her_mta_could_not_vouch_for_count_against_their_host_not_her(club):
    assert club.guess(ALICE, ALLOWED + 4, forged_from="203.0.113.9")[:ALLOWED] == ["wrong"] * ALLOWED
    assert club.try_password(ALICE, "alice-pw", forged_from="203.0.113.9").startswith(WAITING)
    assert club.try_password(ALICE, "alice-pw") == "right"
    assert club.try_password(ALICE, "alice-pw", forged_from="198.51.100.7") == "right"
    assert club.try_password("mallory@evil.example", "alice-pw") == "right"
