"""A mail provider for tests: a private Dovecot holding the club's mailbox (`tests.dovecot`), and
a submission server with STARTTLS and AUTH, either of two:

- `Provider`: aiosmtpd in this process, keeping what pbm sends, refusing what a test says.
  Players' mails are APPENDed to the club's INBOX over IMAP, as the provider's delivery would
  put them there; the board mails pbm sends are what the players get.
- `PostfixProvider`: Debian's Postfix with Dovecot SASL (`tests.submission`), delivering into
  the club's and the players' Dovecot mailboxes. Players send through it as themselves, and
  read their board mails back from their own mailboxes over IMAP.

`pbm serve` runs with the README's settings (`ClubMailbox.settings`).
"""

from __future__ import annotations

import base64
import imaplib
import re
import shutil
import smtplib
import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.dovecot import PrivateDovecot, free_port
from tests.submission import PostfixSubmission
from tests.support import read

CLUB = "games@club.test"
PASSWORD = "app-password-1"
PLAYER_PASSWORD = "player-password-1"


class SubmissionHandler:
    def __init__(self) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.arrival_times: list[float] = []
        self.arrived = threading.Condition()
        self.refused_recipients: set[str] = set()
        self.password = PASSWORD
        self.token: str | None = None
        """The OAuth2 access token XOAUTH2 takes (None: XOAUTH2 refused)."""
        self.on_arrival: Callable[[list[str]], None] = lambda recipients: None
        """Called with each mail's recipients as it is taken (a benchmark times arrivals)."""

    async def handle_RCPT(self, server, session, envelope, address, options) -> str:
        if address in self.refused_recipients:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.arrived:
            self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
            self.arrival_times.append(time.monotonic())
            self.on_arrival(list(envelope.rcpt_tos))
            self.arrived.notify_all()
        return "250 2.0.0 queued"

    async def auth_XOAUTH2(self, server, args: list[str]) -> AuthResult:
        """XOAUTH2 (Google's and Microsoft's SASL for OAuth2 tokens), its response inline."""
        try:
            said = base64.b64decode(args[1]).decode()
        except (IndexError, ValueError):
            return AuthResult(success=False, handled=False)
        fields = dict(part.split("=", 1) for part in said.split("\x01") if "=" in part)
        ok = self.token is not None and fields.get("user") == CLUB and fields.get("auth") == f"Bearer {self.token}"
        return AuthResult(success=ok, handled=False)

    def authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == CLUB.encode()
        ok = ok and auth_data.password == self.password.encode()
        return AuthResult(success=ok, handled=False)


