"""The house's sizes (issue 44): no module of `pbm` over 600 lines outside the games' engines,
and no function over 60, so that each can be read in one sitting.

A game's engine is one module that teaches its rules (DESIGN.md): it may be long. Nothing
else is excepted: a module or function that grows over the limits is split where it is added.

Read from the source (the AST): a function's lines run from its ``def`` to its last line,
docstring included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pbm

SOURCE = Path(pbm.__file__).parent
LONGEST_MODULE = 600
LONGEST_FUNCTION = 60

ENGINES = SOURCE / "games"


def _modules() -> list[Path]:
    return sorted(path for path in SOURCE.rglob("*.py") if ENGINES not in path.parents)


def _name(path: Path) -> str:
    return path.relative_to(SOURCE.parent).as_posix()


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, int]]:
    """(qualified name, lines) of every function and method in `tree`, nested ones included."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + node.name
            found.append((name, node.end_lineno - node.lineno + 1))
            found += _functions(node, name + ".")
        elif isinstance(node, ast.ClassDef):
            found += _functions(node, prefix + node.name + ".")
        else:
            found += _functions(node, prefix)
    return found


def _over_the_limits() -> dict[str, str]:
    over = {}
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > LONGEST_MODULE:
            over[_name(path)] = "module"
        for function, lines in _functions(ast.parse(text)):
            if lines > LONGEST_FUNCTION:
                over[f"{_name(path)}:{function}"] = "function"
    return over


def test_no_module_is_over_600_lines_nor_any_function_over_60_outside_the_engines():
    assert _over_the_limits() == {}


def test_the_measure_counts_a_function_from_its_def_to_its_last_line():
    tree = ast.parse("class A:\n    def f(self):\n        '''Doc.'''\n\n        return 1\n")
    assert _functions(tree) == [("A.f", 4)]
