"""The command layer's words: every fact a parser reports or a handler refuses with, in English.

Parsers and handlers decide facts (``Fact("not-your-turn", userid="bob")``); this catalogue
says them, and the engines' catalogue (`pbm.games.messages`) says what an engine decided.
One catalogue, kept in blocks by who raises the facts.
"""

from __future__ import annotations

from pbm.facts import Catalogue, merged
from pbm.games import base

PARSING: Catalogue = {
    # What the command language (`pbm.commands.language`, `verbs`, `usage`, `plan`) reports
    # about a line it cannot read.
}

HELP: Catalogue = {
    # What each verb is for (``help`` and the rules page list them).
}

REFUSALS: Catalogue = {
    # Why a handler refuses a command it understood.
}

MESSAGES: Catalogue = merged([PARSING, HELP, REFUSALS])


def catalogue() -> Catalogue:
    """The words a refusal or a parse error may need: this layer's and the engines'."""
    return merged([MESSAGES, base.catalogue()])
