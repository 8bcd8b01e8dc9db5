"""Data flows one way (DESIGN.md): mail/ -> commands/ -> store/ + games/. A lower layer never
imports a higher one, so each can be read, tested and replaced without what stands above it.

Read from the source (the AST), deferred imports inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pbm

SOURCE = Path(pbm.__file__).parent

ABOVE = {
    "store": ("pbm.mail", "pbm.commands", "pbm.web", "pbm.serving.server", "pbm.cli"),
    "games": ("pbm.mail", "pbm.commands", "pbm.web", "pbm.store", "pbm.serving.server", "pbm.cli", "pbm.bots"),
    "bots": ("pbm.mail", "pbm.commands", "pbm.web", "pbm.store", "pbm.serving.server", "pbm.cli"),
    "commands": ("pbm.mail", "pbm.web", "pbm.serving.server", "pbm.cli"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_a_layer_imports_nothing_from_the_layers_above_it(layer):
    backwards = [
        f"{path.relative_to(SOURCE.parent)}:{line}: {name}"
        for path in sorted((SOURCE / layer).rglob("*.py"))
        for line, name in _imports(path)
        if name.startswith(ABOVE[layer])
    ]
    assert not backwards, "\n".join(backwards)


def test_the_bots_are_as_pure_as_the_engines_they_drive():
    """pbm.bots decides moves from positions: of pbm it needs the engines and facts, nothing else."""
    allowed = ("pbm.games", "pbm.facts", "pbm.bots")
    strays = [
        f"{path.relative_to(SOURCE.parent)}:{line}: {name}"
        for path in sorted((SOURCE / "bots").rglob("*.py"))
        for line, name in _imports(path)
        if name.startswith("pbm") and not name.startswith(allowed)
    ]
    assert not strays, "\n".join(strays)
