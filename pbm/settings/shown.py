"""A setting's value as ``pbm config show`` prints it: as the setting is written, secrets hidden."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from pbm.timekeeping.durations import written

SECRET_SETTINGS = frozenset({"secret_key", "mail_password_command"})
"""Settings whose value is a secret as a whole: `shown` says only whether they are set."""
HIDDEN = "********"


def shown(name: str, value: Any) -> str:
    """A setting's value as ``pbm config show`` prints it: secrets hidden, and the password of a
    URL (``postgresql+psycopg://pbm:PASSWORD@db/pbm``, or ``?password=``) replaced."""
    if name in SECRET_SETTINGS:
        return "(unset)" if value is None else f"{HIDDEN} (set)"
    if value is None:
        return "(unset)"
    if isinstance(value, frozenset):
        return ",".join(sorted(value)) or "(none)"
    # as the settings are written (PBM_NAGTIME=7d, PBM_CONFIRM_ADDRESSES=on), not as Python prints them
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, timedelta):
        return written(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    return _without_password(text) if "://" in text else text


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        credentials, _, host = netloc.rpartition("@")
        user, colon, _password = credentials.partition(":")
        netloc = f"{user}:{HIDDEN}@{host}" if colon else f"{user}@{host}"
    query = "&".join(
        f"{key}={HIDDEN}" if key.lower() in ("password", "passfile", "sslpassword") else f"{key}{eq}{value}"
        for key, eq, value in (item.partition("=") for item in parts.query.split("&") if item)
    )
    if (netloc, query) == (parts.netloc, parts.query):
        return url  # nothing to hide; and geturl() would drop the empty host of sqlite:///FILE
    return parts._replace(netloc=netloc, query=query).geturl()
