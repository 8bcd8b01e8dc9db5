"""The poison mails of issue 9: each is followed by an ordinary mail, which must be
processed; the poison itself ends failed or processed (never stuck pending, never
deferred forever), and `/healthz` says ok afterwards.

Each poison meets a fresh server and database, so one that stops the queue
cannot hide what the next one does. A poison that breaks only one backend runs
there; the utf-7 mails run on both.
"""

from __future__ import annotations

import random
import time

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import GENEROUS_LIMITS, Refused, ServeProcess, attempt, wait_for
from tests.faults.hostile import POISONS, Hostile
from tests.faults.players import new_player, post, signup
from tests.support import read

ORDINARY_SECONDS = 30.0
"""How long the ordinary mail after a poison may take: far more than reading any mail may cost."""
DEFERRED_FOR_GOOD_SECONDS = 15.0
"""A poison still answered 4xx after this is taken as refused forever (as L5 found)."""

BACKENDS = {
    "utf-7 body": ("sqlite", "postgresql"),
    "utf-7 encoded word in the Message-ID": ("sqlite", "postgresql"),
    "From address over 320 characters": ("postgresql",),
    "signup address over 320 characters": ("postgresql",),
    "160 KB of nested lists": ("sqlite",),
    "header injection in the Message-ID": ("sqlite",),
    "NUL in the Message-ID": ("postgresql",),
    "NUL in the envelope sender": ("postgresql",),
}


def _backend(url: str) -> str:
    return url.partition(":")[0].partition("+")[0]


class PoisonRun:
    """A fresh server, one poison mail, then one ordinary mail."""

    def __init__(self, database_url: str, workdir, poison: Hostile) -> None:
        self.tables = Tables(database_url)
        self.server = ServeProcess(database_url, workdir, env=GENEROUS_LIMITS)
        self.poison = poison
        self.poison_answer = None
        self.ordinary_refused = ""
        self.ordinary = signup(new_player("p", random.Random(poison.kind)))

    def run(self) -> None:
        self.server.start()
        deadline = time.monotonic() + DEFERRED_FOR_GOOD_SECONDS
        while True:
            self.poison_answer = attempt(self.server.smtp_port, self.poison.envelope_from, self.poison.raw)
            if not 400 <= self.poison_answer.code < 500 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        ordinary = self.ordinary
        try:
            post(self.server.smtp_port, ordinary, give_up_after=ORDINARY_SECONDS)
        except Refused as refusal:
            self.ordinary_refused = str(refusal)
            return
        wait_for(lambda: self.status_of(ordinary.message_id) not in ("pending", None), timeout=ORDINARY_SECONDS)

    def status_of(self, message_id: str) -> str | None:
        rows = self.tables.inbound_by_message_id().get(message_id)
        return rows[0].status if rows else None

    def poison_rows(self):
        return [row for row in self.tables.inbound() if row.message_id != self.ordinary.message_id]

    def close(self) -> None:
        self.server.stop()
        self.tables.close()


@pytest.fixture
def poisoned(request, database_url, tmp_path, figures):
    poison = POISONS[request.param]()
    if _backend(database_url) not in BACKENDS[poison.kind]:
        pytest.skip(f"{poison.kind} is a poison on {' and '.join(BACKENDS[poison.kind])}")
    run = PoisonRun(database_url, tmp_path, poison)
    try:
        run.run()
        yield run
    finally:
        for row in run.poison_rows():
            if row.processed_at is not None:
                figures.time_per_mail((row.processed_at - row.received_at).total_seconds(), poison.kind)
        figures.rss(run.server.memory.peak_rss)
        run.close()


@pytest.mark.parametrize("poisoned", list(POISONS), indirect=True)
def test_the_queue_moves_on_past_a_poison_mail(poisoned, figures):
    assert not poisoned.server.memory.runaway, poisoned.server.memory.runaway
    assert poisoned.server.alive, "the server died"
    answer = poisoned.poison_answer
    assert not 400 <= answer.code < 500, f"the poison is deferred for good: {answer.code} {answer.message}"
    assert not poisoned.ordinary_refused, f"the ordinary mail after it was not accepted: {poisoned.ordinary_refused}"
    assert poisoned.status_of(poisoned.ordinary.message_id) == "processed", (
        f"the ordinary mail after it was not processed within {ORDINARY_SECONDS:.0f} s; "
        f"the poison is {[(row.status, row.note[:120]) for row in poisoned.poison_rows()]}"
    )
    assert [row.status for row in poisoned.poison_rows() if row.status not in ("processed", "failed")] == []
    health = poisoned.server.healthz()
    assert health.status_code == 200, health.text
    figures.poison_mails_survived += 1


@pytest.mark.parametrize("poisoned", ["header injection in the Message-ID"], indirect=True)
def test_an_injected_message_id_writes_no_header_or_part_into_the_reply(poisoned):
    (row,) = poisoned.poison_rows()
    replies = [reply for reply in poisoned.tables.outbox() if reply.inbound_id == row.id]
    assert replies, f"the spoofed victim got no answer: {row.status} {row.note[:200]}"
    for reply in replies:
        message = read(reply.raw)
        header_block = reply.raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
        assert b"Bcc" not in header_block and b"evil.test" not in reply.raw
        assert message.get_content_type() == "text/plain" and not message.is_multipart()
        assert b"<h1>" not in reply.raw
        for name in ("In-Reply-To", "References"):
            for value in message.get_all(name, []):
                assert "\n" not in value and "=?" not in value
