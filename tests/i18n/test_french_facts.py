"""pbm in French: the facts a French-speaking player reads, as the engines, the parsers, the
handlers, the store and the mail layer decide them, said by ``Words("fr")``.

The engines' facts are real ones: each illegal move below is played through its engine and the
fact it raised is said, inside the refusal that carries it (``Coup illégal : ...``), as an error
mail says it. Every sentence must be French: no word of its English template left, every
placeholder filled, French typography kept (a narrow no-break space before ``:`` and ``;``).
"""

from __future__ import annotations

import re
import string
from datetime import datetime, timedelta

import pytest

from pbm.commands.language import CommandError
from pbm.commands.verbs import ACCOUNT_VERBS, GAME_VERBS, parse_command
from pbm.facts import MOMENT_SPECS, Fact, Plural, placeholders
from pbm.games import GameError, InvalidOptions, InvalidPosition
from pbm.games import cubeo as cubeo_engine
from pbm.games.cephalopod import GAME as CEPHALOPOD
from pbm.games.dodeca import GAME as DODECA
from pbm.words import Words, every_catalogue
from tests.games.dodeca_support import PARKED, state_with

FRENCH = Words("fr")
ENGLISH = Words()
CATALOGUE = every_catalogue()
CUBEO = cubeo_engine.GAME

NNBSP = "\u202f"

SAME_IN_BOTH = set(
    # Words an English template and its French share, spelled the same and French too.
    """capture captures options option position notation formation face place
    cube tetra octo dodeca dodecas cephalopod cubeo chat message messages utc ascii from reply votes
    confirmation rotation type second machine page plus structure unicode base signature pbm verify auto""".split()
)
"""``from`` and ``reply`` are the mail headers' own names (From, Reply-To), kept as a mail program shows them;
``pbm verify`` is a command, typed as it is; ``auto`` marks a move the queue played, in French as in English."""


SERVER_WORDS = {
    # What the server reads, quoted for the player to copy: verbs, their keywords, options, the
    # keys of a stored position. French text keeps them as they are (glossary: « Ce qui ne se
    # traduit jamais »).
    *(word for verb in (*ACCOUNT_VERBS, *GAME_VERBS) for word in verb.name.split()),
    *"""now off inf all next open games then roll reset time queue seats players ply in_play swap start
    propose undo accept reject userid password address active else new""".split(),
    # The web pages' query parameters (``?status=finished&before=...``), written as a browser sends them.
    *"status before after player".split(),
}


def english_template_words(fact: Fact) -> set[str]:
    """The words the English of `fact` is made of (its templates', and those of the facts inside
    it), without the parameters' values: what a translation must not have left behind."""
    message = CATALOGUE[fact.code]
    templates = [message.one, message.other] if isinstance(message, Plural) else [message]
    words: set[str] = set()
    for template in templates:
        text = "".join(literal for literal, _, _, _ in string.Formatter().parse(template))
        text = re.sub(r"-{1,2}[a-z]+|\b[A-Z]{2,}\b", "", text)  # options, and the placeholders of a command
        # time zones by their IANA names, as the server reads them
        text = re.sub(r"\b[A-Z][a-z]+/[A-Za-z_/]+", "", text)
        words |= {word.lower() for word in re.findall(r"[A-Za-z_]{3,}", text)} - SERVER_WORDS
    for value in fact.params.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Fact):
                words |= english_template_words(item)
    return words


def plain_values(fact: Fact) -> list[str]:
    """The text parameters of `fact` and of the facts inside it: what the sentence must show."""
    found: list[str] = []
    for value in fact.params.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Fact):
                found += plain_values(item)
            elif isinstance(item, str) and item:
                found.append(item)
    return found


