"""Words for one reader: the edge where facts become sentences.

Everything below the edge (engines, handlers, the store) decides facts; a template or a
page asks its reader's `Words` to say them, in the reader's language (`pbm.i18n.languages`).

The package is the edge's words, above the command layer and below mail and web: the catalogue
of every layer (`every_catalogue`: the engines', the store's, the commands', and the mail's and
the pages' own, `mail_messages` and `web_messages`, which live here so that both edges reach
them from below), the templates (`templating`) with the site's links they write (`links`), and
the translators' tools (`translating`, run as ``python -m pbm.translating``).

>>> from pbm.facts import Fact
>>> Words().say(Fact("unconverted-words", text="as written"))
'as written'
>>> Words("fr").duration(timedelta(days=1))
'1\xa0jour'
>>> from datetime import timezone
>>> at = datetime(2026, 11, 26, 14, 30, tzinfo=timezone.utc)
>>> Words().moment(at), Words(zone="Europe/Paris").moment(at), Words("fr", zone="Asia/Tokyo").moment(at)
('2026-11-26 14:30 UTC', '2026-11-26 15:30 CET', '26 novembre 2026 à 23:30 JST')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbm.commands import messages as command_messages
from pbm.commands import verbs
from pbm.facts import UNCONVERTED, Catalogue, Fact, Voice, merged, say
from pbm.i18n import languages
from pbm.records import messages as record_messages
from pbm.store import messages as store_messages
from pbm.words import mail_messages, web_messages


def every_catalogue() -> Catalogue:
    """Every code a reader may meet, from every layer, the installed games' own included."""
    return merged(
        [
            {UNCONVERTED: "{text}"},
            command_messages.catalogue(),
            verbs.verb_catalogue(),
            mail_messages.MESSAGES,
            store_messages.MESSAGES,
            record_messages.MESSAGES,
            web_messages.MESSAGES,
        ]
    )


@dataclass(frozen=True)
class Words:
    """How one reader is spoken to: the catalogue, in their language, and moments on the wall
    clock of the zone they live in (`zone`, an IANA name; None: UTC)."""

    language: str = languages.DEFAULT
    catalogue: Catalogue = field(default_factory=every_catalogue)
    zone: str | None = None

    @property
    def voice(self) -> Voice:
        return languages.voice(self.language, self.zone)

    def say(self, fact: Fact) -> str:
        """The words of `fact` for this reader."""
        return say(fact, self.catalogue, self.voice)

    def duration(self, span: timedelta) -> str:
        """A span of time: ``2 days 3 hours``, ``2 jours 3 heures``."""
        return self.voice.duration(span)

    def moment(self, when: datetime) -> str:
        """A date and time in the reader's zone, named: ``2026-11-26 14:30 UTC``, ``26 novembre 2026 à 15:30 CET``."""
        return languages.moment(when, self.language, self.zone)

    def clock(self, when: datetime) -> str:
        """A date and time in the reader's zone, the zone left for a column or a span to name once:
        ``2026-11-26 14:30``."""
        return languages.clock(when, self.language, self.zone)

    def zone_at(self, when: datetime) -> str:
        """The reader's zone at `when`, as a date names it: ``UTC``, ``CET``."""
        return languages.zone_at(when, self.zone)

    def day(self, when: datetime) -> str:
        """A date, the day it is in the reader's zone: ``2026-11-26``, ``26 novembre 2026``."""
        return languages.day(when, self.language, self.zone)

    def join(self, words: Iterable[str]) -> str:
        """Words listed as a sentence lists them: ``alice, bob and carol``, ``alice, bob et carol``."""
        return self.voice.join(list(words))

    def number(self, value: int | float, spec: str = ",") -> str:
        """A number, its digits grouped as the reader's language groups them (``12,345``, ``12 345``)."""
        return self.voice.number(value, spec)
