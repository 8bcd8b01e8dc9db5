"""The engines refuse with facts: each mistake has its code and the parameters a message needs (the
cell, the pips, the moves), so the words can be changed or translated without touching an engine.
The words themselves are checked where each rule is (the rules, notation and input tests)."""

from __future__ import annotations

import pytest

import pbm.games
from pbm.facts import Fact
from pbm.games import IllegalMove, InvalidOptions, InvalidPosition, StaleMove, UnknownGame
from pbm.games.base import catalogue

from .words import said

CEPHALOPOD = pbm.games.get("cephalopod")
CUBEO = pbm.games.get("cubeo")
DODECA = pbm.games.get("dodeca")

TWO_ONES = CEPHALOPOD.from_position("a1../.../b1.. a")
"""a1 and a3 hold a 1 each: a2 must capture both."""
FORMATION = "1:3@0,0 1:2@0,1 1:1@1,1 2:1@1,0 / 1 / 6"
"""Cubeo: three dice of seat 1 around one of seat 2."""
DODECA_POSITION = ".........bd4/" + "........../" * 7 + "..at3......./ad1......... a -"
"""Dodeca: a Tetra showing 3 on c2, a Dodeca each on a1 and j10."""


def refusal(error_type, call):
    with pytest.raises(error_type) as raised:
        call()
    return raised.value.fact


@pytest.mark.parametrize(
    ("game", "call", "fact"),
    [
        (CEPHALOPOD, lambda: CEPHALOPOD.parse_options(["size=5"]), Fact("not-an-option", word="size=5")),
        (
            CEPHALOPOD,
            lambda: CEPHALOPOD.parse_options(["-size"]),
            Fact("option-needs-a-number", option="size", usage="-size=3..9"),
        ),
        (CUBEO, lambda: CUBEO.parse_options(["-strict=1"]), Fact("option-takes-no-value", option="strict")),
        (
            CEPHALOPOD,
            lambda: CEPHALOPOD.check_options({"size": 11}),
            Fact("option-out-of-range", option="size", value=11, choices="3, 4, 5, 6, 7, 8, 9"),
        ),
        (CUBEO, lambda: CUBEO.check_options({"strict": 1}), Fact("option-is-a-flag", option="strict")),
        (
            CEPHALOPOD,
            lambda: CEPHALOPOD.parse_options(["-colour=red"]),
            Fact("no-such-option", game="Cephalopod", option="colour", known="-size=3..9, -dice=6|12"),
        ),
        (DODECA, lambda: DODECA.parse_options(["-fast"]), Fact("no-options-at-all", game="Dodeca", option="fast")),
        (DODECA, lambda: DODECA.check_players(3), Fact("players-exactly", game="Dodeca", wanted=2, players=3)),
        (
            CEPHALOPOD,
            lambda: CEPHALOPOD.check_players(7),
            Fact("players-out-of-range", game="Cephalopod", low=2, high=6, players=7),
        ),
    ],
)
def test_options_and_players_are_refused_with_their_facts(game, call, fact):
    assert refusal(InvalidOptions, call) == fact


def test_an_unknown_game_names_itself_and_the_games_played():
    fact = refusal(UnknownGame, lambda: pbm.games.get("chess"))
    assert fact.code == "unknown-game" and fact["name"] == "chess"
    assert fact["games"].split(", ")[:3] == ["cephalopod", "cubeo", "dodeca"]


def test_a_guard_that_is_no_number_and_a_stale_guard_say_what_they_met():
    state = CEPHALOPOD.play(CEPHALOPOD.new(), "c3")
    assert refusal(IllegalMove, lambda: CEPHALOPOD.play(state, "a1#x")) == Fact("guard-not-a-number", guard="x")
    assert refusal(StaleMove, lambda: CEPHALOPOD.play(state, "a1#7")) == Fact("stale-move", written_for=7, at=2)


