"""After a database outage, processing resumes as soon as mail arrives again.

A stored mail proves the database is back, so the worker must not sit out a
back-off meant for a database that does not answer. Also: a worker that
died while reading mail does not make the next one wait out its claim.
"""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta

from sqlalchemy import select

import pbm.serving.server
from pbm.store.errors import DatabaseUnavailable
from pbm.store.inbox import save_inbound
from pbm.store.models import InboundMessage, utcnow
from tests.support import claim_on_this_host, mail

ALICE = "alice@example.org"


def test_processing_resumes_when_mail_arrives_not_after_its_back_off(server, sink, monkeypatch):
    # Waits after an outage longer than the test may take: only a new mail can wake the worker in time.
    monkeypatch.setattr(pbm.serving.server, "FIRST_OUTAGE_WAIT", 120.0)
    monkeypatch.setattr(pbm.serving.server, "LONGEST_OUTAGE_WAIT", 120.0)
    processor = server.server.processor
    real = processor.process_pending
    outage = {"on": True, "seen": 0}

    def unavailable_while_on(**options: bool) -> int:
        if outage["on"]:
            outage["seen"] += 1
            raise DatabaseUnavailable("OperationalError")
        return real(**options)

    monkeypatch.setattr(processor, "process_pending", unavailable_while_on)
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)  # stored; processing meets the "outage"
    while not outage["seen"]:
        time.sleep(0.05)
    outage["on"] = False
    server.send(mail(ALICE, "help"), ALICE)
    answers = sink.wait(2, timeout=30.0)
    assert [m["Subject"] for m in answers] == ["Welcome to the PBeM Server, alice", "Help for the PBeM Server"]


def dead_pid() -> int:
    probe = subprocess.Popen(["true"])
    probe.wait()
    return probe.pid


def test_a_reading_claim_of_a_worker_that_died_is_taken_over_at_once(make_mailroom):
    room = make_mailroom()
    stored = save_inbound(room.database, mail(ALICE, "help"), envelope_from=ALICE, envelope_to=["pbm@localhost"])
    with room.database.transaction() as session:
        row = session.get(InboundMessage, stored.id)
        row.read_claim = claim_on_this_host(dead_pid())
        row.read_claimed_until = utcnow() + timedelta(hours=1)
    room.server.processor.process_pending()
    with room.database.reading() as session:
        assert session.scalar(select(InboundMessage.status)) == "processed"


def test_a_claim_left_by_a_worker_that_died_later_is_taken_over_at_the_next_idle_poll(make_mailroom):
    """Mail applied as it comes does not look for dead workers' claims (two queries a mail to find
    none); the server's idle poll does, as the first call of a worker does."""
    room = make_mailroom()
    room.server.processor.process_pending()  # this worker's first look, long before the other died
    stored = save_inbound(room.database, mail(ALICE, "help"), envelope_from=ALICE, envelope_to=["pbm@localhost"])
    with room.database.transaction() as session:
        row = session.get(InboundMessage, stored.id)
        row.read_claim = claim_on_this_host(dead_pid())
        row.read_claimed_until = utcnow() + timedelta(hours=1)
    room.server.processor.process_pending()
    with room.database.reading() as session:
        assert session.scalar(select(InboundMessage.status)) == "pending", "woken by mail: its lease holds it"
    room.server.processor.process_pending(look_for_dead_claims=True)
    with room.database.reading() as session:
        assert session.scalar(select(InboundMessage.status)) == "processed"


def test_a_reading_claim_of_a_live_worker_is_left_alone(make_mailroom):
    room = make_mailroom()
    stored = save_inbound(room.database, mail(ALICE, "help"), envelope_from=ALICE, envelope_to=["pbm@localhost"])
    live = subprocess.Popen(["sleep", "30"])
    try:
        with room.database.transaction() as session:
            row = session.get(InboundMessage, stored.id)
            row.read_claim = claim_on_this_host(live.pid)
            row.read_claimed_until = utcnow() + timedelta(hours=1)
        room.server.processor.process_pending()
        with room.database.reading() as session:
            assert session.scalar(select(InboundMessage.status)) == "pending"
    finally:
        live.kill()
        live.wait()


def test_a_reading_batch_an_outage_cut_short_is_read_again_at_once_by_its_worker(make_mailroom):
    room = make_mailroom()
    stored = save_inbound(room.database, mail(ALICE, "help"), envelope_from=ALICE, envelope_to=["pbm@localhost"])
    with room.database.transaction() as session:
        row = session.get(InboundMessage, stored.id)
        row.read_claim = room.server.processor.worker.name  # claimed, then the database went away
        row.read_claimed_until = utcnow() + timedelta(hours=1)
    room.server.processor.process_pending()
    with room.database.reading() as session:
        assert session.scalar(select(InboundMessage.status)) == "processed"
