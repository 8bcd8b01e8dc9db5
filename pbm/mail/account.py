"""The club's account at a mail provider: how pbm logs in to read (IMAP) and send (submission).

The secret comes from a file (`PBM_MAIL_PASSWORD_FILE`) or from a program that prints it
(`PBM_MAIL_PASSWORD_COMMAND`, run without a shell, its output stripped), read again at each
login, so a rotated app password or a fresh OAuth2 token is used as soon as it is there. What
the program prints starting with ``Bearer `` is an OAuth2 access token: it is given to the
provider by OAUTHBEARER (RFC 7628) when the server offers it, else by XOAUTH2 (Google offers
both; Microsoft 365 XOAUTH2 only; they want a token for accounts without app passwords).

The secret is never logged, never put in an error, never on a command line: it goes over the
encrypted connection only. Certificates are checked, against `PBM_MAIL_CA_FILE` when it names a
private CA, else against the system's.

>>> Secret.of("  app-password\\n").oauth2, Secret.of("Bearer ya29.token").oauth2
(False, True)
>>> Secret.of("Bearer ya29.token").value
'ya29.token'
>>> "app-password" in repr(Secret.of("app-password"))
False
>>> oauth2_mechanism(["PLAIN", "XOAUTH2", "OAUTHBEARER"]), oauth2_mechanism(["plain", "xoauth2"])
('OAUTHBEARER', 'XOAUTH2')
>>> base64.b64decode(oauth2_response("OAUTHBEARER", "games@club.org", "t0k", "imap.example", 993))
b'n,a=games@club.org,\\x01host=imap.example\\x01port=993\\x01auth=Bearer t0k\\x01\\x01'
"""

from __future__ import annotations

import base64
import shlex
import ssl
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

COMMAND_SECONDS = 30.0
"""How long the password command may take."""
BEARER = "Bearer "


class AccountError(Exception):
    """The account's secret cannot be had (its file unreadable, its command failing)."""


@dataclass(frozen=True)
class Secret:
    """A password, or an OAuth2 access token (`oauth2`)."""

    value: str = field(repr=False)
    oauth2: bool = False

    @classmethod
    def of(cls, printed: str) -> Secret:
        text = printed.strip()
        if text.startswith(BEARER):
            return cls(text.removeprefix(BEARER).strip(), oauth2=True)
        return cls(text)


OAUTHBEARER, XOAUTH2 = "OAUTHBEARER", "XOAUTH2"
OAUTH2_FAILED = "AQ=="
"""What a client answers to the error challenge of a refused token (RFC 7628, 3.2.3: a lone
%x01, base64-encoded), so that the server ends the exchange with its refusal."""


def oauth2_mechanism(offered: Iterable[str]) -> str:
    """The SASL mechanism for an OAuth2 token: the standard OAUTHBEARER when the server offers it,
    else XOAUTH2, which came first and which some servers still offer alone."""
    return OAUTHBEARER if OAUTHBEARER in {name.upper() for name in offered} else XOAUTH2


def oauth2_response(mechanism: str, user: str, token: str, host: str, port: int) -> str:
    """The initial response of `mechanism` for `user`'s `token`, base64-encoded (IMAP and SMTP)."""
    if mechanism == OAUTHBEARER:
        # The GS2 header names the user; "," and "=" in a name are escaped (RFC 5801, 4).
        name = user.replace("=", "=3D").replace(",", "=2C")
        said = f"n,a={name},\x01host={host}\x01port={port}\x01auth=Bearer {token}\x01\x01"
    else:
        said = f"user={user}\x01auth=Bearer {token}\x01\x01"
    return base64.b64encode(said.encode()).decode("ascii")


@dataclass(frozen=True)
class Account:
    """The account `user` at the provider, with where its secret and CA certificates come from."""

    user: str
    password_file: Path | None = None
    password_command: str | None = None
    ca_file: Path | None = None

    def secret(self) -> Secret:
        """The account's secret, read now (blocking: a file or a program)."""
        if self.password_command:
            return Secret.of(self._run_command(self.password_command))
        if self.password_file is None:
            raise AccountError("no PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND")
        try:
            text = self.password_file.read_text(encoding="utf-8")
        except OSError as error:
            raise AccountError(f"PBM_MAIL_PASSWORD_FILE {self.password_file}: {error.strerror}") from None
        secret = Secret.of(text)
        if not secret.value:
            raise AccountError(f"PBM_MAIL_PASSWORD_FILE {self.password_file} is empty")
        return secret

    @staticmethod
    def _run_command(command: str) -> str:
        try:
            done = subprocess.run(
                shlex.split(command),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=COMMAND_SECONDS,
                check=False,
            )
        except (OSError, ValueError, subprocess.TimeoutExpired) as error:
            raise AccountError(f"PBM_MAIL_PASSWORD_COMMAND could not run: {type(error).__name__}") from None
        # What it printed is the secret, or near it: an error says the exit status only.
        if done.returncode != 0:
            raise AccountError(f"PBM_MAIL_PASSWORD_COMMAND exited with status {done.returncode}")
        printed = done.stdout.decode("utf-8", "replace")
        if not printed.strip():
            raise AccountError("PBM_MAIL_PASSWORD_COMMAND printed nothing")
        return printed

    def tls_context(self) -> ssl.SSLContext:
        """Certificates checked, host names too; against the private CA when one is named."""
        try:
            return ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)
        except (OSError, ssl.SSLError) as error:
            raise AccountError(f"PBM_MAIL_CA_FILE {self.ca_file}: {error}") from None
