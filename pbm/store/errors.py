"""Telling a database outage from a mail's own failure.

Only an unreachable database is a reason to stop processing and try again
later: then every mail would fail the same way. Any other error while a mail
is applied — bad data (a value too long, a NUL byte, a constraint), a bug, an
encoding error — is that mail's failure, and must not hold up the mails after
it. Between the two lie the errors that pass by themselves (a deadlock, a
serialisation failure, a lock wait that timed out): the mail is tried again
at once.
"""

from __future__ import annotations

import enum
import sqlite3

from sqlalchemy import exc

# SQLSTATE classes: 40001 serialization_failure, 40P01 deadlock_detected,
# 55P03 lock_not_available (lock_timeout).
_TRANSIENT_SQLSTATES = {"40001", "40P01", "55P03"}
_SQLITE_BUSY = ("database is locked", "database table is locked", "database is busy")


class DatabaseUnavailable(Exception):
    """The database cannot be reached: stop, keep the mail pending, try again later."""


class Failure(enum.Enum):
    OUTAGE = "outage"
    """Perhaps the database is gone: worth a probe before blaming the mail."""
    PASSING = "passing"
    """Contention that passes: try the same mail again."""
    MAIL = "mail"
    """The mail's own failure."""


def classify(error: BaseException) -> Failure:
    if isinstance(error, DatabaseUnavailable):
        return Failure.OUTAGE
    if not isinstance(error, exc.DBAPIError):
        return Failure.OUTAGE if isinstance(error, exc.DisconnectionError) else Failure.MAIL
    original = error.orig
    if getattr(original, "sqlstate", None) in _TRANSIENT_SQLSTATES:
        return Failure.PASSING
    if isinstance(original, sqlite3.OperationalError) and str(original).startswith(_SQLITE_BUSY):
        return Failure.PASSING
    if error.connection_invalidated or isinstance(error, (exc.OperationalError, exc.InterfaceError)):
        return Failure.OUTAGE
    return Failure.MAIL
