"""Rows as the old code (pbm before issue 29's facts) wrote them, for tests/store/test_old_words.py:
each game's seed and moves, each move's report as the old `pbm.views.moves.report_data` kept it, and the
game's `end_reason` words. Made with that code (main at bcdc584's successor 9584178):

    python tests/data/old_words/make_rows.py > tests/data/old_words/rows.json
"""

import json
import random
import sys

import pbm.games
from pbm.views.moves import report_data

out = []
rng = random.Random(29)
plans = [
    ("cephalopod", 2, {"size": 3}, 2),
    ("cephalopod", 3, {"size": 5}, 2),
    ("cephalopod", 4, {"size": 5}, 2),
    ("cephalopod", 2, {"size": 5, "dice": 12}, 1),
    ("cubeo", 2, {}, 3),
    ("cubeo", 2, {"remove": True}, 2),
    ("dodeca", 2, {}, 2),
]
for game_type, players, options, count in plans:
    for _ in range(count):
        engine = pbm.games.get(game_type)
        seed = bytes(rng.randrange(256) for _ in range(32))
        state = engine.new(players=players, options=options, seed=seed)
        moves = []
        for _ in range(150):
            legal = engine.legal_moves(state)
            if not legal or engine.result(state) is not None:
                break
            notation, after = engine.play_notated(state, rng.choice(legal))
            moves.append([notation, report_data(engine.report(state, notation, after))])
            state = after
        result = engine.result(state)
        out.append(
            {
                "game": game_type,
                "players": players,
                "options": options,
                "seed": seed.hex(),
                "moves": moves,
                "end_reason": result.reason if result else None,
            }
        )
# Full boards that put players out, every way the tie rule words it (from the report tests).
cephalopod = pbm.games.get("cephalopod")


def six(rows, to_move):
    return "/".join("".join("." if c == "." else f"{c}6" for c in row) for row in rows.split()) + " " + to_move


for rows, to_move, players, seats, move in [
    ("aaaaa aaabb bbbbb bbccc cccc.", "a", 3, None, "e1"),
    ("aaaa abbb bbcc cdd.", "d", 4, None, "d1"),
    ("aaaaa aaabb bbbbb bbccc cccc.", "a", 4, [0, 1, 2, 3], "e1"),
    ("aab abb cc.", "c", 4, [0, 1, 2, 3], "c1"),
]:
    position = six(rows, to_move)
    state = cephalopod.from_position(position, players=players, seats=seats)
    notation, after = cephalopod.play_notated(state, move)
    out.append(
        {
            "game": "cephalopod",
            "position": position,
            "players": players,
            "seats": seats,
            "moves": [[notation, report_data(cephalopod.report(state, notation, after))]],
            "end_reason": None,
        }
    )
json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
