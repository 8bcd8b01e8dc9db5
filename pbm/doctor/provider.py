"""A club whose mail is a mailbox at a provider: the provider receives, signs and sends, so the checks are
of the club's settings, not of its own DNS."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from pbm.doctor.findings import Finding, Status
from pbm.mail.provider_check import Tried


@dataclass(frozen=True)
class ProviderSetup:
    """What ``pbm doctor`` checks of a club whose mail is a mailbox at a provider (PBM_INBOUND)."""

    address: str
    inbound: str
    outbound: str
    outbound_kind: str
    max_per_day: int | None
    password_file: str | None
    password_command: bool
    mailbox: Tried | None = None
    """What logging in to the mailbox found (`pbm.mail.provider_check`); None: not tried."""
    submission: Tried | None = None
    """What logging in to the submission service found; None: not tried."""


WITHOUT = {
    "IDLE": "new mail is looked for every 30 seconds instead of at once",
    "MOVE": "a read mail is copied, marked deleted and expunged instead of moved",
}
"""What pbm does without each IMAP extension it uses."""


def _tried(check: str, door: str, tried: Tried) -> Finding:
    if not tried.ok:
        return Finding(check, Status.WRONG, found=(door,), notes=(tried.said,))
    if tried.lacking:
        notes = tuple(f"the server offers no {name}: {WITHOUT[name]}" for name in tried.lacking)
        return Finding(check, Status.WARNING, found=(f"{door}: {tried.said}",), notes=notes)
    return Finding(check, Status.OK, found=(f"{door}: {tried.said}",))


def diagnose_provider(setup: ProviderSetup) -> list[Finding]:
    """With a mailbox at a provider, the provider receives, signs and sends: no MX, DKIM or reverse
    DNS of the club's own to check. What matters is that plus addresses reach the mailbox, that
    replies go out through the provider, within its daily limit, that the secret is kept, and
    that the provider takes it (the logins `setup` tried)."""
    local, _, domain = setup.address.rpartition("@")
    plus = Finding(
        "plus addressing",
        Status.OK,
        found=(f"replies come to {local}+TOKEN@{domain}",),
        notes=(
            "the provider must deliver them to the same mailbox (Fastmail, Migadu, Gmail, Microsoft 365 and"
            " most others do): mail "
            f"{local}+test@{domain} and see it arrive in {setup.inbound}",
        ),
    )
    if setup.outbound_kind in ("submission", "smtps"):
        sending = Finding("sending", Status.OK, found=(setup.outbound,))
    else:
        sending = Finding(
            "sending",
            Status.WARNING,
            found=(setup.outbound,),
            notes=("replies do not go through the provider: set PBM_OUTBOUND=submission://USER@HOST:587",),
        )
    if setup.max_per_day is None:
        limit = Finding(
            "sending limit",
            Status.WARNING,
            notes=(
                "providers cap the mails an account sends in a day (often 300 to 2 000): set"
                " PBM_OUTBOUND_MAX_PER_DAY a little under yours, so mail waits in the outbox instead of bouncing",
            ),
        )
    else:
        limit = Finding("sending limit", Status.OK, found=(f"PBM_OUTBOUND_MAX_PER_DAY={setup.max_per_day}",))
    tried = []
    if setup.mailbox is not None:
        tried.append(_tried("mailbox", setup.inbound, setup.mailbox))
    if setup.submission is not None:
        tried.append(_tried("submission", setup.outbound, setup.submission))
    return [plus, sending, limit, _secret_finding(setup), *tried]


def _secret_finding(setup: ProviderSetup) -> Finding:
    if setup.password_command:
        return Finding("password", Status.OK, found=("PBM_MAIL_PASSWORD_COMMAND",))
    if setup.password_file is None:
        return Finding("password", Status.MISSING, notes=("set PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND",))
    try:
        mode = os.stat(setup.password_file).st_mode
    except OSError as error:
        return Finding("password", Status.WRONG, notes=(f"{setup.password_file}: {error.strerror}",))
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return Finding(
            "password",
            Status.WARNING,
            found=(setup.password_file,),
            notes=(f"others may read it: chmod 600 {setup.password_file}",),
        )
    return Finding("password", Status.OK, found=(setup.password_file,))
