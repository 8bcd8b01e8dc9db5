"""Usage lines for a reader: the command's words stay the server's, only the names of what a player
writes in their place are translated, and the English is the verb table's own usage line."""

from __future__ import annotations

import re

import pytest

from pbm.commands import verbs
from pbm.words import Words

EVERY_VERB = [*verbs.ACCOUNT_VERBS, *verbs.GAME_VERBS]
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9]*\b")


@pytest.mark.parametrize("verb", EVERY_VERB, ids=lambda verb: verb.help)
def test_the_english_usage_line_said_is_the_verbs_usage(verb):
    for game in (None, "cephalopod", "GAME"):
        assert Words().say(verb.usage_said(game)) == verb.usage(game)


@pytest.mark.parametrize("verb", [verb for verb in EVERY_VERB if verb.arguments], ids=lambda verb: verb.help)
def test_french_names_the_arguments_in_french_and_keeps_every_word_the_server_reads(verb):
    english, french = Words().say(verb.usage_said("cephalopod")), Words("fr").say(verb.usage_said("cephalopod"))
    assert french.startswith(f"cephalopod {verb.name} ")
    assert PLACEHOLDER.sub("X", french) == PLACEHOLDER.sub("X", english), "only the capitals may change"
    assert not set(PLACEHOLDER.findall(french)) & {"USERID", "PASSWORD", "BOARD", "MOVE", "ADDRESS", "GAME"}
