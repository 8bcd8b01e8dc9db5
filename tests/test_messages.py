"""Words are not code: every fact raised or built in `pbm/` names a code its layer's catalogue
says, with every parameter the message needs; no sentence is written in Python.

Read from the source (the AST), so a raise on a path no other test reaches is checked too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pbm
from pbm.facts import placeholders
from pbm.words import every_catalogue

SOURCE = Path(pbm.__file__).parent

FACTUAL = {
    # engines
    "GameError", "IllegalMove", "StaleMove", "InvalidOptions", "InvalidPosition", "UnknownGame",
    # commands
    "Refused", "CommandError",
    # the web
    "NotFound", "BadRequest",
    # facts themselves
    "Fact",
}


def _calls() -> Iterator[tuple[str, ast.Call]]:
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in FACTUAL and node.args:
                    yield f"{path.relative_to(SOURCE.parent)}:{node.lineno}", node


def _literal_code(node: ast.Call) -> str | None:
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def test_every_code_raised_is_in_a_catalogue_with_its_parameters():
    catalogue = every_catalogue()
    wrong = []
    for where, node in _calls():
        code = _literal_code(node)
        if code is None or " " in code or code not in catalogue and not code.islower():
            continue  # not a code (a variable, or words still to convert: see below)
        if code not in catalogue:
            wrong.append(f"{where}: {code!r} is in no catalogue")
            continue
        given = {keyword.arg for keyword in node.keywords}
        if None in given:
            continue  # **params: checked where they are built
        missing = placeholders(catalogue[code]) - given
        if missing:
            wrong.append(f"{where}: {code!r} needs {sorted(missing)}")
    assert not wrong, "\n".join(wrong)


def test_no_sentence_is_written_in_python():
    written = [
        where
        for where, node in _calls()
        if isinstance(node.args[0], ast.JoinedStr)
        or (_literal_code(node) is not None and " " in (_literal_code(node) or ""))
    ]
    assert not written, f"{len(written)} sentences written in Python:\n" + "\n".join(written)


def test_no_code_is_in_two_layers_catalogues():
    """One code, one message: a code two layers define would say one of them wrongly."""
    from pbm.commands import messages as commands
    from pbm.games import messages as games
    from pbm.words import mail_messages as mail

    layers = {"games": games.MESSAGES, "commands": commands.MESSAGES, "mail": mail.MESSAGES}
    owners: dict[str, list[str]] = {}
    for layer, catalogue in layers.items():
        for code in catalogue:
            owners.setdefault(code, []).append(layer)
    assert {code: found for code, found in owners.items() if len(found) > 1} == {}
