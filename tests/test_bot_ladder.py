"""The bots' read model (`pbm.views.ladders.bot_ladders`): what ``help bots`` and the ``/bots`` page show of
each game's bot levels is what the ladder measured (``pbm/bots/strength.json``), said honestly."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

import pbm.bots
import pbm.games
from pbm.views.ladders import WIDE_ELO, BotLevelView, bot_ladder, bot_ladders


def test_every_game_the_bots_play_is_listed_with_its_levels_weakest_first():
    ladders = bot_ladders()
    assert [ladder.engine.name for ladder in ladders] == [
        name for name in pbm.games.names() if name in ("cephalopod", "cubeo", "dodeca")
    ]
    for ladder in ladders:
        levels = pbm.bots.levels(ladder.engine.name)
        assert [bot.level for bot in ladder.levels] == levels
        assert [bot.userid for bot in ladder.levels] == [f"bot{level}" for level in levels]


@pytest.mark.parametrize("game", ["cephalopod", "cubeo", "dodeca"])
def test_each_levels_numbers_are_the_ladders_own(game):
    measured = pbm.bots.strength(game)
    assert measured is not None
    (ladder,) = [ladder for ladder in bot_ladders() if ladder.engine.name == game]
    rows = {row["level"]: row for row in measured["levels"]}
    for bot in ladder.levels:
        row = rows[bot.level]
        assert bot.elo == row["elo"] and list(bot.elo_95 or ()) == row["elo_95"]
        assert bot.lead == row["lead"] and list(bot.lead_95 or ()) == row["lead_95"]
        assert bot.games == row["games"] and bot.seconds_per_move == row["seconds_per_move"]
    assert ladder.games == measured["games"] and ladder.random_games == rows[0]["games"]
    assert ladder.measured == datetime.strptime(measured["measured"], "%Y-%m-%d").replace(tzinfo=timezone.utc)


def _table(*levels: tuple[int, int, int, int, int, int]) -> dict:
    """A ladder table as ``make ladder`` writes one: (level, elo, low, high, lead low, games) per level."""
    rows = [{"level": 0, "elo": 0, "elo_95": [0, 0], "games": 10, "seconds_per_move": 0.0}]
    for level, elo, low, high, lead_low, games in levels:
        rows.append(
            {
                "level": level,
                "elo": elo,
                "elo_95": [low, high],
                "lead": elo - rows[-1]["elo"],
                "lead_95": [lead_low, 2 * elo],
                "games": games,
                "seconds_per_move": 0.5 * level,
            }
        )
    return {"levels": rows, "games": 400, "measured": "2026-12-01"}


def test_wide_intervals_make_the_table_rough():
    engine = pbm.games.get("cephalopod")
    close = bot_ladder(engine, [1, 2], _table((1, 300, 250, 250 + WIDE_ELO, 120, 200), (2, 600, 550, 650, 110, 200)))
    wide = bot_ladder(engine, [1, 2], _table((1, 300, 250, 251 + WIDE_ELO, 120, 200), (2, 600, 550, 650, 110, 200)))
    assert not close.rough and wide.rough


def test_a_level_whose_lead_interval_reaches_zero_is_not_shown_stronger_than_the_one_below():
    engine = pbm.games.get("cubeo")
    ladder = bot_ladder(
        engine, [1, 2, 3], _table((1, 300, 250, 350, 1, 60), (2, 400, 350, 450, 0, 60), (3, 500, 1, 9, -5, 6))
    )
    assert [bot.userid for bot in ladder.not_shown_stronger] == ["bot2", "bot3"]
    assert ladder.levels[0].shown_stronger


def test_a_game_the_ladder_has_not_rated_lists_its_bots_without_numbers():
    ladder = bot_ladder(pbm.games.get("dodeca"), [1, 2, 3], None)
    assert ladder.levels == tuple(BotLevelView(level, f"bot{level}") for level in (1, 2, 3))
    assert ladder.measured is None and not ladder.rough and ladder.not_shown_stronger == ()


def test_a_level_the_ladder_has_not_played_is_listed_without_numbers():
    ladder = bot_ladder(pbm.games.get("cephalopod"), [1, 2], _table((1, 300, 250, 350, 100, 50)))
    assert ladder.levels[1] == BotLevelView(2, "bot2")