def assert_french(fact: Fact) -> str:
    """`fact` said in French: translated, no English word of its template left, every parameter
    shown, no placeholder unfilled, French spacing before ``:`` ``;`` ``?``."""
    french = FRENCH.say(fact)
    assert french != ENGLISH.say(fact)
    sentence = re.sub(r"-{1,2}[a-z]+|\b[A-Z]{2,}\b", "", french)  # options, the placeholders of a command
    said_words = {word.lower() for word in re.findall(r"[A-Za-z_\u00c0-\u017f]{3,}", sentence)}
    left = (
        (said_words & english_template_words(fact))
        - SAME_IN_BOTH
        - {word.lower() for value in plain_values(fact) for word in re.findall(r"[A-Za-z]{3,}", value)}
    )
    assert not left, f"English left in {french!r}: {sorted(left)}"
    assert "{" not in french and "}" not in french, french
    for value in plain_values(fact):
        assert value in french, f"{value!r} missing from {french!r}"
    prose = re.sub(r"\d{1,2}:\d{2}", "", french)  # the hours of a time keep their colon
    for value in sorted(plain_values(fact), key=len, reverse=True):
        prose = prose.replace(value, "")  # notation as the engine writes it (``c3; c4``)
    assert not re.search(r"(?<=[^\s\u202f])[:;?](?=\s|$)", prose), french
    assert not re.search(r" [:;?!»]|« ", prose), french
    assert '"' not in french and "'" not in re.sub(r"'[^' ]*'", "", french), french  # repr() quotes a token
    return french


def raised(play) -> Fact:
    with pytest.raises(GameError) as error:
        play()
    return error.value.fact


# -- the engines: illegal moves, played -------------------------------------------------------------

CROSS = CEPHALOPOD.from_position("...../..a1../.b2.b3./..a1../..... b")
"""c3 empty with four neighbours: b3 shows 2, c2 and c4 show 1, d3 shows 3 (captures are compulsory there)."""

CEPHALOPOD_MOVES = {
    "c3": "cephalopod-capture-compulsory",
    "c3=1": "cephalopod-no-capture-makes",
    "c3=4": "cephalopod-ambiguous-total",
    "c3=b3+a1": "cephalopod-not-next-to",
    "c3=b3+b3": "cephalopod-named-twice",
    "c3=b3": "cephalopod-capture-too-few",
    "c3=b3+c2+c4+d3": "cephalopod-capture-too-much",
    "c3=q": "cephalopod-bad-capture",
    "a1=2": "cephalopod-nothing-to-capture",
    "b3": "cephalopod-occupied",
    "z9": "cephalopod-off-board",
    "xx": "cephalopod-not-a-move",
    "c3#5": "stale-move",
}


@pytest.mark.parametrize(("move", "code"), CEPHALOPOD_MOVES.items())
def test_every_kind_of_illegal_cephalopod_move_is_refused_in_french(move, code):
    fact = raised(lambda: CEPHALOPOD.play(CROSS, move))
    assert fact.code == code
    french = assert_french(Fact("illegal-move", reason=fact))
    assert french.startswith(f"Coup illégal{NNBSP}: ")


def test_a_capture_refusal_uses_the_words_of_the_french_rules():
    french = FRENCH.say(raised(lambda: CEPHALOPOD.play(CROSS, "c3")))
    assert french.startswith(f"la capture est obligatoire en c3{NNBSP}: c3=b3+c2, ")


START = CUBEO.new()
MERGEABLE = CUBEO.from_position("1:3@0,0 1:3@1,0 1:1@1,1 2:1@2,0 / 1 / 6")
"""Paren: a 3 and a 3 side by side plus a 1 on top; Angle's 1 to the right."""
ROW = CUBEO.from_position("1:1@0,0 1:1@1,0 1:1@2,0 2:1@3,0 / 1 / 6")
"""Paren's three 1s in a row, Angle's 1 at the end: the middle one holds the formation together."""
RING = "2:1@0,0 1:1@1,0 2:1@2,0 1:1@0,1 1:1@2,1 2:1@0,2 1:1@1,2 2:1@2,2 / 1 / 8"
"""Eight dice around the hole at 1,1."""

