"""The kinds of value a setting takes, each read from the text of its variable (or its key in the
configuration file): addresses to listen on, where mail comes from and goes, spans of time,
userids. Each reader raises `ValueError` saying what it expected; `pbm.config` names the setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, quote, unquote, urlsplit

from pydantic import BeforeValidator

from pbm.timekeeping import clocks
from pbm.timekeeping.durations import DAY, HOUR, SECOND, in_units_of, parse_duration


@dataclass(frozen=True)
class ListenAddress:
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


@dataclass(frozen=True)
class Outbound:
    """Where replies go: a maildir folder, an SMTP relay, or a provider's submission service as
    the club's account (`user`): ``submission`` (STARTTLS, port 587) or ``smtps`` (TLS, 465)."""

    kind: str  # "maildir", "smtp", "submission" or "smtps"
    path: Path | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None

    def __str__(self) -> str:
        if self.kind == "maildir":
            return f"maildir:{self.path}"
        account = f"{quote(self.user, safe='')}@" if self.user else ""
        return f"{self.kind}://{account}{self.host}:{self.port}"


@dataclass(frozen=True)
class Inbound:
    """A club's mailbox at a provider, read over IMAP (`PBM_INBOUND`, `pbm.mail.mailbox`):
    ``imaps`` (TLS from the start, port 993) or ``imap`` (STARTTLS, port 143)."""

    scheme: str
    user: str
    host: str
    port: int
    folder: str = "INBOX"

    def __str__(self) -> str:
        return f"{self.scheme}://{quote(self.user, safe='')}@{self.host}:{self.port}/{self.folder}"


DKIM_SELECTOR = re.compile(r"[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*")
"""A DKIM selector: one or more DNS labels (RFC 6376, 3.1)."""


def listen_address(value: Any) -> ListenAddress:
    if isinstance(value, ListenAddress):
        return value
    text = str(value).strip()
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdecimal() or not 0 <= int(port) <= 65535:
        raise ValueError(f"expected host:port such as 127.0.0.1:2525, got {text!r}")
    return ListenAddress(host, int(port))


def metrics_listen(value: Any) -> ListenAddress | None:
    """``PORT`` alone listens on loopback: metrics are for a scraper on this machine unless said otherwise."""
    if value is None or isinstance(value, ListenAddress):
        return value
    text = str(value).strip()
    return listen_address(f"127.0.0.1:{text}" if text.isdecimal() else text)


def outbound(value: Any) -> Outbound:
    if isinstance(value, Outbound):
        return value
    text = str(value).strip()
    if text.startswith("maildir:"):
        path = text.removeprefix("maildir:")
        if not path:
            raise ValueError("maildir: needs a folder, e.g. maildir:var/outbox")
        return Outbound("maildir", path=Path(path))
    if text.startswith("smtp://"):
        parts = urlsplit(text)
        try:
            port = parts.port or 25
        except ValueError:
            raise ValueError(f"bad port in {text!r}") from None
        if not parts.hostname:
            raise ValueError(f"smtp:// needs a host, e.g. smtp://127.0.0.1:25, got {text!r}")
        return Outbound("smtp", host=parts.hostname, port=port)
    for kind, port in SUBMISSION_PORTS.items():
        if text.startswith(f"{kind}://"):
            user, host, port, _ = _account_url(text, port)
            return Outbound(kind, host=host, port=port, user=user)
    raise ValueError(
        "expected maildir:FOLDER or smtp://HOST:PORT (or a provider's submission://USER@HOST[:587] or"
        f" smtps://USER@HOST[:465]), got {text!r}"
    )


SUBMISSION_PORTS = {"submission": 587, "smtps": 465}
IMAP_PORTS = {"imaps": 993, "imap": 143}


def _account_url(text: str, default_port: int) -> tuple[str, str, int, str]:
    """(user, host, port, path) of ``SCHEME://USER@HOST[:PORT][/PATH]``, the user part percent-decoded
    (``games%40ourclub.org``). A password in the URL is refused: it would show in the process list
    and in ``pbm config show``; it comes from PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND."""
    parts = urlsplit(text)
    scheme = parts.scheme
    if parts.password is not None:
        raise ValueError(f"{scheme}:// takes no password in the URL: use PBM_MAIL_PASSWORD_FILE or _COMMAND")
    try:
        port = parts.port or default_port
    except ValueError:
        raise ValueError(f"bad port in {scheme}://...") from None
    if not parts.username or not parts.hostname:
        raise ValueError(f"{scheme}:// needs the account and a host: {scheme}://USER@HOST[:PORT], got {text!r}")
    return unquote(parts.username), parts.hostname, port, unquote(parts.path.lstrip("/"))


def inbound(value: Any) -> Inbound | None:
    if value is None or isinstance(value, Inbound):
        return value
    text = str(value).strip()
    scheme = text.partition("://")[0]
    if not text or scheme not in IMAP_PORTS:
        raise ValueError(f"expected imaps://USER@HOST[:PORT]/FOLDER or imap://USER@HOST[:PORT]/FOLDER, got {text!r}")
    user, host, port, folder = _account_url(text, IMAP_PORTS[scheme])
    return Inbound(scheme, user, host, port, folder or "INBOX")


def time_rule(value: Any) -> timedelta:
    """A time rule's span (`PBM_NAGTIME`, `PBM_FORFEITTIME`): bare days, at least an hour, at most
    ten years, as a challenge's own ``--nagtime`` may be."""
    span = parse_duration(value, bare=DAY)
    if not clocks.SHORTEST <= span <= clocks.LONGEST:
        raise ValueError(f"a time rule is at least an hour and at most ten years, got {value!r}")
    return span


Seconds = BeforeValidator(in_units_of(SECOND))
"""A setting named ``..._SECONDS`` (or a timeout): a span in any spelling
(`pbm.timekeeping.durations`), bare seconds."""
Hours = BeforeValidator(in_units_of(HOUR))
"""A setting named ``..._HOURS``: a span in any spelling, bare hours."""
Days = BeforeValidator(in_units_of(DAY))
"""A setting named ``..._DAYS``: a span in any spelling, bare days."""


def bad_port(parts: SplitResult) -> bool:
    try:
        return parts.port == 0
    except ValueError:
        return True


def bots_answer_seeks(value: Any) -> timedelta | None:
    """``off`` (or nothing): bots take no seek; else how long a seek waits for a person first, a
    span (``30m``, ``2h``; a bare number is in hours)."""
    if value is None or isinstance(value, timedelta):
        return value
    if str(value).strip().lower() in ("", "off", "no", "false", "0"):
        return None
    span = parse_duration(value, bare=HOUR)
    if span <= timedelta(0):
        raise ValueError(f"expected off, or a span such as 30m or 2h, got {value!r}")
    return span


def userids(value: Any) -> frozenset[str]:
    if isinstance(value, frozenset):
        return value
    words = [word.lower() for word in str(value).replace(",", " ").split()]
    bad = [word for word in words if not re.match(r"^[a-z][a-z0-9_.-]{1,31}$", word)]
    if bad:
        raise ValueError(f"not userids: {', '.join(bad)}")
    return frozenset(words)