@pytest.mark.parametrize(
    ("move", "fact"),
    [
        ("", Fact("cephalopod-no-move")),
        ("zz", Fact("cephalopod-not-a-move", text="zz")),
        ("d4", Fact("cephalopod-off-board", cell="d4", last="c3")),
        ("a1", Fact("cephalopod-occupied", cell="a1")),
        ("b2=3", Fact("cephalopod-nothing-to-capture", cell="b2")),
        ("a2=5", Fact("cephalopod-no-capture-makes", cell="a2", total=5, moves="a2=a1+a3")),
        ("a2=a1+c3", Fact("cephalopod-not-next-to", captured="c3", cell="a2", moves="a2=a1+a3")),
        ("a2=a1+a1", Fact("cephalopod-named-twice", captured="a1", cell="a2", moves="a2=a1+a3")),
        ("a2=a1+b2", Fact("cephalopod-capture-empty", captured="b2", cell="a2", moves="a2=a1+a3")),
        ("a2=a1", Fact("cephalopod-capture-too-few", cell="a2", moves="a2=a1+a3")),
        ("a2=a1+x", Fact("cephalopod-bad-capture", text="a2=a1+x", cell="a2")),
    ],
)
def test_cephalopod_refuses_moves_with_their_facts(move, fact):
    assert refusal(IllegalMove, lambda: CEPHALOPOD.play(TWO_ONES, move)) == fact


def test_cephalopod_names_every_capture_a_total_could_mean_as_alternatives():
    state = CEPHALOPOD.from_position(".a1./a1.a1/.a1. a", players=2, seats=[0, 1])
    fact = refusal(IllegalMove, lambda: CEPHALOPOD.play(state, "b2=2"))
    assert fact.code == "cephalopod-ambiguous-total" and (fact["cell"], fact["total"]) == ("b2", 2)
    assert fact["choices"] == Fact(
        "one-or-other",
        first="b2=a2+b1",
        other=Fact(
            "one-or-other",
            first="b2=a2+b3",
            other=Fact(
                "one-or-other",
                first="b2=a2+c2",
                other=Fact(
                    "one-or-other", first="b2=b1+b3", other=Fact("one-or-other", first="b2=b1+c2", other="b2=b3+c2")
                ),
            ),
        ),
    )
    assert said(fact).startswith("b2=2 could be b2=a2+b1 or b2=a2+b3 or ")
    compulsory = refusal(IllegalMove, lambda: CEPHALOPOD.play(state, "b2"))
    assert compulsory == Fact(
        "cephalopod-capture-compulsory", cell="b2", moves=", ".join(CEPHALOPOD.moves_at(state, "b2"))
    )


@pytest.mark.parametrize(
    ("position", "fact"),
    [
        ("a1", Fact("cephalopod-not-a-position", position="a1")),
        ("../.. a", Fact("cephalopod-rows-out-of-range", rows=2)),
        ("a1.b2/.../a3. b", Fact("cephalopod-row-length", row=1, cells=2, size=3)),
        ("a7../.../... a", Fact("cephalopod-pips-out-of-range", token="a7", cell="a3", dice=6)),
        ("a1../.../... z", Fact("cephalopod-not-a-seat-letter", mover="z")),
        ("a1../.../... a", Fact("cephalopod-too-few-in-play", seats=["Paren"])),
    ],
)
def test_cephalopod_refuses_positions_with_their_facts(position, fact):
    assert refusal(InvalidPosition, lambda: CEPHALOPOD.from_position(position)) == fact


def test_cephalopod_says_who_is_gone_and_who_has_dice_but_is_not_in_play():
    three = CEPHALOPOD.from_position("a1b1c1/.../... a", players=3)
    gone = CEPHALOPOD.resign(three, 2)
    assert refusal(IllegalMove, lambda: CEPHALOPOD.resign(gone, 2)) == Fact(
        "cephalopod-seat-gone", seat=CEPHALOPOD.seat_names[2]
    )
    stray = refusal(InvalidPosition, lambda: CEPHALOPOD.from_position("a1b1c1/.../... a", players=3, seats=[0, 1]))
    assert stray == Fact("cephalopod-dice-not-in-play", seats=[CEPHALOPOD.seat_names[2]])


@pytest.mark.parametrize(
    ("move", "fact"),
    [
        ("", Fact("cubeo-empty-move")),
        ("hello", Fact("cubeo-not-a-move", text="hello")),
        ("+0,0", Fact("cubeo-add-taken", move="+0,0")),
        ("+5,5", Fact("cubeo-add-not-touching", move="+5,5")),
        ("1,0->2,0", Fact("cubeo-die-of-another", cell="1,0", seat=CUBEO.seat_names[1])),
        ("4,4->5,5", Fact("cubeo-no-die-of-yours", cell="4,4")),
        ("2,0,0->1,1", Fact("cubeo-wrong-pips", cell="0,0", pips=3, written=2)),
        ("0,1->1,1", Fact("cubeo-move-taken", cell="1,1", merge="2,0,1+>1,1")),
        ("0,1+>-1,1", Fact("cubeo-merge-into-nothing", target="-1,1", move="2,0,1->-1,1")),
        ("1,1+>1,0", Fact("cubeo-merge-into-enemy", target="1,0", seat=CUBEO.seat_names[1])),
        ("-0,0", Fact("cubeo-remove-not-allowed", cell="0,0")),
    ],
)
def test_cubeo_refuses_moves_with_their_facts(move, fact):
    assert refusal(IllegalMove, lambda: CUBEO.play(CUBEO.from_position(FORMATION), move)) == fact


