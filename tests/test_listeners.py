"""The listeners' bookkeeping: refusals and failed accepts reach the log at a bounded rate, and the
caps fit the open files the process may have."""

from __future__ import annotations

import asyncio
import logging
import resource

import pytest

from pbm.config import ConfigError
from pbm.listeners import ACCEPT_FAILED, AcceptFailures, RefusalLog, allow_open_files, client_of

CAP = "PBM_SMTP_MAX_CONNECTIONS_PER_CLIENT (20)"


def lines_from(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "pbm.listeners"]


def test_a_flood_of_refusals_makes_one_line_at_once_then_one_per_interval(caplog):
    async def flood() -> None:
        refusals = RefusalLog("SMTP", every=0.2)
        for _ in range(500):
            refusals.refused("127.0.0.2", CAP)
        await asyncio.sleep(0.3)
        for _ in range(500):
            refusals.refused("127.0.0.3", CAP)
        await asyncio.sleep(0.5)

    asyncio.run(flood())
    first, counted, counted_again = lines_from(caplog)
    assert "refused a connection from 127.0.0.2 at " + CAP in first
    assert "refused 499 more connections" in counted and "most from 127.0.0.2 (499)" in counted
    assert "refused 500 more connections" in counted_again and "most from 127.0.0.3 (500)" in counted_again


def test_a_refusal_after_a_quiet_interval_is_logged_at_once(caplog):
    async def two_refusals() -> None:
        refusals = RefusalLog("HTTP", every=0.1)
        refusals.refused("127.0.0.2", CAP)
        await asyncio.sleep(0.3)
        refusals.refused("127.0.0.4", CAP)

    asyncio.run(two_refusals())
    first, second = lines_from(caplog)
    assert "from 127.0.0.2" in first and "from 127.0.0.4" in second


def test_refusals_counted_but_not_yet_logged_are_logged_when_the_server_stops(caplog):
    async def refused_and_stopped() -> None:
        refusals = RefusalLog("SMTP", every=60)
        for _ in range(3):
            refusals.refused("127.0.0.2", CAP)
        refusals.close()

    asyncio.run(refused_and_stopped())
    assert "refused 2 more connections" in lines_from(caplog)[-1]


def test_failed_accepts_are_logged_once_per_interval_with_their_count(caplog):
    loop = asyncio.new_event_loop()
    failures = AcceptFailures(every=60)
    try:
        for _ in range(1000):
            failures(loop, {"message": ACCEPT_FAILED, "exception": OSError(24, "Too many open files")})
    finally:
        loop.close()
    (line,) = lines_from(caplog)
    assert "could not accept 1 connections" in line and "Too many open files" in line


def test_other_loop_errors_go_to_asyncios_own_handler(caplog):
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            AcceptFailures()(loop, {"message": "something else went wrong"})
    finally:
        loop.close()
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == [
        "something else went wrong"
    ]


@pytest.fixture
def open_files():
    """The process's open-file limits, put back after the test."""
    limits = resource.getrlimit(resource.RLIMIT_NOFILE)
    yield limits
    resource.setrlimit(resource.RLIMIT_NOFILE, limits)


def test_the_soft_open_file_limit_is_raised_for_the_caps(open_files):
    soft, hard = open_files
    if hard != resource.RLIM_INFINITY and hard < 1000:
        pytest.skip("the hard limit here is below what the test asks for")
    resource.setrlimit(resource.RLIMIT_NOFILE, (300, hard))
    allow_open_files(400, "the caps")
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= 400


def test_caps_beyond_the_hard_open_file_limit_stop_the_start_naming_them(open_files):
    _, hard = open_files
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard limit to exceed")
    with pytest.raises(ConfigError, match="PBM_SMTP_MAX_CONNECTIONS and PBM_HTTP_MAX_CONNECTIONS allow"):
        allow_open_files(hard, "PBM_SMTP_MAX_CONNECTIONS and PBM_HTTP_MAX_CONNECTIONS")


@pytest.mark.parametrize(
    ("peer", "client"),
    [
        (("192.0.2.7", 2525), "192.0.2.7"),
        (("2001:db8:1:2:aaaa::1", 2525, 0, 0), "2001:db8:1:2::/64"),
        (("2001:db8:1:2:bbbb::9", 2525, 0, 0), "2001:db8:1:2::/64"),
        (("::ffff:192.0.2.7", 2525, 0, 0), "192.0.2.7"),
    ],
)
def test_a_client_is_an_ipv4_address_or_an_ipv6_slash_64(peer, client):
    """An IPv6 subscriber gets a /64 or more: counted address by address, one attacker would be many."""
    assert client_of(peer) == client
