"""A hung database: a PostgreSQL server stopped with SIGSTOP answers nothing, and
no timeout of its own can fire. The door answers 451 and /healthz 503 within the
database timeout all the same, and when the server carries on nothing is lost or
applied twice.

Runs against a private cluster the test starts (`tests.pgcluster`), never the
machine's shared server.
"""

from __future__ import annotations

import smtplib
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from pbm.store.database import Database
from pbm.store.models import InboundMessage, OutboxMessage
from tests.e2e.conftest import Running, loopback_settings, start_server
from tests.pgcluster import PrivateCluster
from tests.support import mail

ALICE = "alice@example.org"
TIMEOUT = 2.0
CLIENT_PATIENCE = 20.0
"""How long the test's clients wait: far past the timeout, so only a hang fails them."""


@pytest.fixture
def database_url(pg_cluster: PrivateCluster) -> str:
    url = pg_cluster.create_database("pbm")
    database = Database(url)
    database.upgrade()
    database.dispose()
    return url


@pytest.fixture
def server(database_url: str, pg_cluster: PrivateCluster, tmp_path) -> Iterator[Running]:
    settings = loopback_settings(database_url, f"maildir:{tmp_path}/outbox", "hung")
    running = start_server(settings.model_copy(update={"database_timeout": TIMEOUT}), tmp_path)
    yield running
    pg_cluster.resume()
    running.thread.stop()


def send(server: Running, raw: bytes) -> tuple[int, float]:
    """The SMTP status after DATA, and how long it took to come."""
    started = time.monotonic()
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=CLIENT_PATIENCE) as client:
        try:
            client.sendmail(ALICE, ["pbm@localhost"], raw.replace(b"\n", b"\r\n"))
            code = 250
        except smtplib.SMTPDataError as refused:
            code = refused.smtp_code
    return code, time.monotonic() - started


def health(server: Running) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    answer = httpx.get(f"http://127.0.0.1:{server.http_port}/healthz", timeout=CLIENT_PATIENCE)
    return answer, time.monotonic() - started


def test_the_door_answers_451_while_the_database_hangs(server, pg_cluster):
    assert send(server, mail(ALICE, "help"))[0] == 250  # the pool holds live connections now
    pg_cluster.pause()
    # The first mail's store is stuck on a pooled connection; the others meet that, then a full pool.
    answers = [send(server, mail(ALICE, "help")) for _ in range(3)]
    assert [code for code, _ in answers] == [451, 451, 451]
    print("SMTP 451 after", ", ".join(f"{seconds:.2f} s" for _, seconds in answers))


def test_healthz_answers_503_while_the_database_hangs(server, pg_cluster):
    assert health(server)[0].status_code == 200
    pg_cluster.pause()
    answers = [health(server) for _ in range(3)]
    assert [answer.status_code for answer, _ in answers] == [503, 503, 503]
    assert {answer.json()["status"] for answer, _ in answers} == {"unreachable"}
    print("/healthz 503 after", ", ".join(f"{seconds:.2f} s" for _, seconds in answers))


def test_a_mail_refused_during_the_hang_is_processed_once_when_its_sender_tries_again(server, pg_cluster):
    raw = mail(ALICE, "help", message_id="<retried@client.example>")
    pg_cluster.pause()
    assert send(server, raw)[0] == 451
    pg_cluster.resume()  # the abandoned store may now finish after all
    assert send(server, raw)[0] == 250  # the sender's MTA tries again

    database = server.server.database
    deadline = time.monotonic() + CLIENT_PATIENCE
    while True:
        with database.reading() as session:
            rows = session.scalars(
                select(InboundMessage).where(InboundMessage.message_id == "<retried@client.example>")
            ).all()
            replies = session.scalars(
                select(OutboxMessage).where(OutboxMessage.inbound_id.in_([row.id for row in rows]))
            ).all()
        if any(row.status == "processed" for row in rows) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert sorted(row.status for row in rows if row.status != "duplicate") == ["processed"]
    assert len(replies) == 1


def test_the_probe_tells_a_hung_database_from_a_live_one(database_url, pg_cluster):
    database = Database(database_url)
    assert database.reachable(timeout=TIMEOUT)
    pg_cluster.pause()
    assert database.reachable(timeout=TIMEOUT) is False
    pg_cluster.resume()
    assert database.reachable(timeout=TIMEOUT)
    database.dispose()