@pytest.mark.parametrize(
    ("position", "fact"),
    [
        ("1:1@0,0", Fact("cubeo-not-a-position")),
        ("1:1@0,0 2:1@1,0 / 3 / 0", Fact("cubeo-not-a-seat", word="3")),
        ("x / 1 / 0", Fact("cubeo-not-a-die", word="x")),
        ("1:1@0,0 1:1@0,0 2:1@1,0 / 1 / 0", Fact("cubeo-two-dice-on-a-cell", cell="0,0")),
        ("1:1@0,0 2:1@5,5 / 1 / 0", Fact("cubeo-not-one-formation")),
        (
            "1:1@0,0 2:1@1,0 / 1 / 0 / -dice=9",
            Fact("option-out-of-range", option="dice", value=9, choices="6, 8, 10, 12"),
        ),
    ],
)
def test_cubeo_refuses_positions_with_their_facts_an_inner_one_kept(position, fact):
    assert refusal(InvalidPosition, lambda: CUBEO.from_position(position)) == fact


@pytest.mark.parametrize(
    ("move", "fact"),
    [
        ("roll", Fact("dodeca-reroll-which")),
        ("hello", Fact("dodeca-not-a-move", text="hello")),
        ("c2-z9=1", Fact("dodeca-off-board", text="z9")),
        ("roll j10", Fact("dodeca-die-of-another", square="j10", kind="Dodeca", seat=Fact("dodeca-north"))),
        ("roll d4", Fact("dodeca-empty-square", square="d4")),
        ("c2-c2", Fact("dodeca-standing-still", square="c2")),
        ("c2-d4", Fact("dodeca-not-straight", source="c2", target="d4")),
        ("c2-c4", Fact("dodeca-wrong-distance", target="c4", distance=2, kind="Tetra", face=3)),
        ("c2-c5=1", Fact("dodeca-wrong-face", faces=Fact("one-or-other", first="2", other="4"), kind="Tetra", face=3)),
        (
            "c2-c5",
            Fact("dodeca-which-face", kind="Tetra", moves=Fact("one-or-other", first="c2-c5=2", other="c2-c5=4")),
        ),
    ],
)
def test_dodeca_refuses_moves_with_their_facts(move, fact):
    state = DODECA.from_position(DODECA_POSITION, seed=bytes(32))
    assert refusal(IllegalMove, lambda: DODECA.play(state, move)) == fact


def test_dodeca_says_how_a_die_goes_as_a_fact_within_the_fact():
    state = DODECA.from_position(DODECA_POSITION, seed=bytes(32))
    fact = refusal(IllegalMove, lambda: DODECA.play(state, "c2-f5=2"))
    rule = Fact(
        "dodeca-rule",
        die=Fact("dodeca-a-kind", kind="Tetra"),
        moves=Fact("dodeca-orthogonally"),
        captures=Fact("dodeca-diagonally"),
    )
    assert fact == Fact("dodeca-cannot-move-that-way", rule=rule, way=Fact("dodeca-diagonally"), target="f5")
    assert (
        said(fact)
        == "a Tetra moves orthogonally and captures diagonally, so it cannot move diagonally to the empty square f5"
    )


def test_every_engine_fact_raised_here_has_its_words():
    codes = {"not-an-option", "cephalopod-occupied", "cubeo-add-taken", "dodeca-blocked", "stale-move"}
    assert codes <= set(catalogue())


def test_results_and_reports_are_facts_said_by_the_catalogue():
    full = CEPHALOPOD.from_position("a1a1b1/b1a1b1/a1b1a1 b")
    result = CEPHALOPOD.result(full)
    assert (result.code, result.fact) == ("most-cells", Fact("cephalopod-most-cells", held=5, cells=9))
    assert result.reason == said(result.fact) == "won, holding 5 of the 9 cells"
    report = CUBEO.report(CUBEO.new(), "+0,1", CUBEO.play(CUBEO.new(), "+0,1"))
    assert report.fact == Fact("cubeo-adding", move="+0,1", cell="0,1", left=4)
    assert (report.eliminated, report.why, report.tally) == ((), None, None)
