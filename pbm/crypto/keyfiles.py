"""Files a server makes once and then only reads: its secret key, its signing keys.

Several processes may start at the same moment on one data directory (two `pbm tick` from cron
and a timer, `pbm serve` and `pbm process` from the MTA): the first makes the file, the others
must read the same whole file, never an empty or half-written one, and never write another.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def create_once(path: Path, text: str, *, mode: int = 0o600) -> bool:
    """Write `text` to `path` unless it exists; True when this call made it.

    The text goes to a temporary file beside `path` first, which is then linked into place: the
    link fails if another process made `path` meanwhile, and `path` never exists without its
    whole text, so whoever sees it reads all of it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        temporary.unlink(missing_ok=True)
    return True
