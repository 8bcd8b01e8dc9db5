"""Dates as their reader reads them: in their language, on the wall clock of the zone they live in,
the zone named. A reader who named no zone reads UTC, as every reader did before zones."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from pbm.facts import Fact
from pbm.words import Words

AT = datetime(2026, 11, 26, 14, 30, tzinfo=timezone.utc)
SUMMER = datetime(2026, 7, 1, 14, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("language", "zone", "at", "said"),
    [
        ("en", None, AT, "2026-11-26 14:30 UTC"),
        ("en", "Europe/Paris", AT, "2026-11-26 15:30 CET"),
        ("en", "Europe/Paris", SUMMER, "2026-07-01 16:30 CEST"),
        ("en", "America/New_York", AT, "2026-11-26 09:30 EST"),
        ("en", "America/Sao_Paulo", AT, "2026-11-26 11:30 UTC-3"),  # a zone whose abbreviation is its offset
        ("fr", None, AT, "26 novembre 2026 à 14:30 UTC"),
        ("fr", "Asia/Tokyo", AT, "26 novembre 2026 à 23:30 JST"),
        ("fr", "Australia/Sydney", AT, "27 novembre 2026 à 01:30 AEDT"),  # the next day there
    ],
)
def test_a_moment_is_said_on_the_readers_wall_clock_naming_the_zone(language, zone, at, said):
    assert Words(language, zone=zone).moment(at) == said


def test_a_day_is_the_day_it_is_where_the_reader_lives():
    late = datetime(2026, 11, 26, 23, 30, tzinfo=timezone.utc)
    assert Words().day(late) == "2026-11-26"
    assert Words(zone="Asia/Tokyo").day(late) == "2026-11-27"
    assert Words("fr", zone="America/New_York").day(late) == "26 novembre 2026"


def test_a_zone_the_system_no_longer_knows_reads_utc():
    assert Words(zone="Atlantis/Capital").moment(AT) == "2026-11-26 14:30 UTC"


def test_a_fact_says_its_moments_in_the_readers_zone_and_language():
    away = Fact("event-away", userid="bob", until=AT)
    assert Words().say(away) == "bob is away until 2026-11-26 14:30 UTC: their time stands still"
    assert Words(zone="Europe/Paris").say(away) == "bob is away until 2026-11-26 15:30 CET: their time stands still"
    assert "26 novembre 2026 à 15:30 CET" in Words("fr", zone="Europe/Paris").say(away)


def test_a_moment_kept_without_its_zone_is_utc():
    """Migration 0022 kept the events it read back from English without a zone: UTC, as they said."""
    kept = Fact("event-away", userid="bob", until=datetime(2026, 12, 1, 10, 0))
    assert Words(zone="Europe/Paris").say(kept) == "bob is away until 2026-12-01 11:00 CET: their time stands still"


def test_a_span_names_its_zone_once():
    overlap = Fact("vacation-overlaps", userid="bob", starts=AT, ends=datetime(2026, 12, 1, 0, 0, tzinfo=timezone.utc))
    assert "from 2026-11-26 14:30 until 2026-12-01 00:00 UTC:" in Words().say(overlap)
    assert "from 2026-11-26 15:30 until 2026-12-01 01:00 CET:" in Words(zone="Europe/Paris").say(overlap)


def test_a_moment_on_a_named_zones_clock_stays_on_it_whoever_reads_it():
    """What time it is where a player lives is said on that clock, even to a reader elsewhere."""
    there = AT.astimezone(ZoneInfo("America/New_York"))
    fact = Fact("zone-is", userid="alice", zone="America/New_York", now=there)
    assert Words(zone="Asia/Tokyo").say(fact) == "alice lives in America/New_York, where it is 2026-11-26 09:30 now."


def test_a_moment_in_utc_by_any_of_its_names_is_said_on_the_readers_clock():
    """PostgreSQL gives its session's zone (``Etc/UTC``): still UTC, not a clock someone named."""
    assert Words(zone="Europe/Paris").moment(AT.astimezone(ZoneInfo("Etc/UTC"))) == "2026-11-26 15:30 CET"
