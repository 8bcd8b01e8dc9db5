"""Spans of time in configuration: one spelling for every setting.

A span is a number and a unit, ``7d``, ``12h``, ``30m`` or ``30s``; a bare number is in the
setting's own unit, the one its name says (``PBM_TIME_PASS_SECONDS=90``,
``PBM_VACATION_DAYS=30``), so every value written before the units keeps its meaning.

>>> from datetime import timedelta
>>> parse_duration("12h", bare=DAY)
datetime.timedelta(seconds=43200)
>>> parse_duration("7", bare=DAY) == timedelta(days=7)
True
>>> parse_duration("1.5m", bare=SECOND), parse_duration(90, bare=SECOND)
(datetime.timedelta(seconds=90), datetime.timedelta(seconds=90))
>>> parse_duration("a week", bare=DAY)
Traceback (most recent call last):
    ...
ValueError: expected a number, or one with a unit: 7d, 12h, 30m or 30s; got 'a week'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

SECOND = timedelta(seconds=1)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)

UNITS = {"d": DAY, "h": HOUR, "m": MINUTE, "s": SECOND}
"""Every unit a span may be written in."""

_SPAN = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*([a-z]?)")


def parse_duration(value: str | float | timedelta, *, bare: timedelta) -> timedelta:
    """The span `value` says: ``7d``, ``12h``, ``30m``, ``30s``, or a bare number of `bare`.

    Letter case and spaces around the value do not matter; a span is never negative.
    """
    if isinstance(value, timedelta):
        return value
    if isinstance(value, bool):
        raise ValueError(f"expected a span of time, got {value!r}")
    if isinstance(value, int | float):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"expected a span of time, got {value!r}")
        return bare * value
    match = _SPAN.fullmatch(str(value).strip().lower())
    if match is None or (match[2] and match[2] not in UNITS):
        raise ValueError(f"expected a number, or one with a unit: 7d, 12h, 30m or 30s; got {value!r}")
    return UNITS[match[2]] * float(match[1]) if match[2] else bare * float(match[1])


def written(span: timedelta) -> str:
    """`span` as a setting is written: in the largest unit it is a whole number of.

    >>> written(timedelta(days=7)), written(timedelta(hours=36)), written(timedelta(seconds=1.5))
    ('7d', '36h', '1.5s')
    """
    for letter, unit in UNITS.items():
        if span and span % unit == timedelta(0):
            return f"{span // unit}{letter}"
    seconds = span.total_seconds()
    return f"{seconds:g}s"


def in_units_of(unit: timedelta) -> Callable[[Any], Any]:
    """A settings validator: a span in any spelling, as a number of `unit` (what a setting named
    for `unit` holds). Anything else is passed on, for the field's own validation to refuse."""

    def validate(value: Any) -> Any:
        if not isinstance(value, str | int | float | timedelta) or isinstance(value, bool):
            return value
        number = parse_duration(value, bare=unit) / unit
        return int(number) if number.is_integer() else number

    return validate
