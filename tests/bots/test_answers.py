"""What a bot answers when the server asks (`pbm.bots.answers`): a move, or its vote on a draw."""

from __future__ import annotations

import pytest

import pbm.bots
import pbm.games
from pbm.bots.answers import ACCEPT, REJECT, Question, answer
from pbm.bots.outlook import outlook

CEPHALOPOD = pbm.games.get("cephalopod")


@pytest.mark.parametrize(
    ("position", "said"),
    [
        ("a6a6b6/a6a6b6/a6b6. b", ACCEPT),
        ("b6b6a6/b6b6a6/b6a6. b", REJECT),
        ("...../...../..a1../...../..... b", REJECT),
    ],
    ids=["losing", "winning", "an even opening"],
)
def test_a_bot_accepts_a_draw_only_when_its_search_says_it_is_losing(position, said):
    state = CEPHALOPOD.from_position(position)
    assert answer(Question("cephalopod", state, 2, 1, "7", draw=True), 5.0) == said


def test_asked_for_a_move_a_bot_answers_as_its_level_chooses():
    state = CEPHALOPOD.new(players=3, options={"size": 3})
    asked = Question("cephalopod", state, 2, 0, "board 1, move 0")
    assert answer(asked, 5.0) == pbm.bots.choose("cephalopod", state, 2, seed="board 1, move 0")


def test_a_dodeca_outlook_never_reads_the_dice_seed():
    dodeca = pbm.games.get("dodeca")
    state = dodeca.new(players=2, seed=bytes(32))
    other = dodeca.with_stand_in_secret(state)
    assert outlook("dodeca", state, 1, 0, seed=3) == outlook("dodeca", other, 1, 0, seed=3)
