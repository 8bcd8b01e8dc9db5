"""Prometheus metrics (`pbm.metrics`): two `pbm serve` workers on one PostgreSQL database, each
scraped on its own PBM_METRICS_LISTEN, count between them every mail once; and the state of the
database reads the same from either."""

from __future__ import annotations

import random
from collections import Counter

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.conftest import free_port
from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, Match, challenge, letter, new_player, post, signup

pytestmark = pytest.mark.postgresql

MOVES = 6


@pytest.fixture
def postgres_url(postgres_databases):
    if postgres_databases is None:
        pytest.skip("PostgreSQL tests need PBM_TEST_DATABASE_URL")
    url = postgres_databases.create()
    yield url
    postgres_databases.drop(url)


@pytest.fixture
def workers(postgres_url, tmp_path):
    """Two servers on one database, each with its metrics on a loopback port of its own."""
    pair = []
    for name in ("worker-a", "worker-b"):
        env = {
            **GENEROUS_LIMITS,
            "PBM_OUTBOUND": f"maildir:{tmp_path / 'outbox'}",
            "PBM_METRICS_LISTEN": str(free_port()),
        }
        pair.append(ServeProcess(postgres_url, tmp_path / name, name=name, env=env))
    for worker in pair:
        worker.start()
    yield pair
    for worker in pair:
        worker.stop()


def scrape(worker: ServeProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample `worker` serves on /metrics: {(name, labels): value}."""
    port = worker.env["PBM_METRICS_LISTEN"]
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(scrapes: list[dict], name: str, **labels: str) -> float:
    """The sum over workers of the samples of `name` that carry `labels`."""
    return sum(
        value
        for scraped in scrapes
        for (sample, sample_labels), value in scraped.items()
        if sample == name and set(labels.items()) <= set(sample_labels)
    )


def test_the_counts_of_two_workers_add_up_to_the_mails_sent(workers, postgres_url, tmp_path):
    rng = random.Random("metrics")
    tables = Tables(postgres_url)
    sent: list[Letter] = []

    def send(mail: Letter, worker: ServeProcess) -> None:
        post(worker.smtp_port, mail)
        sent.append(mail)

    def all_done() -> bool:
        rows = tables.inbound()
        return len(rows) == len(sent) and all(row.status != "pending" for row in rows)

    try:
        matches = [Match("cephalopod", [new_player("m", rng), new_player("m", rng)]) for _ in range(2)]
        for index, match in enumerate(matches):
            for player in match.players:
                send(signup(player), workers[index % 2])
            assert wait_for(all_done, 60)
            send(challenge("cephalopod", match.players), workers[(index + 1) % 2])
            assert wait_for(all_done, 60)
            match.board = tables.board_of("cephalopod", match.userids)
        for number in range(MOVES):
            for index, match in enumerate(matches):
                send(match.move_letter(rng)[0], workers[(number + index) % 2])
        copy = letter(matches[0].players[0].address, "help", kind="help", replies=1)
        send(copy, workers[0])
        send(copy, workers[1])  # the same mail twice: an MTA that tried again
        auto = letter("robot@players.example", "I am away", kind="auto", headers={"Auto-Submitted": "auto-replied"})
        send(auto, workers[1])
        garbage = letter(matches[1].players[0].address, "frobnicate everything", kind="garbage", replies=1)
        send(garbage, workers[0])
        assert wait_for(all_done, 60), "processing did not finish"
        assert wait_for(lambda: all(row.status != "pending" for row in tables.outbox()), 60)
        outbox = Counter(row.status for row in tables.outbox())
        inbound = Counter(row.status for row in tables.inbound())
    finally:
        tables.close()

    scrapes = [scrape(worker) for worker in workers]
    assert all(total([scraped], "pbm_mails_received_total") > 0 for scraped in scrapes)  # both took mail
    assert total(scrapes, "pbm_mails_received_total") == len(sent)
    assert total(scrapes, "pbm_mails_done_total") == len(sent)
    for outcome in ("processed", "ignored", "duplicate", "failed"):
        assert total(scrapes, "pbm_mails_done_total", outcome=outcome) == inbound[outcome], outcome
    assert inbound["duplicate"] == 1 and inbound["ignored"] == 1
    assert total(scrapes, "pbm_mail_processing_seconds_count") == inbound["processed"] + inbound["ignored"]
    delivered = len(maildir_files(tmp_path / "outbox"))
    assert total(scrapes, "pbm_replies_total", outcome="sent") == outbox["sent"] == delivered
    assert total(scrapes, "pbm_reply_delivery_seconds_count") == delivered
    assert total(scrapes, "pbm_replies_total", outcome="failed") == 0
    # The database's state is the same whichever worker is asked.
    for scraped in scrapes:
        assert total([scraped], "pbm_database_up") == 1
        assert total([scraped], "pbm_inbox_mails", status="pending") == 0
        assert total([scraped], "pbm_inbox_mails", status="processed") == inbound["processed"]
        assert total([scraped], "pbm_outbox_mails", status="sent") == outbox["sent"]
        assert total([scraped], "pbm_games", game="cephalopod", status="active") == 2
        assert total([scraped], "pbm_time_pass_runs_total", outcome="done") >= 1