CUBEO_MOVES = [
    (START, "e2e4", "cubeo-not-a-move"),
    (START, "1,3,3->3,4", "cubeo-no-die-of-yours"),
    (START, "1,1,0->1,1", "cubeo-die-of-another"),
    (START, "0,0", "cubeo-where-to"),
    (START, "+1,1", "cubeo-add-not-touching"),
    (START, "+0,0", "cubeo-add-taken"),
    (START, "1,0,0->2,2", "cubeo-reaches"),
    (START, "2,0,0->0,1", "cubeo-wrong-pips"),
    (START, "1,0,0+>1,0", "cubeo-merge-into-enemy"),
    (START, "-0,0", "cubeo-remove-not-allowed"),
    (MERGEABLE, "1,1,1+>0,0", "cubeo-merge-not-beside"),
    (MERGEABLE, "3,0,0+>2,2", "cubeo-merge-into-nothing"),
    (MERGEABLE, "3,0,0->1,0", "cubeo-move-taken"),
    (MERGEABLE, "1,1,1+>0,1", "cubeo-merge-into-nothing"),
    (ROW, "1,1,0->1,1", "cubeo-pinned-moving"),
    (ROW, "1,1,0+>0,0", "cubeo-pinned-taking"),
    (CUBEO.from_position(RING), "+1,1", "cubeo-add-enclosed"),
    (CUBEO.from_position(RING.replace(" / 1 / 8", " 1:1@1,1 / 1 / 9")), "1,1,1+>1,0", "cubeo-enclosed"),
    (CUBEO.from_position("1:1@0,0 1:1@0,1 2:1@1,0 / 1 / 2"), "1,0,1+>0,0", "cubeo-merge-too-few"),
    (
        CUBEO.from_position("1:4@0,0 1:3@1,0 1:1@1,1 2:1@2,0 / 1 / 6", {"samevalue": True}),
        "4,0,0+>1,0",
        "cubeo-samevalue",
    ),
    (CUBEO.new(options={"strict": True}), "1,0,0->1,-1", "cubeo-strict-same-look"),
    (CUBEO.new(options={"remove": True}), "-0,0", "cubeo-remove-last-die"),
]


@pytest.mark.parametrize(("state", "move", "code"), CUBEO_MOVES)
def test_every_kind_of_illegal_cubeo_move_is_refused_in_french(state, move, code):
    fact = raised(lambda: CUBEO.play(state, move))
    assert fact.code == code
    assert_french(Fact("illegal-move", reason=fact))


AROUND_C2 = state_with(c2="at3", c3="bt1", f5="bo3", e6="bt2", d2="ac4", a2="ad5", **PARKED)
"""South's Tetra on c2 shows 3, North's Tetra blocks c3; South's Cube on d2, Dodeca on a2."""

DODECA_MOVES = [
    (AROUND_C2, "c2-c5", "dodeca-blocked"),
    (AROUND_C2, "c2-a2", "dodeca-friendly-die"),
    (AROUND_C2, "c2xf5", "dodeca-which-face"),
    (AROUND_C2, "c2-d3", "dodeca-cannot-move-that-way"),
    (AROUND_C2, "d2xd3", "dodeca-cannot-move-that-way"),
    (AROUND_C2, "e6-e7", "dodeca-die-of-another"),
    (AROUND_C2, "c2-c2", "dodeca-standing-still"),
    (AROUND_C2, "roll d4", "dodeca-empty-square"),
    (AROUND_C2, "q9", "dodeca-not-a-move"),
    (AROUND_C2, "c2-k2", "dodeca-off-board"),
    (AROUND_C2, "roll", "dodeca-reroll-which"),
    (state_with(c2="at3", **PARKED), "c2-d4", "dodeca-not-straight"),
    (state_with(c2="at3", **PARKED), "c2-c4", "dodeca-wrong-distance"),
    (state_with(c2="at3", **PARKED), "c2-c5=1", "dodeca-wrong-face"),
    (state_with(c2="at3", c3="bt1", **PARKED), "c2xc3", "dodeca-cannot-capture-that-way"),
    (state_with(rerolled="a", c2="at3", **PARKED), "roll c2", "dodeca-rerolled-last-turn"),
]


@pytest.mark.parametrize(("state", "move", "code"), DODECA_MOVES)
def test_every_kind_of_illegal_dodeca_move_is_refused_in_french(state, move, code):
    fact = raised(lambda: DODECA.play(state, move))
    assert fact.code == code
    assert_french(Fact("illegal-move", reason=fact))


def test_a_dodeca_refusal_names_the_sides_in_french():
    fact = raised(lambda: DODECA.play(AROUND_C2, "e6-e7"))
    assert FRENCH.say(fact) == f"vous n’avez pas de dé en e6{NNBSP}: le dé qui s’y trouve, un Tetra, appartient à Nord"
    assert ENGLISH.say(fact) == "there is no die of yours on e6: the Tetra there is North's"


def test_a_dodeca_die_says_how_it_moves_in_french():
    fact = raised(lambda: DODECA.play(AROUND_C2, "c2-d3"))
    assert FRENCH.say(fact) == (
        f"un Tetra se déplace orthogonalement et capture en diagonale{NNBSP}: "
        "il ne peut donc pas aller en diagonale sur la case vide d3"
    )


