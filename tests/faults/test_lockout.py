"""Guessing passwords over real SMTP: a stranger locks nobody out, and guessing stays slow.

Userids are public, and wrong passwords make a player's password commands
wait. The second audit (issue 28) locked 40 players out of their own accounts
with 121 mails in 11 s. Here a stranger sends every player of a club more
wrong passwords than `PBM_MAX_FAILED_PASSWORDS` allows, then each player sends
a password command from their own address: none may be refused. And a guesser
who writes from a new address for every guess gets no more guesses checked
than one who keeps the same address. Nor does one who forges a player's own address as the From
of mail our MTA could not vouch for (issue 42: seven such guesses locked bob out).
"""

from __future__ import annotations

import random
import shutil
import time

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess
from tests.faults.players import Player, letter, new_player, post_and_wait, signup

ALLOWED = 5
"""`PBM_MAX_FAILED_PASSWORDS`, its default."""
WAITING = b"Too many wrong passwords for"
WRONG = b"Wrong password for"


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("lockout")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env={**GENEROUS_LIMITS, "PBM_MAX_FAILED_PASSWORDS": str(ALLOWED)})
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


MTA = "mx.localhost"
"""The authserv-id our own MTA writes (`PBM_TRUSTED_AUTHSERV_ID`)."""


@pytest.fixture(scope="module")
def trusting_server(tmp_path_factory, sqlite_template):
    """A server that reads the DMARC result our own MTA writes."""
    workdir = tmp_path_factory.mktemp("lockout-dmarc")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    settings = {**GENEROUS_LIMITS, "PBM_MAX_FAILED_PASSWORDS": str(ALLOWED), "PBM_TRUSTED_AUTHSERV_ID": MTA}
    server = ServeProcess(url, workdir, env=settings)
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def through_our_mta(dmarc: str, host: int) -> dict[str, str]:
    """The headers our MTA writes on top of a mail from 203.0.113.`host`: where it came from, and its DMARC result."""
    return {
        "Authentication-Results": f"{MTA}; spf=pass smtp.mailfrom=hostile.example; dmarc={dmarc} "
        "header.from=players.example",
        "Received": f"from mx{host}.hostile.example (mx{host}.hostile.example [203.0.113.{host}]) by {MTA} (Postfix) "
        "with ESMTP id 4F1A2B3C4D; Sat, 28 Nov 2026 10:00:00 +0000",
    }


def answers(server: ServeProcess, inbound_ids: list[int]) -> list[bytes]:
    """The mails the server queued in answer to these received mails."""
    wanted = set(inbound_ids)
    return [row.raw for row in server.tables.outbox() if row.inbound_id in wanted]


def own_command(player: Player) -> str:
    """A password command that changes nothing but proves the password works."""
    return f"cephalopod limit {player.userid} {player.password}"


def test_a_strangers_wrong_passwords_lock_no_player_out_of_their_own_address(server, scale, figures):
    rng = random.Random("lockout")
    club = [new_player("l", rng) for _ in range(scale.lockout_players)]
    post_and_wait(server.smtp_port, server.tables, *map(signup, club))

    guesses = [
        letter(
            "mallory@hostile.example",
            "\n".join(f"cephalopod limit {player.userid} guess-{i}" for i in range(ALLOWED + 1)),
            kind="guess",
        )
        for player in club
    ]
    started = time.monotonic()
    post_and_wait(server.smtp_port, server.tables, *guesses)
    seconds = time.monotonic() - started

    own = [letter(player.address, own_command(player), kind="own") for player in club]
    refused = [raw for raw in answers(server, post_and_wait(server.smtp_port, server.tables, *own)) if WAITING in raw]
    figures.notes.append(
        f"lockout: {len(guesses)} stranger mails ({ALLOWED + 1} wrong passwords each) in {seconds:.1f} s "
        f"locked {len(refused)} of {len(club)} players out of their own addresses"
    )
    assert refused == []


def test_a_guesser_who_writes_from_a_new_address_each_time_is_as_slow_as_one_who_does_not(server, figures):
    rng = random.Random("rotating")
    victim = new_player("r", rng)
    post_and_wait(server.smtp_port, server.tables, signup(victim))

    guesses = [
        letter(f"guesser{i}@hostile{i}.example", f"cephalopod limit {victim.userid} guess-{i}", kind="guess")
        for i in range(3 * ALLOWED)
    ]
    replies = answers(server, post_and_wait(server.smtp_port, server.tables, *guesses))
    checked = sum(WRONG in raw for raw in replies)
    figures.notes.append(
        f"lockout: a guesser writing each of {len(guesses)} guesses from a new address had {checked} checked "
        f"(one address: {ALLOWED})"
    )
    assert checked == ALLOWED
    own = answers(
        server, post_and_wait(server.smtp_port, server.tables, letter(victim.address, own_command(victim), kind="own"))
    )
    assert [raw for raw in own if WAITING in raw] == []


@pytest.mark.parametrize("dmarc", ["fail", "none"])
def test_guesses_forging_a_players_own_address_as_from_lock_the_forger_out_not_the_player(
    trusting_server, dmarc, figures
):
    rng = random.Random(f"forged {dmarc}")
    bob = new_player("f", rng)
    post_and_wait(trusting_server.smtp_port, trusting_server.tables, signup(bob))
    guesses = [
        letter(
            bob.address, f"cephalopod limit {bob.userid} guess-{i}", kind="guess", headers=through_our_mta(dmarc, 66)
        )
        for i in range(ALLOWED + 2)
    ]
    post_and_wait(trusting_server.smtp_port, trusting_server.tables, *guesses)
    forger = letter(bob.address, own_command(bob), kind="own", headers=through_our_mta(dmarc, 66))
    own = letter(bob.address, own_command(bob), kind="own", headers=through_our_mta("pass", 25))
    ids = post_and_wait(trusting_server.smtp_port, trusting_server.tables, forger, own)
    forger_waits = trusting_server.tables.inbound_by_message_id()[forger.message_id][0].note
    bob_waits = [raw for raw in answers(trusting_server, ids[1:]) if WAITING in raw]
    figures.notes.append(
        f"lockout: {len(guesses)} guesses forging bob's From (dmarc={dmarc}) from one host locked bob's own "
        f"address: {'yes' if bob_waits else 'no'}"
    )
    assert bob_waits == []
    assert "0 command(s) carried out, 1 refused" in forger_waits
