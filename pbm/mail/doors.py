"""How a door to the club's mail provider is doing: the mailbox reader (`pbm.mail.mailbox`) and
the submission transport (`pbm.mail.submission`) each keep one `DoorHealth`, which ``/healthz`` and
the metrics show (the state, and since when), and which logs each change once: a provider down
for an hour is one warning when it goes and one line when it is back, not one a second."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from pbm.store.models import utcnow

log = logging.getLogger(__name__)

TROUBLE = frozenset({"unreachable", "login_refused", "no_secret"})
"""States in which mail waits: what ``/healthz`` reports as degraded."""


@dataclass
class DoorHealth:
    """How one of the doors to the provider is doing (`state`, since when, why), for ``/healthz``
    and the metrics; each change is logged once."""

    door: str
    state: str = "starting"
    since: datetime = field(default_factory=utcnow)
    detail: str = ""
    now: Callable[[], datetime] = utcnow

    def set(self, new: str, detail: str = "") -> None:
        if new == self.state and detail == self.detail:
            return
        changed = new != self.state
        self.state, self.detail = new, detail
        if changed:
            self.since = self.now()
            say = log.warning if new in TROUBLE else log.info
            say("%s: %s%s", self.door, new, f" ({detail})" if detail else "")

    @property
    def ok(self) -> bool:
        return self.state not in TROUBLE

    def to_json(self) -> dict[str, object]:
        report: dict[str, object] = {
            "state": self.state,
            "since": self.since.isoformat(timespec="seconds"),
            "since_unix": round(self.since.timestamp(), 3),
        }
        if self.detail:
            report["detail"] = self.detail
        return report
