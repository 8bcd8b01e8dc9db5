"""A forged From plays no reply in a club that asks for DMARC pass (`PBM_REPLY_REQUIRES_DMARC_PASS`).

A reply to a board mail plays without a password: its reply address and its From say who wrote
it. The third audit (issue 42) played bob's move by a reply whose From was forged, which our
MTA marked ``dmarc=none`` (bob's domain publishes no DMARC policy): a ``fail`` alone is
refused. A club may turn on `PBM_REPLY_REQUIRES_DMARC_PASS`: then nothing but ``pass`` plays a
reply, the answer says to send the command with the password, and that command plays.
"""

from __future__ import annotations

import random
import shutil

import pytest

from tests.faults.audit import Tables, as_delivered
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess
from tests.faults.players import Letter, letter, new_player, send_and_wait, signup
from tests.support import body_of, read, reply_to_board

MTA = "mx.localhost"


def through_our_mta(dmarc: str) -> dict[str, str]:
    return {"Authentication-Results": f"{MTA}; spf=pass smtp.mailfrom=forger.example; dmarc={dmarc}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("forged-reply")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    settings = {**GENEROUS_LIMITS, "PBM_TRUSTED_AUTHSERV_ID": MTA, "PBM_REPLY_REQUIRES_DMARC_PASS": "on"}
    server = ServeProcess(url, workdir, env=settings)
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def test_a_reply_with_a_forged_from_and_no_dmarc_policy_plays_nothing(server, figures):
    rng = random.Random("forged reply")
    alice, bob = new_player("a", rng), new_player("b", rng)
    send_and_wait(server, signup(alice), signup(bob))
    send_and_wait(server, letter(alice.address, f"cephalopod challenge {alice.userid} {bob.userid}", kind="c"))
    moved = set(
        send_and_wait(
            server, letter(alice.address, f"cephalopod move 101 {alice.userid} {alice.password} c3", kind="m")
        )
    )
    mails = [read(as_delivered(server.outbox, row)) for row in server.tables.outbox() if row.inbound_id in moved]
    board_mail = next(m for m in mails if m["To"].addresses[0].addr_spec == bob.address)
    raw = through_our_mta("none")["Authentication-Results"].join(["Authentication-Results: ", "\n"]).encode()
    raw += reply_to_board(board_mail, bob.address, "b3")
    reply_to = board_mail["Reply-To"].addresses[0].addr_spec
    forged = Letter(bob.address, raw, str(read(raw)["Message-ID"]).strip(), "forged", to=reply_to)
    (forged_id,) = send_and_wait(server, forged)
    note = next(row.note for row in server.tables.inbound() if row.id == forged_id)
    figures.notes.append(f"forged reply: a reply with a forged From and dmarc=none, the option on: {note}")
    assert note.startswith("0 command(s) carried out, 1 refused")
    (answer,) = [body_of(read(row.raw)) for row in server.tables.outbox() if row.inbound_id == forged_id]
    assert "password instead" in " ".join(answer.split())
    own = letter(bob.address, f"cephalopod move 101 {bob.userid} {bob.password} b3#2", kind="own",
                 headers=through_our_mta("none"))  # fmt: skip
    (own_id,) = send_and_wait(server, own)
    assert next(row.note for row in server.tables.inbound() if row.id == own_id).startswith("1 command(s) carried out")
