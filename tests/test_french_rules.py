"""The French rules read as French and show only moves the server would read.

Plain file checks: nothing here imports pbm or anything installed.
"""

import re
from pathlib import Path

import pytest

FRENCH = Path(__file__).resolve().parents[1] / "pbm" / "locale" / "fr"
FILES = ["rules/cephalopod.txt", "rules/cubeo.txt", "rules/dodeca.txt", "options.txt"]
NNBSP = "\u202f"

# A move as each game writes it (the optional #N guard included).
GUARD = r"(?:#\d+)?"
CEPHALOPOD_CELL = r"[a-e][1-5]"
CUBEO_NUMBER = r"-?\d+"
DODECA_CELL = r"(?:[a-j](?:10|[1-9]))"
MOVES = {
    "cephalopod": re.compile(
        rf"{CEPHALOPOD_CELL}(?:=(?:{CEPHALOPOD_CELL}(?:\+{CEPHALOPOD_CELL})+|[1-6]))?{GUARD}"
    ),
    "cubeo": re.compile(
        rf"(?:[+-]{CUBEO_NUMBER},{CUBEO_NUMBER}"
        rf"|(?:\d+,)?{CUBEO_NUMBER},{CUBEO_NUMBER}[-+]>{CUBEO_NUMBER},{CUBEO_NUMBER}){GUARD}"
    ),
    "dodeca": re.compile(rf"(?:{DODECA_CELL}[-x]{DODECA_CELL}(?:=(?:10|[1-9]))?|roll {DODECA_CELL}){GUARD}"),
}
CELLS = {"cephalopod": CEPHALOPOD_CELL, "cubeo": rf"{CUBEO_NUMBER},{CUBEO_NUMBER}", "dodeca": DODECA_CELL}
# What looks like a move in a sentence: a cell followed by move punctuation.
CANDIDATES = {
    "cephalopod": re.compile(r"(?<![\w#])[a-z]\d+(?:=[\w+]+)?(?:#\d+)?"),
    "cubeo": re.compile(r"(?<![\w#,.>])(?:\+-?|-)?\d+(?:,-?\d+){1,2}(?:[-+]>-?\d+,-?\d+)?(?:#\d+)?"),
    "dodeca": re.compile(r"(?<![\w#])(?:roll )?[a-z]\d+(?:[-x][a-z]\d+(?:=\d+)?)?(?:#\d+)?"),
}
NOTATION_COLUMN = re.compile(r"^ {4}(?P<notation>[-+(\w][^ ]*(?: [^ ]+)?) {2,}(?P<prose>.*)$")


def verbatim(lines: list[str]) -> set[int]:
    """Lines of drawings and commands: blocks indented 8 or more, after a blank line."""
    found: set[int] = set()
    for i, line in enumerate(lines):
        if line.startswith(" " * 8) and i and (not lines[i - 1].strip() or i - 1 in found):
            found.add(i)
    return found


def prose(path: str) -> list[tuple[int, str]]:
    """Each line's French, without drawings, commands and the notation column of tables."""
    lines = (FRENCH / path).read_text(encoding="utf-8").splitlines()
    skip = verbatim(lines)
    out = []
    for i, line in enumerate(lines):
        if i in skip:
            continue
        match = NOTATION_COLUMN.match(line)
        if match and (not match["notation"][0].isalpha() or re.match(r"[a-z]\d|roll ", match["notation"])):
            line = match["prose"]  # a table of notations: the French is what follows
        out.append((i + 1, line))
    return out


@pytest.mark.parametrize("path", FILES)
def test_the_file_is_utf8_and_fits_a_mail(path):
    text = (FRENCH / path).read_bytes().decode("utf-8")
    lines = text.splitlines()
    assert lines[1] == "=" * len(lines[0]), "a title line, then a line of '=' as long"
    assert [n for n, line in enumerate(lines, 1) if len(line) > 76] == []


@pytest.mark.parametrize("path", FILES)
def test_high_punctuation_and_guillemets_have_a_narrow_no_break_space(path):
    for number, line in prose(path):
        for match in re.finditer(r"(.)([:;!?])", line):
            assert match[1] == NNBSP, f"{path}:{number}: {match[2]!r} without U+202F: {line!r}"
        assert not re.search(rf"«[^{NNBSP}]|[^{NNBSP}]»", line), f"{path}:{number}: guillemets: {line!r}"
        assert "'" not in line and '"' not in line, f"{path}:{number}: typewriter quotes: {line!r}"


@pytest.mark.parametrize("game", sorted(MOVES))
def test_every_move_shown_is_one_the_server_reads(game):
    """Each cell named is on the board, and each move is in the game's notation."""
    text = (FRENCH / "rules" / f"{game}.txt").read_text(encoding="utf-8")
    moves = []
    for line in text.splitlines():
        if re.match(rf"\s+{game} challenge ", line):
            continue  # the userids are not moves
        if re.match(rf"\s+{game} move ", line):
            line = line.split()[-1]  # the move, after the board, userid and password
        for candidate in CANDIDATES[game].findall(line):
            if re.fullmatch(CELLS[game], candidate):
                continue  # a cell on the board (a bare placement, for Cephalopod)
            assert MOVES[game].fullmatch(candidate), f"{game}: {candidate!r} is not a move on its board"
            moves.append(candidate)
    assert len(moves) >= 3, f"{game}: the rules show too few moves"
