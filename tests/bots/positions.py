"""Random positions of every game and option, for the bots' tests: random legal games, cut short."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import pbm.games

CEPHALOPOD_OPTIONS: list[dict[str, Any]] = [{"size": size} for size in (3, 4, 5)] + [{"size": 4, "dice": 12}]
CUBEO_OPTIONS: list[dict[str, Any]] = [
    {},
    {"strict": True},
    {"dice": 8},
    {"remove": True},
    {"samevalue": True},
    {"remove": True, "samevalue": True, "dice": 12},
]


@st.composite
def positions(draw, game: str, max_plies: int = 60) -> Any:
    """A position of `game` that is not over: a new game with random options, players and seed,
    then random legal moves."""
    engine = pbm.games.get(game)
    if game == "cephalopod":
        state = engine.new(players=draw(st.integers(2, 6)), options=draw(st.sampled_from(CEPHALOPOD_OPTIONS)))
    elif game == "cubeo":
        state = engine.new(options=draw(st.sampled_from(CUBEO_OPTIONS)))
    else:
        state = engine.new(seed=draw(st.binary(min_size=32, max_size=32)))
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(0, max_plies))):
        after = engine.play(state, rng.choice(engine.legal_moves(state)))
        if engine.result(after) is not None:
            break
        state = after
    return state
