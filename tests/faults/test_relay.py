"""A relay that is down, defers (451) or refuses (550): temporary failures are
retried and delivered once the relay takes mail again (nothing lost, nothing
twice); a permanent refusal is recorded as failed and shown by `pbm outbox` and
`/healthz`; and none of it holds up the processing of received mail.

One timeline per backend: the relay works, goes down, comes back answering 451
after DATA, and finally accepts; one player's address is refused by the relay
throughout. The server's first retry comes a second after a failure
(`PBM_FIRST_RETRY_SECONDS`), not the default minute: the backoff is the real
one, only shorter, and delivery wakes when a retry falls due.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, letter, new_player, post, signup
from tests.faults.relay import Relay

REFUSED = "nobody@refusing.example"
FIRST_DELIVERY_SECONDS = 30.0
FIRST_RETRY_SECONDS = 1
RETRIED_WITHIN_SECONDS = 120.0
"""Once the relay is back, the owed replies reach it well within this: the phases before take
seconds, so the retries have grown to tens of seconds apart at most."""


@dataclass
class RelayRun:
    tables: Tables
    relay: Relay
    server: ServeProcess
    letters: dict[str, Letter] = field(default_factory=dict)
    """By phase: 'up', 'down', 'deferring', 'refused'."""
    inbound_ids: dict[str, int] = field(default_factory=dict)
    processed_in_time: dict[str, bool] = field(default_factory=dict)
    attempted_in_time: dict[str, bool] = field(default_factory=dict)
    outbox_listing: str = ""
    healthz: dict | None = None


def _send(run: RelayRun, phase: str, letter: Letter) -> None:
    post(run.server.smtp_port, letter)
    run.letters[phase] = letter
    row = wait_for(lambda: run.tables.inbound_by_message_id().get(letter.message_id), timeout=10)
    run.inbound_ids[phase] = row[0].id if row else -1


def _replies(run: RelayRun, phase: str):
    return [row for row in run.tables.outbox() if row.inbound_id == run.inbound_ids[phase]]


def _processed_soon(run: RelayRun, phase: str) -> bool:
    def processed() -> bool:
        return any(row.id == run.inbound_ids[phase] and row.status == "processed" for row in run.tables.inbound())

    return bool(wait_for(processed, timeout=20))


def _attempted_soon(run: RelayRun, phase: str) -> bool:
    """Delivery was tried (and failed) for every reply to the phase's mail."""
    return bool(wait_for(lambda: (rows := _replies(run, phase)) and all(r.attempts >= 1 for r in rows), timeout=30))


@pytest.fixture(scope="module")
def relay_run(module_database_url, tmp_path_factory):
    rng = random.Random("relay")
    relay = Relay(refuse={REFUSED})
    workdir = tmp_path_factory.mktemp("relay")
    env = {**GENEROUS_LIMITS, "PBM_OUTBOUND": relay.url, "PBM_FIRST_RETRY_SECONDS": str(FIRST_RETRY_SECONDS)}
    server = ServeProcess(module_database_url, workdir, env=env)
    run = RelayRun(Tables(module_database_url), relay, server)
    relay.up()
    server.start()
    try:
        _send(run, "up", signup(new_player("r", rng)))
        wait_for(lambda: relay.delivered_message_ids(), timeout=FIRST_DELIVERY_SECONDS)

        relay.down()
        _send(run, "down", signup(new_player("r", rng)))
        run.processed_in_time["down"] = _processed_soon(run, "down")
        run.attempted_in_time["down"] = _attempted_soon(run, "down")

        relay.defer()
        _send(run, "deferring", signup(new_player("r", rng)))
        run.processed_in_time["deferring"] = _processed_soon(run, "deferring")
        run.attempted_in_time["deferring"] = _attempted_soon(run, "deferring")

        refused = new_player("r", rng)
        _send(run, "refused", letter(REFUSED, f"signup {refused.userid} {refused.password}", kind="signup"))
        run.processed_in_time["refused"] = _processed_soon(run, "refused")

        relay.up()
        owed = {row.message_id.strip() for phase in ("down", "deferring") for row in _replies(run, phase)}
        wait_for(lambda: owed <= set(relay.delivered_message_ids()), timeout=RETRIED_WITHIN_SECONDS, interval=0.5)
        wait_for(lambda: all(row.status != "pending" for row in _replies(run, "refused")), timeout=30)
        run.outbox_listing = server.cli("outbox").stdout
        response = server.healthz()
        run.healthz = (
            response.json() if response.headers.get("content-type", "").startswith("application/json") else None
        )
        yield run
    finally:
        server.stop()
        relay.down()
        run.tables.close()


def _delivered(run: RelayRun, phase: str) -> dict[str, int]:
    counts = run.relay.delivered_message_ids()
    return {row.message_id.strip(): counts[row.message_id.strip()] for row in _replies(run, phase)}


def test_a_working_relay_gets_the_reply(relay_run):
    assert list(_delivered(relay_run, "up").values()) == [1]


def test_mail_is_processed_while_the_relay_is_down(relay_run):
    assert relay_run.processed_in_time["down"]
    assert relay_run.attempted_in_time["down"], "delivery was not even tried while the relay was down"


def test_mail_queued_while_the_relay_was_down_is_delivered_once_after(relay_run):
    assert list(_delivered(relay_run, "down").values()) == [1]


def test_mail_is_processed_while_the_relay_defers(relay_run):
    assert relay_run.processed_in_time["deferring"]
    assert relay_run.relay.handler.deferred >= 1


def test_mail_the_relay_deferred_is_delivered_once_it_accepts(relay_run):
    assert list(_delivered(relay_run, "deferring").values()) == [1]


def test_nothing_reaches_the_relay_twice(relay_run):
    assert {mid: n for mid, n in relay_run.relay.delivered_message_ids().items() if n > 1} == {}


def test_a_refused_recipient_is_recorded_as_failed_with_the_relays_answer(relay_run):
    assert relay_run.processed_in_time["refused"]
    (reply,) = _replies(relay_run, "refused")
    assert (reply.status, reply.recipient) == ("failed", REFUSED)
    assert "550" in reply.last_error


def test_pbm_outbox_lists_the_failed_mail(relay_run):
    (line,) = [line for line in relay_run.outbox_listing.splitlines() if "failed" in line]
    assert "550" in line


def test_healthz_counts_the_failed_mail(relay_run):
    assert relay_run.healthz is not None
    counts = dict(_flatten(relay_run.healthz))
    failed_outgoing = [
        value for key, value in counts.items() if "fail" in key and ("outbox" in key or "outgoing" in key)
    ]
    assert failed_outgoing == [1], counts


def _flatten(value, path: str = ""):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(inner, f"{path}.{key}" if path else str(key))
    else:
        yield path, value
