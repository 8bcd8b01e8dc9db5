"""Where the files shipped beside the code live.

In the wheel, ``templates/`` and ``migrations/`` are packaged inside ``pbm/``;
in a source checkout (editable install) they sit at the top of the repository.
"""

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    packaged = _PACKAGE / name
    if packaged.is_dir():
        return packaged
    checkout = _PACKAGE.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"pbm is installed without its {name}/ folder")
