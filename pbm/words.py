"""Words for one reader: the edge where facts become sentences.

Everything below the edge (engines, handlers, the store) decides facts; a template or a
page asks its reader's `Words` to say them. Today every reader reads English; a language
is a voice and a translation of the catalogues, chosen here and nowhere else.

>>> from pbm.facts import Fact
>>> Words().say(Fact("unconverted-words", text="as written"))
'as written'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pbm.commands import messages as command_messages
from pbm.facts import ENGLISH, UNCONVERTED, Catalogue, Fact, Voice, merged, say
from pbm.mail import messages as mail_messages
from pbm.records import messages as record_messages
from pbm.store import messages as store_messages
from pbm.web import messages as web_messages


def every_catalogue() -> Catalogue:
    """Every code a reader may meet, from every layer, the installed games' own included."""
    return merged(
        [
            {UNCONVERTED: "{text}"},
            command_messages.catalogue(),
            mail_messages.MESSAGES,
            store_messages.MESSAGES,
            record_messages.MESSAGES,
            web_messages.MESSAGES,
        ]
    )


@dataclass(frozen=True)
class Words:
    """How one reader is spoken to: the catalogue, the voice and the translation of their language."""

    language: str = "en"
    voice: Voice = ENGLISH
    translate: Callable[[str], str] = str
    catalogue: Catalogue = field(default_factory=every_catalogue)

    def say(self, fact: Fact) -> str:
        """The words of `fact` for this reader."""
        return say(fact, self.catalogue, self.voice, self.translate)
