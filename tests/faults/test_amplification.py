"""Volume is bounded: one mail, or one sender, can make the server send only so much.

Every limit is a ``PBM_*`` setting; this server runs with small values (not the
defaults), so the tests also show that the settings are obeyed. Each test
uses senders of its own, so one limit never stands in for another.
"""

from __future__ import annotations

import random
import shutil

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import ServeProcess
from tests.faults.players import delivered_to, letter, new_player, send_and_wait, sign_up_confirmed, signup
from tests.support import read

LIMITS = {
    "PBM_MAX_COMMANDS_PER_MAIL": 7,
    "PBM_MAX_REPLIES_PER_MAIL": 12,
    "PBM_MAX_MAILS_PER_ADDRESS_PER_HOUR": 5,
    "PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR": 4,
    "PBM_MAX_SIGNUPS_PER_SENDER_PER_DAY": 3,
    "PBM_MAX_CHALLENGES_PER_SENDER_PER_HOUR": 2,
    "PBM_MAX_FAILED_PASSWORDS": 3,
    "PBM_MAX_QUOTED_LINES": 10,
}
LARGEST_REPLY = 32 * 1024
"""Bytes one answer may take when it quotes at most a few lines of the original."""


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("amplification")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env={name: str(value) for name, value in LIMITS.items()})
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def test_a_thousand_commands_in_one_mail_get_a_bounded_number_of_answers(server):
    lines = "\n".join(f"cephalopod move 999 nobody{i} guess c3" for i in range(1000))
    (inbound,) = send_and_wait(server, letter("flood@hostile.example", lines, kind="flood"))
    answers = [row for row in server.tables.outbox() if row.inbound_id == inbound]
    assert 1 <= len(answers) <= LIMITS["PBM_MAX_COMMANDS_PER_MAIL"] + 1  # the commands carried out, and one summary
    assert sum(len(row.raw) for row in answers) <= len(answers) * LARGEST_REPLY


def test_an_error_answer_quotes_at_most_the_configured_lines(server):
    lines = "\n".join(["frobnicate"] + [f"line {i} of a long letter" for i in range(200)])
    (inbound,) = send_and_wait(server, letter("verbose@hostile.example", lines, kind="garbage"))
    (answer,) = [row for row in server.tables.outbox() if row.inbound_id == inbound]
    quoted = [line for line in read(answer.raw).get_content().splitlines() if line.startswith(">")]
    assert 1 <= len(quoted) <= LIMITS["PBM_MAX_QUOTED_LINES"]


def test_an_address_named_in_many_signups_is_mailed_at_most_the_hourly_limit(server):
    rng = random.Random("victim")
    victim = "victim@target.example"
    floods = []
    for sender in range(4):
        players = [new_player("v", rng) for _ in range(3)]
        body = "\n".join(f"signup {p.userid} {p.password} {victim}" for p in players)
        floods.append(letter(f"signer{sender}@hostile.example", body, kind="flood"))
    send_and_wait(server, *floods)
    assert 1 <= delivered_to(server, victim) <= LIMITS["PBM_MAX_MAILS_PER_ADDRESS_PER_HOUR"]


def test_signups_from_one_sender_stop_at_the_daily_limit(server):
    rng = random.Random("signups")
    players = [new_player("s", rng) for _ in range(6)]
    body = "\n".join(f"signup {p.userid} {p.password}" for p in players)
    send_and_wait(server, letter("signer@hostile.example", body, kind="flood"))
    made = [userid for userid, _ in server.tables.players() if userid in {p.userid for p in players}]
    assert len(made) == LIMITS["PBM_MAX_SIGNUPS_PER_SENDER_PER_DAY"]


def test_challenges_from_one_sender_stop_at_the_hourly_limit(server):
    rng = random.Random("challenges")
    mallory, alice = new_player("c", rng), new_player("c", rng)
    sign_up_confirmed(server, mallory, alice)
    body = "\n".join([f"cephalopod challenge {mallory.userid} {alice.userid}"] * 6)
    send_and_wait(server, letter(mallory.address, body, kind="flood"))
    games = [game for game in server.tables.state()[2] if game[0] == "cephalopod"]
    assert len(games) == LIMITS["PBM_MAX_CHALLENGES_PER_SENDER_PER_HOUR"]


def test_error_answers_to_one_sender_stop_at_the_hourly_limit(server):
    """An auto-responder that does not say it is one gets a few answers, not a loop."""
    mails = [letter("responder@hostile.example", f"I am away until Monday ({i}).", kind="loop") for i in range(10)]
    send_and_wait(server, *mails)
    assert 1 <= delivered_to(server, "responder@hostile.example") <= LIMITS["PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR"]


def test_the_right_password_waits_after_the_configured_wrong_guesses(server):
    rng = random.Random("guesses")
    player = new_player("g", rng)
    send_and_wait(server, signup(player))
    (before,) = [digest for userid, digest in server.tables.players() if userid == player.userid]
    guesses = [
        letter(player.address, f"change password {player.userid} guess-{i} new-password-{i}", kind="guess")
        for i in range(LIMITS["PBM_MAX_FAILED_PASSWORDS"])
    ]
    send_and_wait(server, *guesses)
    right = f"change password {player.userid} {player.password} a-new-password"
    send_and_wait(server, letter(player.address, right, kind="guess"))
    (after,) = [digest for userid, digest in server.tables.players() if userid == player.userid]
    assert after == before
