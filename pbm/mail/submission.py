"""Sending through the club's provider: SMTP submission as the club's account (`PBM_OUTBOUND`
``submission://USER@HOST[:587]`` with STARTTLS, or ``smtps://USER@HOST[:465]`` with TLS from the
start), certificates checked (`PBM_MAIL_CA_FILE` for a private CA), AUTH PLAIN/LOGIN with the
account's password, or OAUTHBEARER or XOAUTH2 with its OAuth2 token (`pbm.mail.account`).

The envelope sender is the account itself, whatever the outbox row's bounce address: providers
refuse any other. One connection is kept for as long as mail keeps coming, as the relay transport
does. A refusal of one recipient (5xx) fails that mail only; a 4xx, or a dropped connection, is
tried again as today. A provider that cannot be reached or refuses the login stops no server:
`ProviderUnavailable` tells delivery to leave the outbox waiting, without counting an attempt
against any mail, and `health` (``/healthz``, logged once) says what is wrong until it is mended.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import aiosmtplib
from aiosmtplib import SMTPStatus

from pbm.config import SUBMISSION_PORTS, Outbound
from pbm.i18n.text import one_line
from pbm.mail.account import OAUTH2_FAILED, Account, AccountError, oauth2_mechanism, oauth2_response
from pbm.mail.delivery import Transport, TransportUnavailable, let_go, send_on
from pbm.mail.delivery import transport_for as plain_transport_for
from pbm.mail.doors import DoorHealth


class ProviderUnavailable(TransportUnavailable):
    """The provider cannot take mail just now: unreachable, or the login refused."""


@dataclass
class SubmissionTransport:
    host: str
    port: int
    account: Account
    implicit_tls: bool = False
    timeout: float = 60.0
    health: DoorHealth = field(default=None)  # type: ignore[assignment]
    _connection: aiosmtplib.SMTP | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.health is None:
            scheme = "smtps" if self.implicit_tls else "submission"
            self.health = DoorHealth(f"{scheme}://{self.host}:{self.port}")

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        # The bounce address `sender` is not ours to use here: the account is the envelope sender.
        if self._connection is not None:
            try:
                await self._send(self._connection, recipient, raw)
                return
            except aiosmtplib.SMTPServerDisconnected:
                self._connection = None  # closed while it waited: try a new one
        client = await self._connect()
        self._connection = client
        await self._send(client, recipient, raw)

    async def _connect(self) -> aiosmtplib.SMTP:
        try:
            secret = await asyncio.to_thread(self.account.secret)
            context = self.account.tls_context()
        except AccountError as error:
            self.health.set("no_secret", str(error))
            raise ProviderUnavailable(str(error)) from None
        client = aiosmtplib.SMTP(
            hostname=self.host,
            port=self.port,
            timeout=self.timeout,
            use_tls=self.implicit_tls,
            start_tls=not self.implicit_tls,
            tls_context=context,
        )
        try:
            await client.connect()
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
            self.health.set("unreachable", f"{type(error).__name__}: {one_line(str(error), limit=200)}")
            raise ProviderUnavailable(f"{self.health.door} does not answer") from error
        try:
            if secret.oauth2:
                await _authenticate_oauth2(client, self.account.user, secret.value, self.host, self.port)
            else:
                await client.login(self.account.user, secret.value)
        except aiosmtplib.SMTPException as error:
            client.close()
            refused = isinstance(error, (aiosmtplib.SMTPAuthenticationError, aiosmtplib.SMTPResponseException))
            self.health.set("login_refused" if refused else "unreachable", one_line(str(error), limit=200))
            raise ProviderUnavailable(f"{self.health.door}: the login was refused") from error
        self.health.set("sending")
        return client

    async def _send(self, client: aiosmtplib.SMTP, recipient: str, raw: bytes) -> None:
        await send_on(client, self.account.user, recipient, raw, rest=self.rest)

    async def rest(self) -> None:
        client, self._connection = self._connection, None
        await let_go(client)

    async def log_in_once(self) -> None:
        """Connect and log in, then leave (`pbm doctor`): `ProviderUnavailable` when it cannot."""
        await let_go(await self._connect())

    async def check(self) -> None:
        """At start, nothing is tried: a provider down or a refused password stops no server, and
        the first mail to send says so (`health`)."""


async def _authenticate_oauth2(client: aiosmtplib.SMTP, user: str, token: str, host: str, port: int) -> None:
    """AUTH with an OAuth2 access token: OAUTHBEARER when the server offers it, else XOAUTH2."""
    if client.is_ehlo_or_helo_needed:
        await client.ehlo()
    mechanism = oauth2_mechanism(client.server_auth_methods)
    said = oauth2_response(mechanism, user, token, host, port)
    response = await client.execute_command(b"AUTH", mechanism.encode(), said.encode())
    if response.code == SMTPStatus.auth_continue:  # a refusal's error challenge: answered, to end it
        response = await client.execute_command(OAUTH2_FAILED.encode())
    if response.code != SMTPStatus.auth_successful:
        raise aiosmtplib.SMTPAuthenticationError(response.code, response.message)


def transport_for(outbound: Outbound, account: Account) -> Transport:
    """The transport `outbound` names: the provider's submission service as `account`, or a
    maildir or relay (`pbm.mail.delivery.transport_for`)."""
    if outbound.kind in SUBMISSION_PORTS:
        assert outbound.host is not None and outbound.port is not None
        return SubmissionTransport(outbound.host, outbound.port, account, implicit_tls=outbound.kind == "smtps")
    return plain_transport_for(outbound)
