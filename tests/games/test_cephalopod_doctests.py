"""The examples in the engine's documentation are run, so the rule book cannot drift."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["pbm.games.cephalopod", "pbm.games.perft", "pbm.games"])
def test_documentation_examples_hold(module):
    failures, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0
    assert failures == 0
