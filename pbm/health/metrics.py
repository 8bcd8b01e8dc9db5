"""Prometheus metrics: what this process did, and the state of the database it serves.

Two kinds of number, kept apart because several ``pbm serve`` workers may share one
PostgreSQL database (each its own process, perhaps on its own machine):

- **What a process did** (mails received, refused and done, replies sent, retried and failed,
  the time each took, time-pass runs) is counted in that process, when its transaction has
  committed, and served by that process. Each worker is a target of its own; the club's total
  is the sum over its workers (``sum without (instance) (...)``). A multiprocess registry
  would only reach processes on one machine, and a count read from the database would be
  served by every worker alike, so a sum would count it once per worker.
- **The state of the database** (mail waiting in the inbox, replies in the outbox, games by
  type and status) is read from the database at each scrape, so it is the same whichever
  worker is asked: take ``max``, not the sum. Games started and finished are these counts:
  the database knows them exactly, across restarts and workers.

The metrics live in a registry of this `Metrics` object's own, not prometheus_client's global
one, so that two servers in one process (tests) count apart. They are served on
``PBM_METRICS_LISTEN`` at ``/metrics``, on their own port: nothing but a scraper should reach
it, and the players' web server does not serve it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 86400)
"""Seconds, from a fast move to a reply waiting a day for its relay."""


@dataclass(frozen=True)
class DatabaseState:
    """What the database holds now, for the gauges: counts by status."""

    inbox: dict[str, int] = field(default_factory=dict)
    outbox: dict[str, int] = field(default_factory=dict)
    games: dict[str, dict[str, int]] = field(default_factory=dict)
    """``{"cephalopod": {"active": 3, "finished": 10}}``."""


class _DatabaseCollector(Collector):
    """Reads `DatabaseState` at each scrape; a database that does not answer leaves the gauges out
    (and ``pbm_database_up`` at 0) rather than failing the scrape of everything else."""

    def __init__(self, read: Callable[[], DatabaseState]) -> None:
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("pbm_database_up", "1 when the database answered this scrape's questions")
        try:
            state = self.read()
        except Exception as error:
            log.warning("metrics: the database did not answer (%s)", type(error).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        inbox = GaugeMetricFamily(
            "pbm_inbox_mails", "Received mails by status (pending: the inbox's depth)", labels=["status"]
        )
        for status, count in sorted(state.inbox.items()):
            inbox.add_metric([status], count)
        yield inbox
        outbox = GaugeMetricFamily(
            "pbm_outbox_mails", "Reply mails by status (pending and held: the outbox's depth)", labels=["status"]
        )
        for status, count in sorted(state.outbox.items()):
            outbox.add_metric([status], count)
        yield outbox
        games = GaugeMetricFamily(
            "pbm_games", "Games by type and status: all of them were started", labels=["game", "status"]
        )
        for game, statuses in sorted(state.games.items()):
            for status, count in sorted(statuses.items()):
                games.add_metric([game, status], count)
        yield games


class _DoorsCollector(Collector):
    """The doors to a mail provider (`pbm.mail.doors`): each one's state, and since when."""

    def __init__(self, read: Callable[[], dict[str, dict[str, object]]]) -> None:
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = GaugeMetricFamily(
            "pbm_mail_door_state",
            "1 for the state each door to the mail provider is in (mailbox, submission): reading, sending, "
            "standby, unreachable, login_refused, no_secret",
            labels=["door", "state"],
        )
        since = GaugeMetricFamily(
            "pbm_mail_door_state_since_seconds", "When each door came into its state (Unix time)", labels=["door"]
        )
        for door, report in sorted(self.read().items()):
            if "state" not in report:
                continue  # not a door (the daily limit's count)
            state.add_metric([door, str(report["state"])], 1)
            since.add_metric([door], float(str(report["since_unix"])))
        yield state
        yield since


class Metrics:
    """This process's counters, and the wiring that serves them (`serve`)."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.mails_received = Counter(
            "pbm_mails_received", "Mails received over SMTP and stored (each answered 250)", registry=registry
        )
        self.mails_refused = Counter(
            "pbm_mails_refused",
            "Refused over SMTP: not_ours (a recipient we do not serve, 550 at RCPT, counted per recipient), "
            "not_stored (a mail answered 451: the database could not take it); too_large (a mail of the "
            "club's mailbox over PBM_MAX_MESSAGE_SIZE: its header alone stored, answered as too large)",
            ["reason"],
            registry=registry,
        )
        self.mails_done = Counter(
            "pbm_mails_done",
            "Received mails finished, by outcome: processed, ignored (automatic mail), duplicate, failed",
            ["outcome"],
            registry=registry,
        )
        self.replies = Counter(
            "pbm_replies",
            "Reply mails handed to the transport, by outcome: sent, retried (a failed attempt to be "
            "tried again), failed (given up after every retry), bounced (refused for good by the relay)",
            ["outcome"],
            registry=registry,
        )
        self.processing_seconds = Histogram(
            "pbm_mail_processing_seconds",
            "From a mail's receipt to the commit of what it did",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.delivery_seconds = Histogram(
            "pbm_reply_delivery_seconds",
            "From a reply's queueing to its handing over to the transport",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.time_passes = Counter(
            "pbm_time_pass_runs", "Runs of the time pass, by outcome: done, failed", ["outcome"], registry=registry
        )
        self.bot_unthought_answers = Counter(
            "pbm_bot_unthought_answers",
            "Bot answers played without searching (level 1's move, or no to a draw), by game: an incident",
            ["game"],
            registry=registry,
        )
        self.bot_thinking_replaced = Counter(
            "pbm_bot_thinking_replaced",
            "Bots' thinking processes replaced, by reason: died (killed, crashed), hung (no answer in time)",
            ["reason"],
            registry=registry,
        )
        self._show_from_zero()

    def _show_from_zero(self) -> None:
        """Every label the counters are known to take, shown at 0 before it is first counted."""
        for reason in ("not_ours", "not_stored", "too_large"):
            self.mails_refused.labels(reason)
        for outcome in ("processed", "ignored", "duplicate", "failed"):
            self.mails_done.labels(outcome)
        for outcome in ("sent", "retried", "failed", "bounced"):
            self.replies.labels(outcome)
        for outcome in ("done", "failed"):
            self.time_passes.labels(outcome)
        for reason in ("died", "hung"):
            self.bot_thinking_replaced.labels(reason)

    def bots_play(self, games: list[str]) -> None:
        """Show the bots' incident counters of `games` from 0, before any incident."""
        for game in games:
            self.bot_unthought_answers.labels(game)

    def watch(self, read: Callable[[], DatabaseState]) -> None:
        """Report the database's state, read by `read` at each scrape."""
        self.registry.register(_DatabaseCollector(read))

    def watch_doors(self, read: Callable[[], dict[str, dict[str, object]]]) -> None:
        """Report the doors to a mail provider, read by `read` at each scrape."""
        self.registry.register(_DoorsCollector(read))

    def serve(self, host: str, port: int) -> MetricsServer:
        """Serve ``/metrics`` on `host`:`port` (0: any free port) in a thread of its own."""
        server, thread = start_http_server(port, addr=host, registry=self.registry)
        return MetricsServer(server, thread)


@dataclass
class MetricsServer:
    """The metrics listener's server and thread; `close` stops both."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
