"""Mail that must not be answered: our own come back, bounces, auto-replies, lists.

Answering automatic mail starts loops: an auto-responder answering our answer
answering it. Each rule below looks at one sign, from the most specific to
the most general; the first that holds says why the mail is left unanswered.
(Auto-responders that give no sign at all are caught by rate instead: see
`pbm.mail.outgoing`.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pbm.mail.charsets import printable
from pbm.mail.received_headers import Headers

_DAEMON_LOCAL_PARTS = {
    "mailer-daemon": "sent by a mail system (mailer-daemon)",
    "mailerdaemon": "sent by a mail system (mailer-daemon)",
    "mailer_daemon": "sent by a mail system (mailer-daemon)",
    "postmaster": "sent by a mail system (postmaster)",
    "noreply": "sent from a no-reply address",
    "no-reply": "sent from a no-reply address",
    "no_reply": "sent from a no-reply address",
    "donotreply": "sent from a no-reply address",
    "do-not-reply": "sent from a no-reply address",
    "do_not_reply": "sent from a no-reply address",
}
_BULK_PRECEDENCE = {"bulk", "junk", "list"}
_SUPPRESS_AUTO_REPLIES = {"all", "oof", "autoreply"}


@dataclass(frozen=True)
class Signs:
    """What a mail shows of where it comes from."""

    headers: Headers
    content_type: str
    from_address: str | None
    envelope_sender: str | None
    """None when there was no SMTP envelope (`pbm process` of a stored file)."""
    loop_marker: str
    """Our own address, which our mail carries in its loop header."""


def auto_reason(signs: Signs) -> str | None:
    """Why this mail must not be answered, or None."""
    for rule in RULES:
        reason = rule(signs)
        if reason:
            return reason
    return None


def _our_own_mail(signs: Signs) -> str | None:
    marker = bare_address(signs.loop_marker)
    if marker and any(bare_address(v) == marker for v in signs.headers.all("x-pbm-loop")):
        return "it is our own mail (loop)"
    if marker and any(_same_mailbox(a, marker) for a in (signs.from_address, signs.envelope_sender) if a):
        return "it comes from our own address (loop)"
    return None


def _bounce(signs: Signs) -> str | None:
    if signs.envelope_sender is not None:
        return "bounce (null envelope sender)" if bare_address(signs.envelope_sender) == "" else None
    # Without an envelope, the delivering MTA's Return-Path tells the same.
    headers = signs.headers
    if "return-path" in headers and not bare_address(headers.first("return-path")):
        return "bounce (null Return-Path)"
    return None


def _delivery_report(signs: Signs) -> str | None:
    return "delivery status notification (multipart/report)" if signs.content_type == "multipart/report" else None


def _mail_system_sender(signs: Signs) -> str | None:
    addresses = (signs.from_address, signs.envelope_sender)
    return next((r for a in addresses if (r := _DAEMON_LOCAL_PARTS.get(_local_part(a or "")))), None)


def _auto_submitted(signs: Signs) -> str | None:
    for value in signs.headers.all("auto-submitted"):
        keyword = re.sub(r"\([^)]*\)", "", value).partition(";")[0].strip().lower()
        if keyword != "no":
            return f"auto-submitted ({printable(keyword) or 'empty'})"
    return None


def _auto_reply_header(signs: Signs) -> str | None:
    return next((f"auto-reply header ({n})" for n in ("x-autoreply", "x-autorespond") if n in signs.headers), None)


def _auto_replies_suppressed(signs: Signs) -> str | None:
    for value in signs.headers.all("x-auto-response-suppress"):
        if {token.strip().lower() for token in value.split(",")} & _SUPPRESS_AUTO_REPLIES:
            return "auto-reply suppression requested (x-auto-response-suppress)"
    return None


def _bulk(signs: Signs) -> str | None:
    for value in signs.headers.all("precedence"):
        if value.strip().lower() in _BULK_PRECEDENCE:
            return f"bulk mail (Precedence: {value.strip().lower()})"
    return None


def _mailing_list(signs: Signs) -> str | None:
    return next((f"mailing list ({n})" for n in ("list-id", "list-unsubscribe") if n in signs.headers), None)


RULES: tuple[Callable[[Signs], str | None], ...] = (
    _our_own_mail,
    _bounce,
    _delivery_report,
    _mail_system_sender,
    _auto_submitted,
    _auto_reply_header,
    _auto_replies_suppressed,
    _bulk,
    _mailing_list,
)
"""The rules, the most specific first: the first that holds gives the reason."""


def bare_address(value: str) -> str:
    """'<Pbm@Example.org> ' -> 'pbm@example.org'; '<>' -> ''."""
    return value.strip().strip("<>").strip().lower()


def _local_part(address: str) -> str:
    """'MAILER-DAEMON@mx.example.org' -> 'mailer-daemon'; also without a domain, as
    envelope senders of bounces often are; a '+detail' is dropped."""
    bare = bare_address(address)
    return (bare.rpartition("@")[0] or bare).partition("+")[0]


def _same_mailbox(address: str, ours: str) -> bool:
    """Equal addresses, ignoring our '+token' detail (board mails use pbm+token@...)."""
    local, _, domain = bare_address(address).rpartition("@")
    our_local, _, our_domain = ours.rpartition("@")
    return bool(local) and domain == our_domain and local.partition("+")[0] == our_local
