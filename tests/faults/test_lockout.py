"""Guessing passwords over real SMTP: a stranger locks nobody out, and guessing stays slow.

Userids are public, and wrong passwords make a player's password commands
wait. The second audit (issue 28) locked 40 players out of their own accounts
with 121 mails in 11 s. Here a stranger sends every player of a club more
wrong passwords than `PBM_MAX_FAILED_PASSWORDS` allows, then each player sends
a password command from their own address: none may be refused. And a guesser
who writes from a new address for every guess gets no more guesses checked
than one who keeps the same address.
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
