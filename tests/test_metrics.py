"""Prometheus metrics (`pbm.health.metrics`): two `pbm serve` workers on one PostgreSQL database, each
scraped on its own PBM_METRICS_LISTEN, count between them every mail once; and the state of the
database reads the same from either.

In this process, over real HTTP: the database's gauges as its state reads at each scrape; a
database that does not answer leaves them out, says so in ``pbm_database_up`` and a warning
naming only the error's type, and fails nothing else; and the listener frees its port."""

from __future__ import annotations

import logging
import random
import socket
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.exc import OperationalError

from pbm.health.metrics import DatabaseState, Metrics, MetricsServer
from tests.e2e import conftest as e2e
from tests.e2e.conftest import free_port
from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, Match, challenge, letter, new_player, post, signup
from tests.support import mail

MOVES = 6

sink, server_with = e2e.sink, e2e.server_with  # a real server on loopback, as the e2e tests start it


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


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(worker: ServeProcess) -> Samples:
    """Every sample `worker` serves on /metrics: {(name, labels): value}."""
    return samples(int(worker.env["PBM_METRICS_LISTEN"]))


def samples(port: int) -> Samples:
    """Every sample served on /metrics at `port` on the loopback: {(name, labels): value}."""
    answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
    assert answer.status_code == 200
    text = answer.text
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


@pytest.mark.postgresql
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


# In this process, on a port of its own


def gauges(scraped: Samples, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of `name` by their labels."""
    return {labels: value for (sample, labels), value in scraped.items() if sample == name}


def by_status(counts: dict[str, int]) -> dict[tuple[tuple[str, str], ...], float]:
    return {(("status", status),): count for status, count in counts.items()}


def by_game(games: dict[str, dict[str, int]]) -> dict[tuple[tuple[str, str], ...], float]:
    return {
        (("game", game), ("status", status)): count
        for game, statuses in games.items()
        for status, count in statuses.items()
    }


@pytest.fixture
def served() -> Iterator[Callable[[Callable[[], DatabaseState]], tuple[Metrics, MetricsServer]]]:
    """Metrics watching a read of the database's state, served on a free loopback port; closed
    when the test ends."""
    servers: list[MetricsServer] = []

    def serve(read: Callable[[], DatabaseState]) -> tuple[Metrics, MetricsServer]:
        metrics = Metrics()
        metrics.watch(read)
        servers.append(metrics.serve("127.0.0.1", 0))
        return metrics, servers[-1]

    yield serve
    for server in servers:
        server.close()


def test_the_database_gauges_show_its_state_as_read_at_each_scrape(served):
    states = [
        DatabaseState(
            inbox={"pending": 2, "processed": 17, "failed": 1},
            outbox={"pending": 1, "held": 3, "sent": 21},
            games={"cephalopod": {"active": 2, "finished": 5}, "dodeca": {"cancelled": 1}},
        ),
        DatabaseState(
            inbox={"processed": 20, "failed": 1},
            outbox={"sent": 25},
            games={"cephalopod": {"active": 1, "finished": 6}, "dodeca": {"cancelled": 1}, "cubeo": {"active": 1}},
        ),
    ]
    now = iter(states)
    current: list[DatabaseState] = []

    def read() -> DatabaseState:
        current[:] = [next(now)]
        return current[0]

    _, server = served(read)
    assert server.port != 0
    for state in states:
        scraped = samples(server.port)
        assert current == [state], "the state is read at each scrape"
        assert gauges(scraped, "pbm_database_up") == {(): 1}
        assert gauges(scraped, "pbm_inbox_mails") == by_status(state.inbox)
        assert gauges(scraped, "pbm_outbox_mails") == by_status(state.outbox)
        assert gauges(scraped, "pbm_games") == by_game(state.games)


def test_a_database_that_does_not_answer_leaves_its_gauges_out_and_nothing_else(served, caplog):
    secret = "postgresql://pbm:hunter2@db.internal:5432/pbm"
    failure = OperationalError(f"connect to {secret}", None, ConnectionRefusedError(f"refused: {secret}"))
    answers: list[DatabaseState | Exception] = [failure, DatabaseState(inbox={"pending": 4})]

    def read() -> DatabaseState:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    metrics, server = served(read)
    metrics.mails_received.inc(3)
    metrics.replies.labels("sent").inc(2)
    with caplog.at_level(logging.WARNING, logger="pbm.health.metrics"):
        scraped = samples(server.port)
    assert gauges(scraped, "pbm_database_up") == {(): 0}
    database = ("pbm_inbox_mails", "pbm_outbox_mails", "pbm_games")
    assert [name for name, _ in scraped if name.startswith(database)] == []
    assert gauges(scraped, "pbm_mails_received_total") == {(): 3}
    assert gauges(scraped, "pbm_replies_total")[(("outcome", "sent"),)] == 2
    assert gauges(scraped, "pbm_mail_processing_seconds_count") == {(): 0}
    (warning,) = [record for record in caplog.records if record.name == "pbm.health.metrics"]
    assert warning.levelno == logging.WARNING
    assert "OperationalError" in warning.getMessage()
    for word in ("hunter2", "db.internal", "postgresql://", "refused", "connect to"):
        assert word not in warning.getMessage(), word
    assert warning.exc_info is None, "no traceback: it would print the error's message"
    # The next scrape finds the database back.
    scraped = samples(server.port)
    assert gauges(scraped, "pbm_database_up") == {(): 1}
    assert gauges(scraped, "pbm_inbox_mails") == {(("status", "pending"),): 4}


def test_closing_the_metrics_server_stops_its_thread_and_frees_its_port():
    metrics = Metrics()
    server = metrics.serve("127.0.0.1", 0)
    port = server.port
    assert gauges(samples(port), "pbm_mails_received_total") == {(): 0}
    assert gauges(samples(port), "pbm_database_up") == {}, "nothing watched: no database gauge"
    server.close()
    assert not server.thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
    with socket.socket() as probe:
        # SO_REUSEADDR lets the port's own closed connections wait out TIME_WAIT; a listener still
        # bound to it would make bind fail.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))


def test_pbm_serve_serves_its_metrics_with_the_database_read_at_each_scrape(server_with, sink):
    """In `pbm serve` itself (`PBM_METRICS_LISTEN`): a mail answered shows in the counters and in
    the inbox and outbox gauges read from its database."""
    running = server_with(metrics_listen="127.0.0.1:0")
    port = running.server.metrics_port
    assert port
    running.send(mail("alice@example.org", "help"), "alice@example.org")
    sink.wait(1)
    scraped = samples(port)
    assert gauges(scraped, "pbm_mails_received_total") == {(): 1}
    assert gauges(scraped, "pbm_database_up") == {(): 1}
    assert gauges(scraped, "pbm_inbox_mails") == by_status({"processed": 1})
    assert gauges(scraped, "pbm_outbox_mails") == by_status({"sent": 1})


def test_a_metrics_address_in_use_stops_the_start_naming_it(server_with):
    from pbm.config import ConfigError

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ConfigError, match="PBM_METRICS_LISTEN: cannot listen on 127.0.0.1:"):
            server_with(metrics_listen=f"127.0.0.1:{taken.getsockname()[1]}")
