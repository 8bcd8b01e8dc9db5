"""The command layer's words: every fact a handler refuses with or a parser reports, in English.

Handlers and parsers decide facts (``Fact("not-your-turn", userid="bob")``); this catalogue
says them, and the engines' catalogue (`pbm.games.messages`) says what an engine decided.
"""

from __future__ import annotations

from pbm.facts import Catalogue, merged
from pbm.games import base

MESSAGES: Catalogue = {}


def catalogue() -> Catalogue:
    """The words a refusal or a parse error may need: this layer's and the engines'."""
    return merged([MESSAGES, base.catalogue()])
