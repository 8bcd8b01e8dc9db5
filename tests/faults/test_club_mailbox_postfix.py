"""Faults of a real provider's submission service (Debian's Postfix with Dovecot SASL, as
`tests.submission` runs it), with the exactly-once audit read from the players' own mailboxes:
every player welcomed once (0 lost, 0 doubled), every mail of the club's INBOX processed once.

The provider refuses the account's login at submission (SMTP AUTH turned off for it, as
Microsoft 365 does per account, while IMAP still reads), then refuses one recipient for good
(550 5.1.1: no such mailbox), then goes away (Postfix stopped) and comes back.
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import func, select

from pbm.store.models import InboundMessage, OutboxMessage
from tests import dovecot, submission
from tests.faults.harness import ServeProcess, wait_for
from tests.provider import CLUB, PostfixProvider
from tests.support import mail

pytestmark = pytest.mark.skipif(
    (dovecot.unavailable() or submission.unavailable()) is not None,
    reason=str(dovecot.unavailable() or submission.unavailable()),
)

PLAYERS = [f"p{i}@players.test" for i in range(8)]
NO_MAILBOX = "carol@players.test"
"""An address at the players' provider with no mailbox: its RCPT is refused (550)."""


@pytest.fixture
def provider():
    provider = PostfixProvider(PLAYERS)
    provider.start()
    yield provider
    provider.stop()


def signup(address: str) -> bytes:
    name = address.partition("@")[0]
    return mail(address, f"signup {name} {name}-pw", to=CLUB)


def count(database, *where, model=InboundMessage) -> int:
    with database.reading() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def welcomed(provider: PostfixProvider) -> dict[str, int]:
    """How many mails each player's mailbox holds."""
    return {player: len(provider.mailbox(player).all_raw()) for player in PLAYERS}


def test_the_provider_refusing_the_login_then_a_recipient_then_going_away_loses_and_doubles_nothing(
    provider, database_url, database, tmp_path
):
    provider.dovecot.refuse("smtp", CLUB)  # submission refuses the account; IMAP still reads
    settings = {**provider.settings(), "PBM_CONFIRM_ADDRESSES": "off", "PBM_FIRST_RETRY_SECONDS": "1"}
    server = ServeProcess(database_url, tmp_path / "serve", env=settings)
    server.start()
    try:
        for player in PLAYERS[:4]:
            provider.send(player, signup(player))
        assert wait_for(lambda: server.healthz().json().get("submission", {}).get("state") == "login_refused", 60)
        assert server.healthz().status_code == 503
        assert wait_for(lambda: count(database, model=OutboxMessage) == 4, timeout=30)
        waiting = server.cli("outbox").stdout
        assert "waits:" in waiting and "login was refused" in waiting, waiting
        time.sleep(3)  # attempts again, with their backoff
        with database.reading() as session:
            assert set(session.scalars(select(OutboxMessage.attempts))) == {0}, "no attempt counted against a mail"
        assert server.log().count("login_refused") == 1, "said once"
        assert "535" in provider.postfix.log() or "authentication failed" in provider.postfix.log()

        provider.dovecot.refuse("smtp", CLUB, refused=False)  # mended
        assert wait_for(lambda: sum(welcomed(provider).values()) == 4, timeout=60), provider.log()
        assert server.healthz().json()["submission"]["state"] == "sending"

        provider.append(signup(NO_MAILBOX))  # from outside: Postfix will refuse its welcome at RCPT
        provider.send(PLAYERS[4], signup(PLAYERS[4]))
        assert wait_for(lambda: count(database, OutboxMessage.status == "failed", model=OutboxMessage) == 1, 60)
        assert wait_for(lambda: welcomed(provider)[PLAYERS[4]] == 1, timeout=60)
        with database.reading() as session:
            failed = session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.status == "failed")).all()
        assert failed == [NO_MAILBOX], "the refused recipient's mail fails, and that mail only"
        assert "User unknown in virtual mailbox table" in provider.postfix.log()

        provider.postfix.stop()  # goes away; players' mails still reach the club's mailbox (its MX)
        provider.append(*(signup(player) for player in PLAYERS[5:]))
        assert wait_for(lambda: server.healthz().json()["submission"]["state"] == "unreachable", timeout=60)
        assert server.get("/").status_code == 200, "the web keeps working"
        provider.postfix.start()
        assert wait_for(lambda: sum(welcomed(provider).values()) == len(PLAYERS), timeout=120), provider.log()

        time.sleep(2)  # a double would come now
        assert welcomed(provider) == dict.fromkeys(PLAYERS, 1), "0 lost, 0 doubled"
        assert count(database, InboundMessage.status == "processed") == len(PLAYERS) + 1
        assert count(database, InboundMessage.status == "duplicate") == 0
        assert wait_for(lambda: provider.count("INBOX") == 0, timeout=30)
        assert provider.count("pbm-processed") == len(PLAYERS) + 1
    finally:
        server.stop()


def test_a_wrong_password_at_the_provider_stops_nothing_and_mail_waits_in_the_mailbox_until_mended(
    provider, database_url, database, tmp_path
):
    provider.password_file.write_text("not-the-password\n")  # wrong for IMAP and submission alike
    settings = {**provider.settings(), "PBM_CONFIRM_ADDRESSES": "off", "PBM_FIRST_RETRY_SECONDS": "1"}
    server = ServeProcess(database_url, tmp_path / "serve", env=settings)
    server.start()
    try:
        for player in PLAYERS[:3]:
            provider.send(player, signup(player))
        assert wait_for(lambda: server.healthz().json().get("mailbox", {}).get("state") == "login_refused", 30)
        time.sleep(4)
        assert server.log().count("login_refused") == 1 and "not-the-password" not in server.log()
        assert provider.count("INBOX") == 3 and count(database) == 0, "left in the mailbox, not lost"

        provider.password_file.write_text("app-password-1\n")
        assert wait_for(lambda: sum(welcomed(provider).values()) == 3, timeout=60), provider.log()
        time.sleep(2)
        assert welcomed(provider) == {**dict.fromkeys(PLAYERS, 0), **dict.fromkeys(PLAYERS[:3], 1)}
        assert wait_for(lambda: provider.count("INBOX") == 0, timeout=30)
    finally:
        server.stop()
