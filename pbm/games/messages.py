"""The engines' words: every fact an engine raises or returns, in English.

An engine decides facts (``Fact("cell-occupied", cell="c3")``); this catalogue says them.
A game installed from a package brings its own catalogue in `Game.messages`.
"""

from __future__ import annotations

from pbm.facts import Catalogue

MESSAGES: Catalogue = {}
