"""A provider's submission service for tests: Debian's Postfix as a private instance, as mail
providers run it. It listens on a free loopback port, wants STARTTLS (the private Dovecot's
self-signed certificate) before AUTH, and AUTH before any mail; it checks logins with the
private Dovecot's users (`smtpd_sasl_type = dovecot`, on `PrivateDovecot.auth_socket`); an
account sends as itself only (`reject_sender_login_mismatch`, as providers do). What it takes
it delivers into the Dovecot users' Maildirs (virtual(8)), plus addressing on: mail to
``games+TOKEN@club.test`` lands in ``games@club.test``'s INBOX. An address without a mailbox is
refused at RCPT (550 5.1.1), the refusal of one recipient.

It never touches a system Postfix: everything lives under the instance's own folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.dovecot import PrivateDovecot
from tests.e2e.postfix import DEBIAN_MASTER_CF, PrivatePostfix
from tests.e2e.postfix import unavailable as postfix_unavailable


def unavailable() -> str | None:
    """Why a private Postfix cannot run here as a submission service, or None when it can."""
    return postfix_unavailable()


class PostfixSubmission(PrivatePostfix):
    """Postfix as the provider's submission service in front of `dovecot`'s mailboxes."""

    def __init__(self, root: Path, dovecot: PrivateDovecot) -> None:
        super().__init__(root, mail_user="dovecot")  # Dovecot reads the Maildirs as its mail_uid
        self.dovecot = dovecot

    def create(self, mailboxes: list[str]) -> None:  # type: ignore[override]
        """Write main.cf and master.cf for the accounts `mailboxes` (Dovecot users all)."""
        for folder in (self.config, self.root / "queue"):
            folder.mkdir(parents=True)
        domains = sorted({address.partition("@")[2] for address in mailboxes})
        # Dovecot's mail_location is maildir:MAIL/%n: the local part names the Maildir.
        maildirs = ", ".join(f"{address}={address.partition('@')[0]}/" for address in mailboxes)
        logins = ", ".join(f"{address}={address}" for address in mailboxes)
        mail = self.dovecot.root / "mail"
        (self.config / "main.cf").write_text(
            "\n".join(
                [
                    "compatibility_level = 3.6",
                    # Its own queue and data, its own name, loopback only.
                    f"queue_directory = {self.root / 'queue'}",
                    f"data_directory = {self.root / 'data'}",
                    "inet_interfaces = 127.0.0.1",
                    "inet_protocols = ipv4",
                    "myhostname = smtp.provider.test",
                    "mydestination =",
                    "alias_maps =",
                    "alias_database =",
                    # Submission: TLS first (STARTTLS), then a login checked by Dovecot, then mail.
                    "smtpd_tls_security_level = encrypt",
                    f"smtpd_tls_cert_file = {self.dovecot.cert}",
                    f"smtpd_tls_key_file = {self.dovecot.key}",
                    "smtpd_tls_auth_only = yes",
                    "smtpd_sasl_auth_enable = yes",
                    "smtpd_sasl_type = dovecot",
                    f"smtpd_sasl_path = {self.dovecot.auth_socket}",
                    "smtpd_client_restrictions = permit_sasl_authenticated, reject",
                    "smtpd_relay_restrictions = permit_sasl_authenticated, reject",
                    # An account sends as itself only: providers refuse any other envelope sender.
                    f"smtpd_sender_login_maps = inline:{{ {logins} }}",
                    "smtpd_sender_restrictions = reject_sender_login_mismatch",
                    # Delivery into the Dovecot users' Maildirs; an address without one refused at RCPT.
                    "recipient_delimiter = +",
                    f"virtual_mailbox_domains = {', '.join(domains)}",
                    f"virtual_mailbox_base = {mail}",
                    f"virtual_mailbox_maps = inline:{{ {maildirs} }}",
                    f"virtual_uid_maps = static:{self.mail_user.pw_uid}",
                    f"virtual_gid_maps = static:{self.mail_user.pw_gid}",
                    f"virtual_minimum_uid = {min(self.mail_user.pw_uid, 100)}",
                    "default_transport = error:5.7.1 this test instance delivers nowhere else",
                    f"maillog_file_prefixes = {self.root}",
                    f"maillog_file = {self.log_file}",
                    "",
                ]
            )
        )
        shutil.copy(DEBIAN_MASTER_CF, self.config / "master.cf")
        self._date_back_the_configuration()
        self._postconf("-F", "*/*/chroot = n")  # no chroot: the temporary queue has none of its files
        self._postconf("-M#", "smtp/inet")
        service = f"127.0.0.1:{self.port}"
        self._postconf("-Me", f"{service}/inet = {service} inet n - n - - smtpd")
        os.chown(mail, self.mail_user.pw_uid, self.mail_user.pw_gid)