class Submission:
    """Submission on a free port: STARTTLS required before AUTH, AUTH required before MAIL."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.handler = SubmissionHandler()
        self.port = free_port()
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(cert, key)
        self.controller: Controller | None = None
        self._taken = 0

    def start(self) -> None:
        """Listen (again, after `stop`: a provider back from an outage), on the same port."""
        self.controller = Controller(
            self.handler,
            hostname="127.0.0.1",
            port=self.port,
            tls_context=self.context,
            require_starttls=True,
            authenticator=self.handler.authenticate,
            auth_required=True,
            auth_require_tls=True,
        )
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def wait(self, count: int, timeout: float = 30.0) -> list[EmailMessage]:
        return [read(raw) for _, _, raw in self.wait_raw(count, timeout)]

    def wait_raw(self, count: int, timeout: float = 30.0) -> list[tuple[str, list[str], bytes]]:
        deadline = time.monotonic() + timeout
        with self.handler.arrived:
            while len(self.handler.messages) < self._taken + count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.handler.messages) - self._taken} of {count} mails came")
                self.handler.arrived.wait(left)
            got = self.handler.messages[self._taken : self._taken + count]
            self._taken += count
            return got

    @property
    def all(self) -> list[tuple[str, list[str], bytes]]:
        with self.handler.arrived:
            return list(self.handler.messages)


class ClubMailbox:
    """The club's mailbox at the provider: a private Dovecot, its account's password in a file."""

    def __init__(self, oauth2_mechanisms: str = "xoauth2 oauthbearer") -> None:
        root = Path(tempfile.mkdtemp(prefix="pbm-provider-"))
        root.chmod(0o755)  # Dovecot's mail processes run as the dovecot user
        self.root = root
        self.dovecot = PrivateDovecot(root, oauth2_mechanisms)
        self.dovecot.add_user(CLUB, PASSWORD)
        self.password_file = root / "mailbox-password"
        self.password_file.write_text(PASSWORD + "\n")
        self.password_file.chmod(0o600)

    def submission_url(self) -> str:
        raise NotImplementedError

    def settings(self) -> dict[str, str]:
        """The README's setup, with the test's hosts and ports, and the test CA."""
        return {
            "PBM_ADDRESS": CLUB,
            "PBM_INBOUND": f"imaps://games%40club.test@127.0.0.1:{self.dovecot.imaps_port}/INBOX",
            "PBM_OUTBOUND": self.submission_url(),
            "PBM_MAIL_PASSWORD_FILE": str(self.password_file),
            "PBM_MAIL_CA_FILE": str(self.dovecot.cert),
        }

    def imap(self, user: str = CLUB, password: str = PASSWORD) -> imaplib.IMAP4_SSL:
        client = imaplib.IMAP4_SSL("127.0.0.1", self.dovecot.imaps_port, ssl_context=self.dovecot.client_context())
        client.login(user, password)
        return client

    def append(self, *raws: bytes, folder: str = "INBOX") -> None:
        """Mails arrive in the club's mailbox, as the provider delivers them."""
        client = self.imap()
        try:
            for raw in raws:
                status, _ = client.append(folder, None, None, raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
                assert status == "OK"
        finally:
            client.logout()

    def count(self, folder: str) -> int:
        """Mails in `folder` of the club's mailbox (0 when it does not exist)."""
        client = self.imap()
        try:
            status, data = client.select(f'"{folder}"', readonly=True)
            return int(data[0]) if status == "OK" else 0
        finally:
            client.logout()

    def message_ids(self, folder: str) -> list[str]:
        client = self.imap()
        try:
            status, _ = client.select(f'"{folder}"', readonly=True)
            if status != "OK":
                return []
            status, data = client.fetch("1:*", "(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
            found = []
            for item in data:
                if isinstance(item, tuple):
                    match = re.search(rb"<[^>]+>", item[1])
                    if match:
                        found.append(match[0].decode())
            return found
        finally:
            client.logout()


class Provider(ClubMailbox):
    """The club's mailbox (Dovecot) and a submission service in this process (aiosmtpd) that keeps
    what pbm sends, so a test can refuse a login, a recipient or a token at will."""

    def __init__(self) -> None:
        super().__init__()
        self.submission = Submission(self.dovecot.cert, self.dovecot.key)

    def start(self) -> None:
        self.dovecot.start()
        self.submission.start()

    def stop(self) -> None:
        self.submission.stop()
        self.dovecot.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def submission_url(self) -> str:
        return f"submission://games%40club.test@127.0.0.1:{self.submission.port}"


class PlayerMailbox:
    """A player's INBOX at the provider, read over IMAP as their mail client would."""

    def __init__(self, provider: PostfixProvider, address: str) -> None:
        self.provider = provider
        self.address = address
        self._taken: set[bytes] = set()

    def wait(self, count: int, timeout: float = 30.0) -> list[EmailMessage]:
        """The next `count` mails to arrive (waiting for them), in the order they came."""
        deadline = time.monotonic() + timeout
        while True:
            fresh = [(uid, raw) for uid, raw in self.all_raw() if uid not in self._taken]
            if len(fresh) >= count:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.address}: {len(fresh)} of {count} mails came:\n{self.provider.log()}")
            time.sleep(0.1)
        self._taken.update(uid for uid, _ in fresh[:count])
        return [read(raw) for _, raw in fresh[:count]]

    def all_raw(self) -> list[tuple[bytes, bytes]]:
        """Every mail in the INBOX: (UID, the mail as delivered), oldest first."""
        client = self.provider.imap(self.address, PLAYER_PASSWORD)
        try:
            client.select("INBOX", readonly=True)
            status, data = client.uid("FETCH", "1:*", "(BODY.PEEK[])")
            found = []
            for item in data:
                if isinstance(item, tuple):
                    uid = re.search(rb"UID (\d+)", item[0])
                    assert uid is not None
                    found.append((uid[1], item[1]))
            return found
        finally:
            client.logout()


class PostfixProvider(ClubMailbox):
    """The club's mailbox and its players' mailboxes (Dovecot), and a real submission service in
    front of them: Debian's Postfix with STARTTLS and Dovecot SASL (`tests.submission`). Players
    send through it as themselves; what pbm sends through it lands in their mailboxes."""

    def __init__(self, players: list[str], oauth2_mechanisms: str = "xoauth2 oauthbearer") -> None:
        super().__init__(oauth2_mechanisms)
        for player in players:
            self.dovecot.add_user(player, PLAYER_PASSWORD)
        self.postfix = PostfixSubmission(self.root / "postfix", self.dovecot)
        self.postfix.create([CLUB, *players])

    def start(self) -> None:
        self.dovecot.introspection.start()
        self.dovecot.start()
        self.postfix.start()

    def stop(self) -> None:
        self.postfix.stop()
        self.dovecot.stop()
        self.dovecot.introspection.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def submission_url(self) -> str:
        return f"submission://games%40club.test@127.0.0.1:{self.postfix.port}"

    def send(self, sender: str, raw: bytes) -> None:
        """A player sends `raw` through the provider (STARTTLS, logged in as themselves), to its To."""
        recipient = read(raw)["To"].addresses[0].addr_spec
        with smtplib.SMTP("127.0.0.1", self.postfix.port, timeout=30) as client:
            client.starttls(context=self.dovecot.client_context())
            client.login(sender, PLAYER_PASSWORD)
            client.sendmail(sender, [recipient], raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    def mailbox(self, player: str) -> PlayerMailbox:
        return PlayerMailbox(self, player)

    def log(self) -> str:
        return self.postfix.log()[-3000:]
