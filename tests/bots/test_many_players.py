"""Every level plays Cephalopod with two to six players, from the first move to the end.

A file of its own because it is the bots' longest test (levels 3 and 4 search at every fourth
move of five games): `make test` gives each file to one worker, and this one need not wait for
the rest of the contract.
"""

from __future__ import annotations

import pytest

import pbm.bots
import pbm.games


@pytest.mark.parametrize("players", range(2, 7))
def test_every_level_plays_cephalopod_for_two_to_six_players_to_the_end(players):
    game = pbm.games.get("cephalopod")
    state = game.new(players=players, options={"size": 3})
    for ply in range(200):
        if game.result(state) is not None:
            break
        level = pbm.bots.levels("cephalopod")[ply % 4]
        state = game.play(state, pbm.bots.choose("cephalopod", state, level, seed=ply))
    assert game.result(state) is not None
