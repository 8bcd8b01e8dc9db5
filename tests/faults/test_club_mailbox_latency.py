"""How long a player waits with a club's mailbox at a provider: from the APPEND of their mail
to the club's INBOX to the answer handed to the provider's submission service, over IDLE.
The goal (issue 46): a median under 2 s. Figures printed and written to
test-artifacts/mailbox-latency.json; then the mailbox is audited (nothing left in INBOX)."""

from __future__ import annotations

import json
import os
import statistics
import time

import pytest

from tests import dovecot
from tests.faults.conftest import ARTIFACTS
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.provider import CLUB, Provider
from tests.support import mail

pytestmark = pytest.mark.skipif(dovecot.unavailable() is not None, reason=str(dovecot.unavailable()))

MAILS = int(os.environ.get("MAILBOX_LATENCY_MAILS", "200"))


@pytest.fixture
def provider():
    provider = Provider()
    provider.start()
    yield provider
    provider.stop()


def test_a_players_mail_is_answered_within_two_seconds_at_the_median(provider, database_url, tmp_path):
    if not database_url.startswith("sqlite"):
        pytest.skip("one backend is enough for the figure")
    server = ServeProcess(database_url, tmp_path / "serve", env={**provider.settings(), **GENEROUS_LIMITS})
    server.start()
    handler = provider.submission.handler
    client = provider.imap()
    latencies = []
    try:
        for index in range(MAILS):
            raw = mail(f"p{index % 20}@example.org", "help", to=CLUB).replace(b"\n", b"\r\n")
            appended = time.monotonic()
            assert client.append("INBOX", None, None, raw)[0] == "OK"
            assert wait_for(lambda n=index: len(handler.arrival_times) > n, timeout=30), server.log()[-2000:]
            latencies.append(handler.arrival_times[index] - appended)
    finally:
        client.logout()
    try:
        assert wait_for(lambda: provider.count("INBOX") == 0, timeout=30)
        processed = provider.count("pbm-processed")
    finally:
        server.stop()
    latencies.sort()
    figures = {
        "mails": MAILS,
        "median_seconds": round(statistics.median(latencies), 3),
        "p99_seconds": round(latencies[max(0, int(len(latencies) * 0.99) - 1)], 3),
        "max_seconds": round(latencies[-1], 3),
        "inbox_left": 0,
        "processed_folder": processed,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "mailbox-latency.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nmailbox latency:", figures)
    assert figures["median_seconds"] < 2.0
    assert processed == MAILS
