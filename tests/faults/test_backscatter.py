"""Backscatter: mail with forged Froms must not make the club's domain reflect a spammer's words.

The third audit (issue 42) sent 150 mails, each with a forged, distinct From and a spammer's
text, and got 150 error answers, each quoting that text to the forged address from the club's
domain. Here the same attack runs on a real `pbm serve` with its default limits, through our
own MTA (a ``Received`` header from the attacker's host, and the MTA's
``Authentication-Results``): forged Froms without DMARC (``none``), forged Froms that fail it,
and three signups naming one victim.

What a victim may get: an answer that quotes nothing of the spam, within the limits on answers
to addresses nobody confirmed (per sending host, and for the whole server); nothing at all when
DMARC failed; and one request to confirm the address a day, whoever names it. The figures
(answers, and bytes of the spammer's text they quote) go to the fault suite's notes.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import ServeProcess
from tests.faults.players import Letter, letter, send_and_wait
from tests.support import body_of, read

MTA = "mx.localhost"
FORGED = 150
"""Forged mails without a DMARC policy, as the audit sent them."""
FAILING = 20
"""Forged mails that fail DMARC."""
SPAM = [f"CHEAP WATCHES AT watches.example, offer {n}: call 555-01{n:02d} now" for n in range(5)]
PER_HOST = 10
"""`PBM_MAX_UNCONFIRMED_ANSWERS_PER_HOST_PER_HOUR`, its default."""


def through_our_mta(host: int, dmarc: str) -> dict[str, str]:
    """The headers our MTA writes on top of a mail from 203.0.113.`host`."""
    return {
        "Authentication-Results": f"{MTA}; spf=pass smtp.mailfrom=spam{host}.example; dmarc={dmarc} "
        "header.from=victims.example",
        "Received": f"from spam{host}.example (spam{host}.example [203.0.113.{host}]) by {MTA} (Postfix) "
        "with ESMTP id 4F1A2B3C4D; Sat, 28 Nov 2026 10:00:00 +0000",
    }


def forged(kind: str, n: int, dmarc: str) -> Letter:
    return letter(f"{kind}{n}@victims.example", "\n".join(SPAM), kind=kind, subject=SPAM[0],
                  headers=through_our_mta(7, dmarc))  # fmt: skip


@dataclass
class Reflected:
    """What the server sent the victims of one attack: how many mails, and bytes of the spam they quote."""

    answers: int = 0
    quoted_bytes: int = 0
    bodies: list[str] = field(default_factory=list)


def reflected(server: ServeProcess, inbound_ids: list[int]) -> Reflected:
    wanted = set(inbound_ids)
    found = Reflected()
    for row in server.tables.outbox():
        if row.inbound_id in wanted and row.recipient.endswith("@victims.example") and row.status != "suppressed":
            message = read(row.raw)
            text = f"{message['Subject']}\n{body_of(message)}"
            found.answers += 1
            found.quoted_bytes += sum(text.count(line) * len(line) for line in SPAM)
            found.bodies.append(text)
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("backscatter")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env={"PBM_TRUSTED_AUTHSERV_ID": MTA})
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def test_forged_froms_get_answers_that_quote_nothing_within_the_limit_of_their_host(server, figures):
    ids = send_and_wait(server, *(forged("none", n, "none") for n in range(FORGED)))
    found = reflected(server, ids)
    figures.notes.append(
        f"backscatter: {FORGED} forged distinct Froms (dmarc=none, one host) got {found.answers} answers "
        f"quoting {found.quoted_bytes} bytes of the spam"
    )
    assert found.quoted_bytes == 0
    assert found.answers == PER_HOST


def test_forged_froms_that_fail_dmarc_get_no_answer_at_all(server, figures):
    ids = send_and_wait(server, *(forged("fail", n, "fail") for n in range(FAILING)))
    found = reflected(server, ids)
    figures.notes.append(
        f"backscatter: {FAILING} forged Froms failing DMARC got {found.answers} answers "
        f"quoting {found.quoted_bytes} bytes of the spam"
    )
    assert (found.answers, found.quoted_bytes) == (0, 0)


def test_an_address_three_signups_name_gets_one_request_to_confirm_it(server, figures):
    victim = "named@victims.example"
    signups = [
        letter(f"signer{n}@elsewhere.example", f"signup named{n} named{n}-pw {victim}", kind="signup",
               headers=through_our_mta(20 + n, "pass"))
        for n in range(3)
    ]  # fmt: skip
    ids = send_and_wait(server, *signups)
    requests = [row for row in server.tables.outbox() if row.inbound_id in set(ids) and row.recipient == victim]
    figures.notes.append(f"backscatter: three signups naming one address sent it {len(requests)} welcome mail(s)")
    assert len(requests) == 1
