"""What a check says: its status, and the `Finding` that holds what it found and what would mend it."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Status(enum.Enum):
    OK = "ok"
    WARNING = "warning"
    """It works, but less well than it should: mail goes, some receivers may frown."""
    MISSING = "missing"
    WRONG = "wrong"
    UNKNOWN = "unknown"
    """The DNS did not answer (or the check lacks what it needs): nothing could be said."""

    @property
    def fails(self) -> bool:
        """The domain is not ready for mail while a check has this status."""
        return self in (Status.MISSING, Status.WRONG, Status.UNKNOWN)


_SEVERITY = [Status.OK, Status.WARNING, Status.UNKNOWN, Status.WRONG, Status.MISSING]


def worst(statuses: Iterable[Status]) -> Status:
    return max(statuses, key=_SEVERITY.index, default=Status.OK)


@dataclass(frozen=True)
class Finding:
    """One check's verdict: the records it `found`, what is wrong or weak (`notes`), and the
    records that would mend it (`fix`, zone-file lines), added beside what is there or, when
    `replacing`, in the place of what was found."""

    check: str
    status: Status
    found: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    fix: tuple[str, ...] = ()
    replacing: bool = False
