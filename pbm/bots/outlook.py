"""How a game looks to a bot: a seat's chances as its level's search sees them.

A bot answers a draw proposal with it (`pbm.mail.bot_turns`): it says yes only when it judges
itself losing. Like `pbm.bots.choose` it sees only what a player may see, and with a `seed`
it is reproducible.

>>> import pbm.games
>>> game = pbm.games.get("cephalopod")
>>> won = game.from_position("a6a6b6/a6a6b6/a6b6. a")
>>> outlook("cephalopod", won, 2, 0, seed=1)  # a filled last cell wins for the first seat
1.0
"""

from __future__ import annotations

import time
from random import Random
from typing import Any

from pbm.bots import SAFETY_SECONDS, plan
from pbm.bots.dodeca import blind
from pbm.bots.search import Search, share
from pbm.games import get

ITERATIONS = 200
"""The least search an outlook is made from, whatever the level (level 1 plays without one)."""


def outlook(
    game: str, state: Any, level: int, seat: int, *, seed: int | str | bytes | None = None, seconds: float | None = None
) -> float:
    """`seat`'s share of the win from `state`, 0 to 1, as `level`'s search expects it (1: it wins;
    with two players 0.5 is an even game); whoever is to move. `seconds` caps the search, as
    `pbm.bots.choose`'s does."""
    engine = get(game)
    rules = (chosen := plan(engine.name, level)).rules
    result = engine.result(state)
    if result is not None:
        return share(rules.seats(state), result.winners)[seat]
    if engine.name == "dodeca":
        state = blind(state)  # before anything else looks at it
    search = Search(rules, Random(seed))
    deadline = time.monotonic() + (SAFETY_SECONDS if seconds is None else seconds)
    root, _ = search.run(state, max(chosen.iterations, ITERATIONS), deadline)
    if root.proven is not None:
        return root.proven[seat]
    visits = sum(root.edge_visits)
    if not visits:
        return 1.0 / rules.seats(state)
    return sum(reward[seat] for reward in root.edge_reward) / visits
