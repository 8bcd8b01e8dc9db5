"""A Dodeca bot sees only what a player sees: never the game's secret dice seed.

Two games at the same public position (board, turn, reroll flags, the rolls already shown)
with different secrets get the same move from the same bot with the same seed, at every level:
the secret decides the next rolls, and a bot that could read it would play to them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pbm.bots
from pbm.games import dodeca, fairdice
from pbm.games.dodeca import GAME

from .positions import positions

SECRETS = st.binary(min_size=32, max_size=32)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_same_public_position_gets_the_same_move_whatever_the_secret(data):
    state = data.draw(positions("dodeca", max_plies=80))
    one = data.draw(SECRETS)
    other = bytes(b ^ data.draw(st.integers(1, 255)) for b in one)  # differs in every byte
    level = data.draw(st.sampled_from(pbm.bots.levels("dodeca")[:3]))
    seed = data.draw(st.integers(0, 2**32))
    first = pbm.bots.choose("dodeca", replace(state, seed=one), level, seed=seed)
    assert first == pbm.bots.choose("dodeca", replace(state, seed=other), level, seed=seed)


def test_the_strongest_level_is_blind_too():
    state = GAME.new(seed=bytes(32))
    level = pbm.bots.levels("dodeca")[-1]
    moves = {pbm.bots.choose("dodeca", replace(state, seed=bytes([n]) * 32), level, seed=5) for n in range(2)}
    assert len(moves) == 1


def test_a_bot_rolls_no_die_of_the_game(monkeypatch):
    """Rerolls in the search are drawn from the bot's own random source, never by the fair dice."""

    def refuse(*args, **kwargs):
        raise AssertionError("a bot asked the game's fair dice for a roll")

    state = GAME.new(seed=bytes(32))
    monkeypatch.setattr(fairdice, "_digest", refuse)
    monkeypatch.setattr(dodeca, "next_roll", refuse)
    monkeypatch.setattr(dodeca, "roll", refuse)
    for level in pbm.bots.levels("dodeca")[:3]:
        assert pbm.bots.choose("dodeca", state, level, seed=1) in GAME.legal_moves(state)


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_a_bot_takes_the_last_enemy_dodeca_when_it_can(level):
    # South's Tetra on c2 shows 1 and captures diagonally onto North's last Dodeca on d3.
    state = GAME.from_position(
        "........../" * 7 + "...bd4....../..at1......./ad1......... a -", seed=bytes(32)
    )
    move = pbm.bots.choose("dodeca", state, level, seed=3)
    assert GAME.result(GAME.play(state, move)).winners == [0]
