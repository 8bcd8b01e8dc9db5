"""The database goes away under a running `pbm serve`: stopped cleanly, crashed, or hung.

Always a private PostgreSQL cluster of the test's own, on its own port
(`tests.pgcluster`) — never the machine's shared server. While the database is
away, SMTP answers 451 and `/healthz` 503 within seconds, so senders' MTAs and
monitors learn of it instead of hanging; once it is back, every mail that got
a 250 is processed once, and new mail is taken at once, not after a long
back-off.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import pytest
from sqlalchemy import create_engine, text

from tests.faults.audit import Tables
from tests.faults.harness import Attempt, ServeProcess, attempt, wait_for
from tests.faults.players import Letter, new_player, post, signup

pgcluster = pytest.importorskip(
    "tests.pgcluster", reason="tests/pgcluster.py (the private cluster helper) is not in this tree yet"
)

pytestmark = pytest.mark.postgresql

WITHIN_SECONDS = 15.0
"""An answer this late while the database is away is a hang, not an answer."""
PROMPTLY_SECONDS = 5.0
"""Mail arriving once the database is back is processed within this: the worker is woken by it,
instead of sleeping out a back-off that grew while the database was away (16 s and more today)."""
BURST = 8
"""Mails accepted just before the database goes away."""
OUTAGES = {
    "stopped fast": (lambda cluster: cluster.stop("fast"), lambda cluster: cluster.start()),
    "stopped immediate": (lambda cluster: cluster.stop("immediate"), lambda cluster: cluster.start()),
    "hung (SIGSTOP)": (lambda cluster: cluster.pause(), lambda cluster: cluster.resume()),
}


@dataclass
class Outage:
    server: ServeProcess
    tables: Tables
    smtp_while_down: tuple[Attempt, float] | None = None
    healthz_while_down: tuple[int, float] | None = None
    accepted: list[Letter] = field(default_factory=list)
    resumed_seconds: float | None = None
    """From the 250 of the first mail after the outage to its processing."""


@pytest.fixture(scope="module")
def cluster():
    reason = pgcluster.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    with pgcluster.PrivateCluster() as started:
        yield started


def durable_commits(cluster, name: str) -> None:
    """A commit on this database survives a crash of PostgreSQL (the cluster is tuned for speed,
    and an asynchronous commit is lost by an immediate stop: a 250 must not be)."""
    admin = create_engine(cluster.url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = on'))
    admin.dispose()


@pytest.fixture(scope="module", params=list(OUTAGES))
def outage(request, cluster, tmp_path_factory, scale):
    take_down, bring_back = OUTAGES[request.param]
    # Long enough for a worker's back-off to grow; the bounded form holds only one outage that long.
    held = scale.outage_seconds if scale.name == "full" or request.param == "stopped fast" else 0.0
    rng = random.Random(request.param)
    name = "pbm_" + "".join(c for c in request.param if c.isalnum())
    url = cluster.create_database(name)
    durable_commits(cluster, name)
    server = ServeProcess(url, tmp_path_factory.mktemp("outage"))
    assert server.cli("db", "upgrade").returncode == 0
    run = Outage(server, Tables(url))
    server.start()
    try:
        # The worker is busy with these when the database goes: it meets the outage.
        for _ in range(BURST):
            mail = signup(new_player("o", rng))
            post(server.smtp_port, mail)
            run.accepted.append(mail)
        run.tables.engine.dispose()  # no connection of ours may hold the database up

        take_down(cluster)
        down_since = time.monotonic()
        try:
            during = signup(new_player("o", rng))
            started = time.monotonic()
            answer = attempt(server.smtp_port, during.sender, during.raw, timeout=60)
            run.smtp_while_down = (answer, time.monotonic() - started)
            started = time.monotonic()
            try:
                status = server.healthz(timeout=60).status_code
            except Exception:  # a timeout: no answer at all
                status = 0
            run.healthz_while_down = (status, time.monotonic() - started)
            time.sleep(max(0.0, down_since + held - time.monotonic()))
        finally:
            bring_back(cluster)

        post(server.smtp_port, during)  # the sender's MTA tries again, and so wakes the worker
        run.accepted.append(during)
        started = time.monotonic()

        def processed() -> bool:
            rows = run.tables.inbound_by_message_id().get(during.message_id, [])
            return any(row.status == "processed" for row in rows)

        if wait_for(processed, 120, interval=0.2):
            run.resumed_seconds = time.monotonic() - started
        wait_for(lambda: not run.tables.pending(), 60)
        yield run
    finally:
        if cluster.paused:
            cluster.resume()
        server.stop()
        run.tables.close()


def test_smtp_answers_451_within_seconds_while_the_database_is_away(outage):
    answer, seconds = outage.smtp_while_down
    assert seconds <= WITHIN_SECONDS, f"{seconds:.1f} s, then {answer.code} {answer.message}"
    assert 400 <= answer.code < 500, f"{answer.code} {answer.message}"


def test_healthz_answers_503_within_seconds_while_the_database_is_away(outage):
    status, seconds = outage.healthz_while_down
    assert seconds <= WITHIN_SECONDS, f"{seconds:.1f} s, then {status or 'no answer'}"
    assert status == 503


def test_every_accepted_mail_is_processed_once_after_the_database_is_back(outage):
    rows = outage.tables.inbound_by_message_id()
    processed = {
        mail.kind + " " + mail.message_id: [
            row.status for row in rows.get(mail.message_id, []) if row.status != "duplicate"
        ]
        for mail in outage.accepted
    }
    assert {mid: statuses for mid, statuses in processed.items() if statuses != ["processed"]} == {}


def test_mail_arriving_after_the_database_is_back_is_processed_promptly(outage):
    seconds = outage.resumed_seconds
    assert seconds is not None, "it was not processed at all"
    assert seconds <= PROMPTLY_SECONDS
