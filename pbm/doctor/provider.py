"""A club whose mail is a mailbox at a provider: the provider receives, signs and sends, so the checks are
of the club's settings, not of its own DNS."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from pbm.doctor.findings import Finding, Status


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


def diagnose_provider(setup: ProviderSetup) -> list[Finding]:
    """With a mailbox at a provider, the provider receives, signs and sends: no MX, DKIM or reverse
    DNS of the club's own to check. What matters is that plus addresses reach the mailbox, that
    replies go out through the provider, within its daily limit, and that the secret is kept."""
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
    return [plus, sending, limit, _secret_finding(setup)]


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