@pytest.mark.parametrize(
    "play",
    [
        lambda: CEPHALOPOD.new(options={"size": 12}),
        lambda: CEPHALOPOD.new(players=7),
        lambda: DODECA.new(players=3),
        lambda: CEPHALOPOD.from_position("...../..... z"),
        lambda: CUBEO.from_position("1:3@0,0 1:3@5,5 2:1@1,0 / 1 / 6"),
        lambda: DODECA.from_position("nonsense"),
    ],
)
def test_challenges_and_positions_are_refused_in_french(play):
    with pytest.raises((InvalidOptions, InvalidPosition)) as error:
        play()
    assert_french(error.value.fact)


# -- the engines: what a move did, how a game ended --------------------------------------------------


def reported(game, before, move):
    notation, after = game.play_notated(before, move)
    return game.report(before, notation, after), after


def six_rows(rows: str, to_move: str) -> str:
    """A Cephalopod position of sixes (which never capture), rows of seat letters, top row first."""
    return "/".join("".join("." if c == "." else f"{c}6" for c in row) for row in rows.split()) + " " + to_move


def test_a_cephalopod_capture_is_told_after_the_players_name():
    report, _ = reported(CEPHALOPOD, CEPHALOPOD.from_position("...../...../.b1.a3./..a2../..... b"), "c3=6")
    assert "alice " + assert_french(report.fact) == "alice a joué c3=b3+c2+d3 et capturé 3 dés (un 1, un 2 et un 3)"


def test_a_cephalopod_elimination_and_its_end_are_told_in_french():
    report, after = reported(
        CEPHALOPOD, CEPHALOPOD.from_position(six_rows("aaaa abbb bbcc cdd.", "d"), players=4), "d1"
    )
    assert assert_french(report.fact) == "a joué d1 et rempli le tablier"
    assert assert_french(report.why).startswith("sont éliminés, à égalité pour le moins de cases (3 chacun), quand")
    full = CEPHALOPOD.from_position(six_rows("aaaaa aaabb bbbbb bbccc cccc.", "a"), players=4, seats=[0, 1, 2, 3])
    report, _ = reported(CEPHALOPOD, full, "e1")
    assert "le joueur sans aucune case" in assert_french(report.why)


def test_cubeo_moves_are_told_in_french():
    merge = CUBEO.from_position("1:4@0,0 1:3@0,1 1:1@1,1 2:1@1,0 / 1 / 6")
    for state, move in [(START, "+0,1"), (START, "0,0->1,1"), (merge, "0,1+>0,0")]:
        report, after = reported(CUBEO, state, move)
        assert_french(report.fact)
    result = CUBEO.result(after)
    assert "alice " + assert_french(result.fact) == "alice a gagné par une fusion qui donne 7"


def test_dodeca_moves_and_captures_are_told_in_french():
    report, _ = reported(DODECA, state_with(c2="at1", d3="bc5", **PARKED), "c2xd3")
    assert assert_french(report.fact) == f"a joué c2xd3=2{NNBSP}: son Tetra a capturé le dé de d3, un Cube, et montre 2"
    report, after = reported(DODECA, state_with(a1="ad2", a3="bd5", j1="ad1"), "a1xa3=3")
    assert assert_french(report.fact).endswith(f"{NNBSP}; l’adversaire n’a plus de Dodeca")
    assert assert_french(DODECA.result(after).fact) == "a gagné en capturant les deux Dodecas adverses"


# -- the command layer: parsing, help, refusals ---------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "cephalopod jump 101 alice secret c3",
        "hello there",
        "cephalopod",
        "signup 9lives secret",
        "cephalopod show 101#x",
        "signup alice secret notanaddress",
        "cephalopod seek alice secret many",
        "language alice secret klingon",
    ],
)
def test_a_line_the_server_cannot_read_is_explained_in_french(line):
    with pytest.raises(CommandError) as error:
        parse_command(line)
    assert_french(error.value.fact)


def test_every_verbs_help_line_is_french():
    for verb in (*ACCOUNT_VERBS, *GAME_VERBS):
        assert_french(verb.about)


AT = datetime(2026, 11, 26, 14, 30)

