"""One order of layers for all of pbm (DESIGN.md), kept by import-linter: the contracts are in
pyproject.toml (``[tool.importlinter]``) and ``make lint`` runs them too. A lower layer never
imports a higher one, so each can be read, tested and replaced without what stands above it.

The contracts read the source, deferred imports inside functions and those for type checking
included. Each runs here on its own, against the tree under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pbm

CHECKOUT = Path(pbm.__file__).parent.parent
SETTINGS = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = SETTINGS["tool"]["importlinter"]["contracts"]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


@pytest.mark.parametrize("contract", CONTRACTS, ids=[contract["id"] for contract in CONTRACTS])
def test_the_imports_keep_the_contract(contract):
    checked = subprocess.run(
        [LINT_IMPORTS, "--contract", contract["id"], "--no-cache"],
        cwd=CHECKOUT,
        env={**os.environ, "PYTHONPATH": str(CHECKOUT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, f"{contract['name']}\n{checked.stdout}{checked.stderr}"


def test_no_contract_excuses_an_import():
    """The order holds without exceptions: a needed upward import is a helper to move down."""
    assert [contract["id"] for contract in CONTRACTS if contract.get("ignore_imports")] == []


def test_every_package_and_module_of_pbm_has_its_layer():
    """The layers contract is exhaustive: a new package must be given its place in the order."""
    (layers,) = [contract for contract in CONTRACTS if contract["type"] == "layers"]
    assert layers["containers"] == ["pbm"] and layers["exhaustive"] is True
