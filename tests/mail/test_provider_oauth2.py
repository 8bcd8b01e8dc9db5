"""OAuth2 access tokens instead of a password (Google, Microsoft 365), against a real provider:
Dovecot checks tokens with the provider's introspection endpoint (`tests.oauth2`, served in this
process), for its IMAP and, through Dovecot SASL, for Postfix's submission. pbm logs in by
OAUTHBEARER (RFC 7628) where the server offers it, else by XOAUTH2, and a refused token is said
at once (`login_refused`), not after a command's timeout."""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from pbm.config import Inbound
from pbm.mail.account import Account
from pbm.mail.mailbox import MailboxReader
from pbm.mail.submission import ProviderUnavailable, SubmissionTransport
from pbm.mail.tokens import Addressing
from pbm.store.models import InboundMessage
from tests import dovecot, submission
from tests.mail.test_provider_mailbox import read_until
from tests.provider import CLUB, PostfixProvider
from tests.support import mail

pytestmark = pytest.mark.skipif(
    (dovecot.unavailable() or submission.unavailable()) is not None,
    reason=str(dovecot.unavailable() or submission.unavailable()),
)

TOKEN = "ya29.an-access-token"
ALICE = "alice@players.test"
BOTH, XOAUTH2_ONLY = "xoauth2 oauthbearer", "xoauth2"


@pytest.fixture(params=[(BOTH, "OAUTHBEARER"), (XOAUTH2_ONLY, "XOAUTH2")], ids=["google-like", "microsoft-like"])
def provider(request):
    offered, expected = request.param
    provider = PostfixProvider([ALICE], oauth2_mechanisms=offered)
    provider.expected_mechanism = expected
    provider.start()
    yield provider
    provider.stop()


def token_account(provider: PostfixProvider) -> Account:
    """The club's account whose secret is a command printing an OAuth2 access token."""
    command = f"{sys.executable} -c 'print(\"Bearer {TOKEN}\")'"
    return Account(CLUB, password_command=command, ca_file=provider.dovecot.cert)


def reader(provider: PostfixProvider, database) -> MailboxReader:
    if database.engine.dialect.name != "sqlite":
        pytest.skip("the IMAP side is the same on either backend")
    return MailboxReader(
        database,
        Inbound("imaps", CLUB, "127.0.0.1", provider.dovecot.imaps_port, "INBOX"),
        token_account(provider),
        Addressing(CLUB),
        on_stored=lambda: None,
        max_size=1024 * 1024,
        keep=timedelta(days=7),
    )


def test_imap_logs_in_with_the_token_by_the_mechanism_the_server_offers(provider, database):
    provider.dovecot.introspection.grant(TOKEN, CLUB)
    provider.append(mail("alice@example.org", "help", to=CLUB))

    def stored() -> bool:
        with database.reading() as session:
            return session.scalar(select(func.count()).select_from(InboundMessage)) == 1

    asyncio.run(read_until(reader(provider, database), stored))
    assert f"user=<{CLUB}>, method={provider.expected_mechanism}" in provider.dovecot.log()
    assert provider.dovecot.introspection.asked >= 1, "the token was checked by the provider"
    assert TOKEN not in provider.dovecot.log()


def test_a_refused_token_is_said_at_once_and_the_mail_waits(provider, database):
    provider.append(mail("alice@example.org", "help", to=CLUB))  # no token granted: any is refused
    mailbox = reader(provider, database)
    began = time.monotonic()
    asyncio.run(read_until(mailbox, lambda: mailbox.health.state == "login_refused", timeout=15))
    assert time.monotonic() - began < 10, "said at the server's NO, not at a command's timeout"
    assert provider.count("INBOX") == 1


def test_submission_logs_in_with_the_token_and_sends_as_the_account(provider):
    provider.dovecot.introspection.grant(TOKEN, CLUB)
    transport = SubmissionTransport("127.0.0.1", provider.postfix.port, token_account(provider))
    raw = mail(CLUB, "your turn", to=ALICE)
    asyncio.run(transport.send("games+bounce-1-x@club.test", ALICE, raw))
    assert len(provider.mailbox(ALICE).wait(1)) == 1
    assert f"sasl_method={provider.expected_mechanism}, sasl_username={CLUB}" in provider.postfix.log()
    assert transport.health.state == "sending"


def test_submission_with_a_refused_token_leaves_the_mail_waiting_and_says_why(provider):
    transport = SubmissionTransport("127.0.0.1", provider.postfix.port, token_account(provider))
    with pytest.raises(ProviderUnavailable, match="login was refused"):
        asyncio.run(asyncio.wait_for(transport.send("x", ALICE, mail(CLUB, "x", to=ALICE)), 30))
    assert transport.health.state == "login_refused"
