"""What a subcommand opens, and no more: the database alone for what only reads or writes rows,
the whole server (not listening) for what processes or sends mail."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbm.config import Settings

if TYPE_CHECKING:
    from pbm.serving.server import Server
    from pbm.store.database import Database


def database(settings: Settings) -> Database:
    """The database alone, its schema checked: what a read-only admin command opens."""
    from pbm.store.database import Database

    database = Database(settings.database_url, timeout=settings.database_timeout)
    try:
        database.check_schema()
    except BaseException:
        database.dispose()
        raise
    return database


def server(settings: Settings, *, agree: bool = True) -> Server:
    """The whole server as `pbm serve` wires it (not listening): for commands that process or send mail.
    Its keys are the club's (`Server.agree_on_keys`) unless `agree` is False (a rehearsal changes nothing)."""
    from pbm.serving.server import Server

    server = Server(settings)
    try:
        server.database.check_schema()
        if agree:
            server.agree_on_keys()
    except BaseException:
        server.close()
        raise
    return server


@contextlib.contextmanager
def disposed(database: Database) -> Iterator[None]:
    """Close `database`'s connections when the command is done with it."""
    try:
        yield
    finally:
        database.dispose()
