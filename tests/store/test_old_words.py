"""Reading back the words the store kept before facts (`pbm.store.old_words`, migration 0020): every
sentence the old code wrote becomes the fact the code now decides for the same move or ending, and
one that no template made is kept, word for word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pbm.games
from pbm.facts import Fact
from pbm.store.old_words import OldWords
from pbm.words import Words, every_catalogue

ROWS = json.loads((Path(__file__).parent.parent / "data" / "old_words" / "rows.json").read_text())
"""Games played with the old code, and the reports and endings it stored (see make_rows.py)."""


@pytest.fixture(scope="module")
def reader() -> OldWords:
    return OldWords(every_catalogue())


def _replayed(row):
    """Each move of `row` as the engines now report it, beside the report the old code kept."""
    engine = pbm.games.get(row["game"])
    if "position" in row:
        state = engine.from_position(row["position"], players=row["players"], seats=row["seats"])
    else:
        state = engine.new(players=row["players"], options=row["options"], seed=bytes.fromhex(row["seed"]))
    for notation, old in row["moves"]:
        after = engine.apply(state, notation)
        yield engine.report(state, notation, after), old
        state = after
    yield engine.result(state), row["end_reason"]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row['game']}-{row.get('seed', 'position')[:8]}")
def test_every_report_and_ending_the_old_code_kept_reads_back_as_the_fact_now_decided(reader, row):
    *reports, (result, end_reason) = _replayed(row)
    for report, old in reports:
        assert reader.move(old["text"]) == report.fact
        if report.why is not None:
            assert reader.why(old["why"], len(old["eliminated"])) == report.why
    if end_reason is not None:  # the positions played for their eliminations stored no ending
        assert reader.end(end_reason) == result.fact


def test_the_old_rows_cover_every_way_a_full_board_puts_players_out():
    whys = {old["why"].split(",")[0].split(":")[0] for row in ROWS for _, old in row["moves"] if "why" in old}
    assert whys == {"is out", "are out"}
    codes = {report.why.code for row in ROWS for report, _ in list(_replayed(row))[:-1] if report.why}
    assert codes == {
        "cephalopod-out-holding-fewest",
        "cephalopod-out-tied-for-fewest",
        "cephalopod-out-in-two-rounds",
        "cephalopod-out-holding-none",
    }


HOLDING = Fact("cephalopod-most-cells", held=13, cells=25)
ON_TIME = Fact("forfeited-on-time", why=Fact("no-move-in", span=Fact("days", count=21)))


@pytest.mark.parametrize(
    ("words", "fact"),
    [
        ("won when alice resigned", Fact("won-when-left", userid="alice", did=Fact("resigned"))),
        ("tied when carol resigned", Fact("tied-when-left", userid="carol", did=Fact("resigned"))),
        (
            "won when bob forfeited by signing off",
            Fact("won-when-left", userid="bob", did=Fact("forfeited-by-signing-off")),
        ),
        ("won when bob forfeited on time (no move in 21 days)", Fact("won-when-left", userid="bob", did=ON_TIME)),
        (
            "won when bob forfeited on time (the 36 hours of thinking time ran out)",
            Fact(
                "won-when-left",
                userid="bob",
                did=Fact("forfeited-on-time", why=Fact("thinking-time-ran-out", span=Fact("hours", count=36))),
            ),
        ),
        (
            "won when bob forfeited on time (the clock ran out)",
            Fact("won-when-left", userid="bob", did=Fact("forfeited-on-time", why=Fact("clock-ran-out"))),
        ),
        ("tied by agreement", Fact("tied-by-agreement")),
        (
            "alice resigned in the first round",
            Fact("called-off-in-the-first-round", what=Fact("player-did", userid="alice", did=Fact("resigned"))),
        ),
        ("a draw was agreed in the first round", Fact("called-off-in-the-first-round", what=Fact("draw-agreed"))),
        (
            "alice won, holding 13 of the 25 cells in the first round",
            Fact("called-off-in-the-first-round", what=Fact("winners-result", winners=["alice"], result=HOLDING)),
        ),
        (
            "alice and bob tied, each holding 1 cell in the first round",
            Fact(
                "called-off-in-the-first-round",
                what=Fact("winners-result", winners=["alice", "bob"], result=Fact("cephalopod-tie", held=1)),
            ),
        ),
    ],
)
def test_the_endings_handlers_wrote_read_back_as_their_facts(reader, words, fact):
    assert reader.end(words) == fact
    assert Words().say(fact) == words


@pytest.mark.parametrize(
    ("words", "fact"),
    [
        ("resigned", Fact("resigned")),
        ("forfeited by signing off", Fact("forfeited-by-signing-off")),
        ("forfeited on time (no move in 21 days)", ON_TIME),
        ("resigned and leaves the game; the others play on", Fact("left-and-the-others-play-on", did=Fact("resigned"))),
        (
            "took back move 4 (c3=b3+c2), as everyone agreed: UNDO successful",
            Fact("took-back-move", number=4, move="c3=b3+c2"),
        ),
    ],
)
def test_the_moves_handlers_wrote_read_back_as_their_facts(reader, words, fact):
    assert reader.move(words) == fact
    assert Words().say(fact) == words


@pytest.mark.parametrize(
    "words", ["Paren wins by a landslide", "won, holding many of the cells", "won when alice resigned loudly."]
)
def test_words_no_template_made_are_kept_as_they_are(reader, words):
    assert reader.end(words) == Fact("unconverted-words", text=words)
    assert Words().say(reader.end(words)) == words
