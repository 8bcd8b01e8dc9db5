"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable


def repeat_for(seconds: float, work: Callable[[], object]) -> tuple[int, float]:
    """Run `work` until `seconds` have passed; returns (rounds, elapsed seconds)."""
    rounds = 0
    start = time.perf_counter()
    while True:
        work()
        rounds += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return rounds, elapsed
