"""Reading received mail (transitional: in-process; a sandboxed reader replaces it)."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

from pbm.mail.parse import ParsedMail, parse_mail


@dataclass(frozen=True)
class ReadCost:
    seconds: float
    peak_memory_kb: int


@dataclass(frozen=True)
class Reading:
    mail: ParsedMail
    cost: ReadCost


class MailReader:
    def __init__(self, *, loop_marker: str, seconds: float = 5.0, memory_mb: int = 512) -> None:
        self.loop_marker = loop_marker

    def read(self, raw: bytes, *, envelope_sender: str | None) -> Reading:
        started = time.process_time()
        mail = parse_mail(raw, envelope_sender=envelope_sender, loop_marker=self.loop_marker)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return Reading(mail, ReadCost(time.process_time() - started, peak))

    def close(self) -> None:
        pass

    def __enter__(self) -> MailReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
