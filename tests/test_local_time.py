"""A player's own time (`pbm.timekeeping.local_time`): quiet hours and daily times in a zone's wall clock,
through both daylight-saving changes, once a day each, never twice, never skipped."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from pbm.timekeeping.local_time import LocalHours, at_local, next_time, zone_named

UTC = timezone.utc
PARIS = zone_named("Europe/Paris")
NEW_YORK = zone_named("America/New_York")
ZONES = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", "Pacific/Chatham"]


def test_a_time_the_spring_change_skips_happens_once_just_after_the_jump():
    # Paris jumps from 02:00 to 03:00 on 29 March 2026: 02:30 comes when the clocks show 03:30.
    moment = at_local(date(2026, 3, 29), time(2, 30), PARIS)
    assert moment == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    assert moment.astimezone(PARIS).time() == time(3, 30)


def test_a_time_the_autumn_change_repeats_happens_the_first_time_the_clocks_show_it():
    moment = at_local(date(2026, 10, 25), time(2, 30), PARIS)
    assert moment == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 CEST, not the 02:30 CET an hour later


@given(
    zone=st.sampled_from(ZONES),
    start=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31)),
    clocks=st.lists(st.times().map(lambda t: t.replace(second=0, microsecond=0)), min_size=1, max_size=4),
)
def test_each_daily_time_happens_once_every_local_day_whatever_the_clocks_do(zone, start, clocks):
    where = zone_named(zone)
    # Every moment after `first` for a week: each local day in it holds each time exactly once.
    first = start.replace(tzinfo=UTC)
    happened = []
    moment = first
    while True:
        moment = next_time(moment, clocks, where)
        if moment > first + timedelta(days=8):
            break
        happened.append(moment)
    per_day: dict[tuple[date, time], int] = {}
    for day_offset in range(1, 7):
        day = first.astimezone(where).date() + timedelta(days=day_offset)
        for clock in set(clocks):
            per_day[(day, clock)] = sum(1 for m in happened if m == at_local(day, clock, where))
    assert set(per_day.values()) == {1}
    assert len(happened) == len(set(happened))
    local_days = [first.astimezone(where).date() + timedelta(days=offset) for offset in range(-1, 10)]
    assert set(happened) <= {at_local(day, clock, where) for day in local_days for clock in clocks}


def test_quiet_hours_over_midnight_end_at_the_local_morning():
    quiet = LocalHours.parse("22:00-07:00")
    assert quiet is not None
    late = datetime(2026, 7, 1, 21, 0, tzinfo=UTC)  # 23:00 in Paris (CEST)
    assert quiet.ends_after(late, PARIS) == datetime(2026, 7, 2, 5, 0, tzinfo=UTC)
    early = datetime(2026, 7, 2, 4, 0, tzinfo=UTC)  # 06:00 in Paris
    assert quiet.ends_after(early, PARIS) == datetime(2026, 7, 2, 5, 0, tzinfo=UTC)
    assert quiet.ends_after(datetime(2026, 7, 2, 5, 0, tzinfo=UTC), PARIS) is None


def test_quiet_hours_over_a_daylight_saving_change_end_at_the_wall_clock_time():
    quiet = LocalHours.parse("01:00-08:00")
    assert quiet is not None
    # New York's clocks jump from 02:00 to 03:00 on 8 March 2026: the night is an hour shorter.
    night = datetime(2026, 3, 8, 6, 30, tzinfo=UTC)  # 01:30 EST
    assert quiet.ends_after(night, NEW_YORK) == datetime(2026, 3, 8, 12, 0, tzinfo=UTC)  # 08:00 EDT


@given(
    zone=st.sampled_from(ZONES),
    moment=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31)).map(
        lambda m: m.replace(tzinfo=UTC)
    ),
    start=st.integers(0, 24 * 60 - 1),
    length=st.integers(1, 24 * 60 - 1),
)
def test_mail_held_for_quiet_hours_goes_when_they_end_and_not_before(zone, moment, start, length):
    where = zone_named(zone)
    hours = LocalHours.from_minutes(start, (start + length) % (24 * 60))
    ends = hours.ends_after(moment, where)
    if ends is None:
        return
    assert ends >= moment
    assert ends - moment <= timedelta(days=1, hours=3)  # never longer than a day (and a jump)
    assert hours.ends_after(ends, where) is None  # when they end, the player may be mailed
