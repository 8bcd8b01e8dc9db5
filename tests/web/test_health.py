"""/healthz: the queues as a monitor needs them, and 503 when mail is stuck or the database is gone."""

from __future__ import annotations

import warnings
from datetime import timedelta

from pbm.store.database import Database
from pbm.store.models import InboundMessage, OutboxMessage, utcnow
from pbm.web.app import create_app
from pbm.web.live import GameChanges
from pbm.words.templating import Templates
from tests.e2e.conftest import free_port

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

LONG_AGO = timedelta(hours=2)  # past the default stuck_after of 600 s


def received(database, status: str, age: timedelta = timedelta(0)) -> None:
    with database.transaction() as session:
        session.add(InboundMessage(raw=b"x", status=status, received_at=utcnow() - age))


def reply(database, status: str, due_in: timedelta = timedelta(0)) -> None:
    with database.transaction() as session:
        serial = session.query(OutboxMessage).count()
        session.add(
            OutboxMessage(
                recipient="alice@example.org",
                message_id=f"<{serial}@pbm>",
                raw=b"x",
                status=status,
                next_attempt_at=utcnow() + due_in,
            )
        )


def test_health_counts_mail_by_status_and_failed_mail_is_no_alarm(client, database):
    for status in ("pending", "failed", "failed", "processed"):
        received(database, status)
    reply(database, "failed")
    reply(database, "sent")
    answer = client.get("/healthz")
    assert answer.status_code == 200
    report = answer.json()
    assert report["status"] == "ok"
    assert report["inbound_pending"] == 1
    assert report["inbound"] == {"pending": 1, "failed": 2, "processed": 1}
    assert report["outbox"] == {"failed": 1, "sent": 1}


def test_health_is_503_when_received_mail_waits_too_long(client, database):
    received(database, "pending", age=LONG_AGO)
    answer = client.get("/healthz")
    assert answer.status_code == 503
    report = answer.json()
    assert report["status"] == "stuck" and "received mail" in report["reason"]
    assert report["inbound_oldest_pending_seconds"] >= LONG_AGO.total_seconds()


def test_health_is_503_when_a_due_reply_is_not_delivered(client, database):
    reply(database, "pending", due_in=-LONG_AGO)
    answer = client.get("/healthz")
    assert answer.status_code == 503
    report = answer.json()
    assert report["status"] == "stuck" and "reply" in report["reason"]
    assert report["outbox_most_overdue_seconds"] >= LONG_AGO.total_seconds()


def test_a_reply_waiting_for_its_next_attempt_is_not_stuck(client, database):
    reply(database, "pending", due_in=timedelta(hours=5))  # a relay refused it for now; retried later
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json()["outbox_most_overdue_seconds"] == 0


def test_health_is_503_when_the_database_cannot_be_reached():
    database = Database(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/pbm", timeout=2)
    app = create_app(database, Templates(), GameChanges(database))
    with TestClient(app) as client:
        answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json()["status"] == "unreachable"
