"""``pbm config show`` and ``pbm doctor``: the settings the server runs with, and the game domain's
DNS checked for mail."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from pbm.commandline import UsageError, subcommand
from pbm.config import Settings, load_settings

if TYPE_CHECKING:
    from pbm.doctor import ProviderSetup
    from pbm.mail.provider_check import Tried


def _config_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    actions.add_parser("show", help="print every setting, its value and where it came from (secrets hidden)")


@subcommand("the server's settings", arguments=_config_arguments)
def config(args: argparse.Namespace) -> int:
    """``pbm config show``: each setting, its value (secrets hidden) and where it came from."""
    from pbm.config import described, load

    loaded = load()
    rows = described(loaded)
    width = max(len(name) for name, _, _ in rows)
    print(f"configuration file: {loaded.file or 'none'}")
    for name, value, source in rows:
        print(f"{name:<{width}}  {value}  ({source})")
    return 0


def _selector(text: str) -> str:
    from pbm.config import DKIM_SELECTOR

    if not DKIM_SELECTOR.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a DKIM selector: {text!r} (e.g. pbm2026)")
    return text


def _doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "domain", nargs="?", help="the game's domain, e.g. games.example.org (default: the domain of PBM_ADDRESS)"
    )
    parser.add_argument(
        "--selector", type=_selector, help="the DKIM selector the MTA signs with (default: PBM_DKIM_SELECTOR)"
    )


@subcommand(
    "check the game domain's DNS for mail: MX, SPF, DKIM, DMARC and reverse DNS",
    description=(
        "Look up the domain's MX hosts, its SPF policy, the DKIM key at the selector the MTA signs with, "
        "its DMARC policy and the reverse DNS of the MX hosts' addresses, and say for each what is found "
        "and what is missing or wrong, with the record to add where it can. Exit 0 when the domain is "
        "ready for mail (with warnings or without), 1 when something required is missing or wrong, or "
        "the DNS did not answer. Changes nothing."
    ),
    arguments=_doctor_arguments,
)
def doctor(args: argparse.Namespace) -> int:
    """``pbm doctor [DOMAIN]``: the domain's DNS for mail, checked; 1 when something required is missing or wrong."""
    from pbm import doctor

    domain, selector = args.domain, args.selector
    if domain is None:
        settings = load_settings()
        if settings.inbound is not None:  # the provider receives, signs and sends: its own checks
            findings = doctor.diagnose_provider(_provider_setup(settings))
            for line in doctor.report(settings.domain, findings):
                print(line)
            return doctor.exit_status(findings)
    if domain is None or selector is None:
        settings = load_settings()
        domain = domain or settings.domain
        selector = selector or settings.dkim_selector
    domain = domain.lower().rstrip(".")
    if not doctor.DOMAIN.fullmatch(domain):
        raise UsageError(f"doctor: not a domain name: {domain!r} (give the game's domain, e.g. games.example.org)")
    try:
        resolver = doctor.system_resolver()
    except doctor.LookupFailed as error:
        print(f"pbm doctor: {error}", file=sys.stderr)
        return 1
    findings = doctor.diagnose(domain, selector, resolver)
    for line in doctor.report(domain, findings):
        print(line)
    return doctor.exit_status(findings)


def _provider_setup(settings: Settings) -> ProviderSetup:
    from pbm import doctor

    return doctor.ProviderSetup(
        address=settings.address,
        inbound=str(settings.inbound),
        outbound=str(settings.outbound),
        outbound_kind=settings.outbound.kind,
        max_per_day=settings.outbound_max_per_day,
        password_file=str(settings.mail_password_file) if settings.mail_password_file else None,
        password_command=bool(settings.mail_password_command),
        **asyncio.run(_try_provider(settings)),
    )


async def _try_provider(settings: Settings) -> dict[str, Tried]:
    """`pbm doctor` logs in to the club's mailbox and submission service, as `pbm serve` would."""
    from pbm.mail import provider_check
    from pbm.mail.submission import SubmissionTransport, transport_for
    from pbm.serving.parts import account_for

    assert settings.inbound is not None
    tries = {"mailbox": provider_check.try_mailbox(settings.inbound, account_for(settings, settings.inbound.user))}
    transport = transport_for(settings.outbound, account_for(settings, settings.outbound.user))
    if isinstance(transport, SubmissionTransport):
        tries["submission"] = provider_check.try_submission(transport)
    outcomes = await asyncio.gather(*tries.values())
    return dict(zip(tries, outcomes, strict=True))
