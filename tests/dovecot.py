"""A private Dovecot IMAP server for tests: its own configuration, certificate, users and maildirs
in one temporary folder, on free loopback ports, stopped at the end. It never touches a system
Dovecot (Debian's ``dovecot-imapd``; .ci/run installs it without starting it).

The certificate is made here (`self_signed`) for ``localhost`` and 127.0.0.1; the tests give its
file to pbm as PBM_MAIL_CA_FILE, as a club with a private CA would. Users come from a passwd-file
(``user:{PLAIN}password``); each has a Maildir. Plus addressing is on (``recipient_delimiter``).
Its authentication is also offered to a submission server on a socket (`auth_socket`), as
providers run Postfix with Dovecot SASL.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

from tests.oauth2 import Introspection

SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])


def unavailable() -> str | None:
    """Why a private Dovecot cannot run here, or None when it can."""
    if shutil.which("dovecot", path=SBIN) is None:
        return "Dovecot is not installed (Debian: apt-get install dovecot-imapd; .ci/run installs it)"
    if os.geteuid() != 0:
        return "a private Dovecot is started by root here (its login processes drop privileges)"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, and its key: (cert.pem, key.pem)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
        )
    )
    key_path.chmod(0o600)
    return cert_path, key_path


OAUTH2 = """\
introspection_mode = post
introspection_url = {url}
username_attribute = username
active_attribute = active
active_value = true
"""

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login {oauth2_mechanisms}
recipient_delimiter = +
mail_location = maildir:{root}/mail/%n
mail_uid = {uid}
mail_gid = {gid}
first_valid_uid = {uid}
first_valid_gid = {gid}
default_internal_user = dovecot
default_login_user = dovenull
imap_idle_notify_interval = 1 secs
mail_max_userip_connections = 50
passdb {{
  # Logins refused per service (%s: imap, smtp), as a provider turns off SMTP AUTH for one account
  driver = passwd-file
  args = username_format=%u {root}/refused-%s
  deny = yes
}}
passdb {{
  # OAuth2 access tokens, checked with the provider's introspection endpoint (tests.oauth2)
  driver = oauth2
  mechanisms = {oauth2_mechanisms}
  args = {root}/oauth2.conf.ext
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%n
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
service auth {{
  # Dovecot's SASL for a submission server (tests.submission: Postfix's smtpd_sasl_type = dovecot)
  unix_listener auth-submission {{
    mode = 0666
  }}
}}
"""


class PrivateDovecot:
    """One Dovecot instance: `start`, `stop`, `restart`; users added with `add_user`."""

    def __init__(self, root: Path, oauth2_mechanisms: str = "xoauth2 oauthbearer") -> None:
        """`oauth2_mechanisms`: the SASL mechanisms it offers for OAuth2 tokens (Google offers
        both; Microsoft 365 XOAUTH2 only)."""
        self.root = root
        for folder in ("run", "state", "mail", "home"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        self.cert, self.key = self_signed(root)
        self.imap_port, self.imaps_port = free_port(), free_port()
        self.config = root / "dovecot.conf"
        self.introspection = Introspection(free_port())
        """The provider's OAuth2 token introspection: `start` it, `grant` tokens, for XOAUTH2 and OAUTHBEARER."""
        (root / "oauth2.conf.ext").write_text(OAUTH2.format(url=self.introspection.url))
        self.auth_socket = root / "run" / "auth-submission"
        """Where a submission server asks Dovecot to check a login (Dovecot SASL)."""
        owner = pwd.getpwnam("dovecot")  # mail may not belong to root: Dovecot refuses uid 0
        for folder in ("mail", "home"):
            os.chown(root / folder, owner.pw_uid, owner.pw_gid)
        self.config.write_text(
            CONFIG.format(
                root=root,
                cert=self.cert,
                key=self.key,
                uid=owner.pw_uid,
                gid=owner.pw_gid,
                imap_port=self.imap_port,
                imaps_port=self.imaps_port,
                oauth2_mechanisms=oauth2_mechanisms,
            )
        )
        for name in ("passwd", "refused-imap", "refused-smtp"):
            (root / name).write_text("")

    def add_user(self, user: str, password: str) -> None:
        with open(self.root / "passwd", "a") as passwd:
            passwd.write(f"{user}:{{PLAIN}}{password}\n")

    def refuse(self, service: str, user: str, refused: bool = True) -> None:
        """Refuse `user`'s logins to `service` ("imap", or "smtp" for a submission server), or no more."""
        path = self.root / f"refused-{service}"
        others = [line for line in path.read_text().splitlines() if line != user]
        path.write_text("".join(f"{line}\n" for line in [*others, *([user] if refused else [])]))

    def start(self) -> None:
        subprocess.run(["dovecot", "-c", str(self.config)], check=True, env={**os.environ, "PATH": SBIN})
        # Started once it answers and has written its pid file, which `stop` needs: Dovecot may
        # answer before it writes it, and a test that ended at once left its Dovecot running.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.imaps_port), timeout=1):
                    if self._pid_file.exists():
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the private Dovecot did not start:\n{self.log()}")

    @property
    def _pid_file(self) -> Path:
        return self.root / "run" / "master.pid"

    def stop(self) -> None:
        """SIGTERM to the master, again each second should one be lost; SIGKILL after 20 s."""
        if not self._pid_file.exists():
            return
        pid = int(self._pid_file.read_text().split()[0])
        deadline = time.monotonic() + 20
        asked = 0.0
        while True:
            try:
                if time.monotonic() >= deadline:
                    os.kill(pid, signal.SIGKILL)
                    return
                if time.monotonic() - asked >= 1:
                    os.kill(pid, signal.SIGTERM)
                    asked = time.monotonic()
                else:
                    os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)

    def restart(self) -> None:
        self.stop()
        self.start()

    def doveadm(self, *args: str) -> str:
        done = subprocess.run(
            ["doveadm", "-c", str(self.config), *args],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": SBIN},
        )
        return done.stdout

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cert))