REFUSALS = [
    Fact("not-your-turn", userid="bob"),
    Fact("illegal-move", reason=Fact("cephalopod-occupied", cell="c3")),
    Fact("no-such-board", title="Cephalopod", board=101),
    Fact("wrong-password", userid="alice"),
    Fact("password-wait-own", userid="alice", until=AT),
    Fact("challenges-per-hour", userid="alice", count=5, after=AT),
    Fact(
        "challenge-policies",
        refusals=Fact(
            "semicolon-list",
            first=Fact("takes-no-challenges", userid="bob", title="Dodeca"),
            rest=Fact("at-game-limit", userid="carol", playing=1, title="Dodeca"),
        ),
    ),
    Fact(
        "reply-stale",
        why=Fact("reply-moved-on", replied_at=6, now_at=8),
        then=Fact("reply-if-still", doing=Fact("doing-propose-draw")),
    ),
    Fact("proposal-waiting", proposal=Fact("undo-proposal"), title="Cubeo", board=102),
    Fact(
        "vacation-over-allowance",
        starts=AT,
        ends=AT + timedelta(days=40),
        length=Fact("days", count=40),
        allowance=Fact("days", count=30),
        left=Fact("days-and-hours", days=Fact("days", count=2), hours=Fact("hours", count=3)),
    ),
    Fact("queue-answer-illegal", when="c3 c4", move="d3", reason=Fact("cephalopod-occupied", cell="d3")),
]


@pytest.mark.parametrize("fact", REFUSALS, ids=[fact.code for fact in REFUSALS])
def test_refusals_are_french(fact):
    assert_french(fact)


@pytest.mark.parametrize(("count", "word"), [(0, "coup,"), (1, "coup,"), (2, "coups,")])
def test_french_plurals_count_zero_and_one_as_singular(count, word):
    french = FRENCH.say(Fact("fewer-moves", title="Cubeo", board=101, count=count, at_move=9))
    assert french == f"La partie 101 de Cubeo compte {count} {word} pas 9"


# -- the store and the mail layer -----------------------------------------------------------------------

RECORDED = [
    Fact("won-when-left", userid="bob", did=Fact("resigned")),
    Fact("left-and-the-others-play-on", did=Fact("forfeited-on-time", why=Fact("no-move-in", span=timedelta(days=3)))),
    Fact("called-off-in-the-first-round", what=Fact("draw-agreed")),
    Fact("thinking-time-ran-out", span=timedelta(days=10, hours=4)),
    Fact("took-back-move", number=7, move="c3=b3+c2"),
    Fact("mail-unreadable", why="the mail is too large"),
    Fact("too-many-answers", count=60, limit=50, sent=50),
]


@pytest.mark.parametrize("fact", RECORDED, ids=[fact.code for fact in RECORDED])
def test_the_records_and_the_mail_layers_words_are_french(fact):
    assert_french(fact)


def test_a_span_of_time_inside_a_fact_is_said_in_french():
    assert FRENCH.say(Fact("no-move-in", span=timedelta(days=3))) == "aucun coup en 3\u00a0jours"


# -- every fact there is ----------------------------------------------------------------------------


def _samples(message: str | Plural) -> dict[str, object]:
    """A value for each parameter of `message`, of the kind its English formats: a moment where it
    writes a date (``{until:moment}``, ``{until:%Y-%m-%d}``), a span of time where it says one, else a number."""
    english = message.other if isinstance(message, Plural) else message
    dated = {
        name
        for _, name, spec, _ in string.Formatter().parse(english)
        if name and spec and ("%" in spec or spec in MOMENT_SPECS)
    }
    spans = {"span", "length", "allowance", "left"}
    return {
        name: AT if name in dated else timedelta(days=2, hours=3) if name in spans else 2
        for name in placeholders(message)
    }


@pytest.mark.parametrize("code", sorted(code for code in CATALOGUE if code != "unconverted-words"))
def test_every_fact_there_is_can_be_said_in_french(code):
    """Each code with parameters of the kinds its English takes: the French fills them all and
    reads as French (the handful of messages that are only their parameters, ``{first}, {rest}``,
    say just those)."""
    if code.startswith("arguments-"):
        return  # a usage line's arguments are the server's notation: tests/i18n/test_usage_lines.py checks them
    message = CATALOGUE[code]
    params = _samples(message)
    fact = Fact(code, **params)
    english = message.other if isinstance(message, Plural) else message
    if not re.search(r"[a-z]{3,}", "".join(literal for literal, _, _, _ in string.Formatter().parse(english))):
        assert "{" not in FRENCH.say(fact)
        return
    assert_french(fact)
