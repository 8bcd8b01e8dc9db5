"""Building the wheel: the languages' catalogues compiled into it.

The compiled catalogues (``pbm/locale/*/LC_MESSAGES/*.mo``) are not kept in git: `make`
compiles them in a checkout. A wheel built from a fresh clone (``pip install .``, ``pipx
install .``) would lack them, so this hook compiles every ``.po`` into a folder of the build's
own and adds the results to the wheel beside their ``.po``. The source tree is left as it was.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompileCatalogues(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return  # an editable install reads the checkout, where make compiles them
        compiled = Path(tempfile.mkdtemp(prefix="pbm-catalogues-"))
        for po in sorted(Path(self.root, "pbm", "locale").glob("*/LC_MESSAGES/*.po")):
            inside = po.relative_to(self.root).with_suffix(".mo")
            with po.open("rb") as file:
                catalogue = read_po(file, locale=po.parent.parent.name, domain=po.stem)
            mo = compiled / inside
            mo.parent.mkdir(parents=True, exist_ok=True)
            with mo.open("wb") as file:
                write_mo(file, catalogue, use_fuzzy=False)
            build_data["force_include"][str(mo)] = inside.as_posix()
