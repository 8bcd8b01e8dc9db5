"""A club's mailbox at a provider, piece by piece: its settings, its account's secret, the
envelope a mail of the mailbox is stored with, the daily sending limit, and (against a private
Dovecot) STARTTLS and the expunging of old processed mail."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.config import ConfigError, Inbound, Outbound, load_settings
from pbm.mail.account import Account, AccountError, Secret
from pbm.mail.delivery import Delivery, PermanentFailure, TransportUnavailable
from pbm.mail.mailbox import MailboxReader, _envelope_from, _envelope_to
from pbm.mail.submission import SubmissionTransport
from pbm.mail.tokens import Addressing
from pbm.store import outbox
from pbm.store.models import InboundMessage, OutboxMessage, OutboxStatus, Player
from tests import dovecot
from tests.provider import CLUB, PASSWORD, Provider, Submission
from tests.support import mail

PROVIDER = {
    "PBM_INBOUND": "imaps://games%40ourclub.org@imap.provider.example/INBOX",
    "PBM_OUTBOUND": "submission://games%40ourclub.org@smtp.provider.example:587",
    "PBM_MAIL_PASSWORD_FILE": "/etc/pbm/mailbox-password",
}


def settings_with(monkeypatch, **variables: str):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return load_settings()


def test_the_readme_setup_names_the_mailbox_and_the_submission_service_as_the_account(monkeypatch):
    settings = settings_with(monkeypatch, **PROVIDER)
    assert settings.inbound == Inbound("imaps", "games@ourclub.org", "imap.provider.example", 993, "INBOX")
    assert settings.outbound == Outbound("submission", host="smtp.provider.example", port=587, user="games@ourclub.org")
    assert settings.inbound_keep_days == 7
    smtps = settings_with(monkeypatch, PBM_OUTBOUND="smtps://games%40ourclub.org@smtp.provider.example")
    assert (smtps.outbound.kind, smtps.outbound.port) == ("smtps", 465)
    starttls = settings_with(monkeypatch, PBM_INBOUND="imap://games%40ourclub.org@imap.provider.example:1143/Games")
    assert starttls.inbound == Inbound("imap", "games@ourclub.org", "imap.provider.example", 1143, "Games")


@pytest.mark.parametrize(
    "variables, message",
    [
        ({"PBM_INBOUND": "pop3://games@pop.example"}, "PBM_INBOUND: expected imaps://USER@HOST"),
        ({"PBM_INBOUND": "imaps://imap.example/INBOX"}, "PBM_INBOUND: imaps:// needs the account and a host"),
        ({"PBM_INBOUND": "imaps://games:secret@imap.example/INBOX"}, "takes no password in the URL"),
        ({"PBM_MAIL_PASSWORD_FILE": ""}, "set PBM_MAIL_PASSWORD_FILE or PBM_MAIL_PASSWORD_COMMAND"),
        ({"PBM_OUTBOUND_MAX_PER_DAY": "0"}, "PBM_OUTBOUND_MAX_PER_DAY"),
    ],
)
def test_a_bad_provider_setting_stops_the_start_naming_it(monkeypatch, variables, message):
    with pytest.raises(ConfigError, match=message) as refused:
        settings_with(monkeypatch, **{**PROVIDER, **variables})
    assert "secret" not in str(refused.value)


def test_the_secret_comes_from_a_file_or_from_a_command_run_without_a_shell(tmp_path):
    password = tmp_path / "password"
    password.write_text("app password\n")
    assert Account("games@ourclub.org", password_file=password).secret() == Secret("app password")
    printed = f"{sys.executable} -c 'print(\"Bearer ya29.a-token\")'"
    assert Account("games@ourclub.org", password_command=printed).secret() == Secret("ya29.a-token", oauth2=True)
    no_shell = f"{sys.executable} -c 'import sys; print(sys.argv[1])' '$HOME;x'"
    assert Account("u", password_command=no_shell).secret().value == "$HOME;x"


def test_a_failing_secret_command_says_its_status_never_what_it_printed():
    failing = f"{sys.executable} -c 'print(\"hunter2\"); raise SystemExit(3)'"
    with pytest.raises(AccountError, match="exited with status 3") as failed:
        Account("u", password_command=failing).secret()
    assert "hunter2" not in str(failed.value)
    with pytest.raises(AccountError, match="is empty"):
        empty = Path("/dev/null")
        Account("u", password_file=empty).secret()


def test_a_mail_of_the_mailbox_is_stored_with_the_envelope_its_provider_recorded():
    addressing = Addressing("games@ourclub.org")
    delivered = (
        b"Return-Path: <alice@example.org>\r\nDelivered-To: games+abc123@ourclub.org\r\n"
        b"From: Alice <alice@example.org>\r\nTo: games@ourclub.org\r\n\r\nhelp\r\n"
    )
    assert _envelope_from(delivered) == "alice@example.org"
    assert _envelope_to(delivered, addressing) == ["games+abc123@ourclub.org"]
    appended = b"From: Bob <bob@example.net>\r\nTo: Games <games+t0k@ourclub.org>, eve@evil.example\r\n\r\nx"
    assert _envelope_from(appended) == "bob@example.net", "put there by a client: its From stands for the sender"
    assert _envelope_to(appended, addressing) == ["games+t0k@ourclub.org"], "only our addresses"
    bounce = b"Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example\r\nTo: games@ourclub.org\r\n\r\nfailed"
    assert _envelope_from(bounce) == "", "a bounce's null sender stays null: never answered"
    assert _envelope_to(b"To: someone@else.example\r\n\r\nx", addressing) == ["games@ourclub.org"]


def queue(database, rows: list[tuple[str, str | None]], *, now: datetime, player_id: int | None = None) -> None:
    """Outbox board mails to each recipient; with a sender, an answer to that sender's inbound mail."""
    with database.transaction() as session:
        for index, (recipient, asked_by) in enumerate(rows):
            inbound_id = None
            if asked_by is not None:
                row = InboundMessage(raw=b"x", envelope_from=asked_by, envelope_to="", status="processed")
                session.add(row)
                session.flush()
                inbound_id = row.id
            raw = b"Subject: x\r\n\r\nx\r\n"
            mail_row = outbox.Queued(recipient, f"<{index}.{recipient}@t>", raw, "board", player_id=player_id)
            outbox.enqueue(session, [mail_row], now=now, inbound_id=inbound_id)


class Taken:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.sent.append(recipient)

    async def check(self) -> None:
        pass

    async def rest(self) -> None:
        pass


def test_near_the_daily_limit_answers_go_first_and_at_it_mail_waits_with_its_reason(database):
    now = datetime(2026, 11, 28, 12, tzinfo=UTC)
    transport = Taken()
    delivery = Delivery(database, transport, "games@ourclub.org", now=lambda: now, max_per_day=20)
    queue(database, [(f"p{i}@example.org", None) for i in range(16)], now=now - timedelta(hours=2))
    asyncio.run(delivery.deliver_due())
    assert len(transport.sent) == 16
    # 4 left today, the last tenth (2) kept for answers: the answer goes first, then one board mail.
    queue(
        database,
        [("watcher@example.org", None), ("w2@example.org", None), ("alice@example.org", "Alice@Example.org")],
        now=now,
    )
    asyncio.run(delivery.deliver_due())
    assert transport.sent[16:] == ["alice@example.org", "watcher@example.org"]
    with database.reading() as session:
        waiting = session.scalars(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.PENDING)).all()
    assert [row.recipient for row in waiting] == ["w2@example.org"]
    assert "near the daily limit" in waiting[0].last_error and waiting[0].attempts == 0
    queue(database, [("bob@example.net", "bob@example.net")], now=now)
    queue(database, [("carol@example.com", "carol@example.com")], now=now)
    asyncio.run(delivery.deliver_due())
    assert transport.sent[18:] == ["bob@example.net", "carol@example.com"], "the last of the day: answers"
    queue(database, [("dave@example.com", "dave@example.com")], now=now)
    asyncio.run(delivery.deliver_due())
    assert len(transport.sent) == 20, "none past the limit"
    assert delivery.daily["limit"] == 20 and delivery.daily["sent_last_day"] == 20, "what /healthz shows"
    assert delivery.daily["waiting"] == 2, "w2 and dave wait, neither dropped"
    with database.reading() as session:
        dave = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == "dave@example.com")).one()
    assert "daily limit of 20 mails" in dave.last_error
    assert dave.next_attempt_at > now + timedelta(hours=21), "until the first of the day's mails is a day old"


def test_under_the_daily_limit_answers_go_first_and_board_mails_for_digest_players_last(database):
    now = datetime(2026, 11, 28, 12, tzinfo=UTC)
    with database.transaction() as session:
        dora = Player(userid="dora", password_hash="x", digest_times="07:30")
        session.add(dora)
        session.flush()
        dora_id = dora.id
    transport = Taken()
    delivery = Delivery(database, transport, "games@ourclub.org", now=lambda: now, max_per_day=20)
    queue(database, [(f"p{i}@example.org", None) for i in range(15)], now=now - timedelta(hours=2))
    asyncio.run(delivery.deliver_due())
    # 5 left today, 2 kept for answers: 3 go, in this order whatever the order they were queued in.
    queue(database, [("dora@example.org", None)], now=now - timedelta(minutes=3), player_id=dora_id)
    queue(database, [("watcher@example.org", None)], now=now - timedelta(minutes=2))
    queue(database, [("alice@example.org", "alice@example.org")], now=now - timedelta(minutes=1))
    queue(database, [("zed@example.org", None)], now=now)
    asyncio.run(delivery.deliver_due())
    assert transport.sent[15:] == ["alice@example.org", "watcher@example.org", "zed@example.org"]
    with database.reading() as session:
        waiting = session.scalars(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.PENDING)).all()
    assert [row.recipient for row in waiting] == ["dora@example.org"], "the digest player's board waits, not dropped"
    assert "near the daily limit" in waiting[0].last_error
    assert delivery.daily["waiting"] == 1, "what /healthz shows"


needs_dovecot = pytest.mark.skipif(dovecot.unavailable() is not None, reason=str(dovecot.unavailable()))


@pytest.fixture
def provider():
    provider = Provider()
    provider.start()
    yield provider
    provider.stop()


def reader_for(provider: Provider, database, scheme: str, **kwargs) -> MailboxReader:
    if database.engine.dialect.name != "sqlite":
        pytest.skip("the IMAP side is the same on either backend")
    port = provider.dovecot.imaps_port if scheme == "imaps" else provider.dovecot.imap_port
    account = Account(CLUB, password_file=provider.password_file, ca_file=provider.dovecot.cert)
    return MailboxReader(
        database,
        Inbound(scheme, CLUB, "127.0.0.1", port, "INBOX"),
        account,
        Addressing(CLUB),
        on_stored=lambda: None,
        max_size=1024 * 1024,
        keep=timedelta(days=7),
        **kwargs,
    )


async def read_until(reader: MailboxReader, done, timeout: float = 20.0) -> None:
    task = asyncio.create_task(reader.run())
    try:
        async with asyncio.timeout(timeout):
            while not await asyncio.to_thread(done):
                await asyncio.sleep(0.1)
    finally:
        reader.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)


@needs_dovecot
def test_imap_with_starttls_reads_the_mailbox_over_an_encrypted_connection(provider, database):
    provider.append(mail("alice@example.org", "help", to=CLUB))
    reader = reader_for(provider, database, "imap")

    def stored() -> bool:
        with database.reading() as session:
            return session.scalar(select(InboundMessage.envelope_from)) == "alice@example.org"

    asyncio.run(read_until(reader, stored))
    assert provider.count("INBOX") == 0 and provider.count("pbm-processed") == 1
    assert reader.health.state == "stopped"


@needs_dovecot
def test_processed_mail_older_than_the_days_kept_is_expunged_and_the_rest_kept(provider, database):
    provider.append(*[mail(f"p{i}@example.org", "help", to=CLUB) for i in range(5)])
    reader = reader_for(provider, database, "imaps")
    asyncio.run(read_until(reader, lambda: provider.count("pbm-processed") == 5))

    async def expunge(before: datetime) -> int:
        client = await reader._connect()
        try:
            return await reader.expunge_processed(client, before)
        finally:
            await client.logout()

    assert asyncio.run(expunge(datetime.now(UTC) - timedelta(days=7))) == 0, "today's mail is kept"
    assert provider.count("pbm-processed") == 5
    assert asyncio.run(expunge(datetime.now(UTC) + timedelta(days=2))) == 5, "as if a week had passed"
    assert provider.count("pbm-processed") == 0 and provider.count("INBOX") == 0


@pytest.fixture
def submission(tmp_path):
    cert, key = dovecot.self_signed(tmp_path)
    server = Submission(cert, key)
    server.start()
    yield server, cert
    server.stop()


def transport_to(submission, tmp_path, **account) -> SubmissionTransport:
    server, cert = submission
    return SubmissionTransport("127.0.0.1", server.port, Account(CLUB, ca_file=cert, **account))


def test_submission_sends_as_the_account_over_starttls_and_auth_on_one_connection(submission, tmp_path):
    password = tmp_path / "password"
    password.write_text(PASSWORD)
    transport = transport_to(submission, tmp_path, password_file=password)

    async def send_two() -> None:
        await transport.send("games+bounce-1-x@club.test", "alice@example.org", b"Subject: 1\r\n\r\none\r\n")
        first = transport._connection
        await transport.send("games+bounce-2-x@club.test", "bob@example.net", b"Subject: 2\r\n\r\ntwo\r\n")
        assert transport._connection is first, "the connection is reused between mails"
        await transport.rest()

    asyncio.run(send_two())
    sent = submission[0].wait_raw(2)
    assert [(sender, recipients) for sender, recipients, _ in sent] == [
        (CLUB, ["alice@example.org"]),
        (CLUB, ["bob@example.net"]),
    ], "the envelope sender is the account: providers refuse any other"
    assert transport.health.state == "sending"


def test_submission_takes_an_oauth2_token_by_xoauth2(submission, tmp_path):
    submission[0].handler.token = "ya29.the-token"
    command = f"{sys.executable} -c 'print(\"Bearer ya29.the-token\")'"
    transport = transport_to(submission, tmp_path, password_command=command)
    asyncio.run(transport.send("x", "alice@example.org", b"Subject: 1\r\n\r\none\r\n"))
    assert submission[0].wait_raw(1)[0][0] == CLUB


def test_a_refused_login_or_an_unreachable_provider_leaves_the_mail_waiting_and_a_refused_recipient_fails_it(
    submission, tmp_path
):
    password = tmp_path / "password"
    password.write_text("wrong")
    transport = transport_to(submission, tmp_path, password_file=password)
    with pytest.raises(TransportUnavailable, match="login was refused"):
        asyncio.run(transport.send("x", "alice@example.org", b"Subject: 1\r\n\r\none\r\n"))
    assert transport.health.state == "login_refused"
    password.write_text(PASSWORD)
    submission[0].handler.refused_recipients.add("nobody@example.org")
    with pytest.raises(PermanentFailure, match="550"):
        asyncio.run(transport.send("x", "nobody@example.org", b"Subject: 1\r\n\r\none\r\n"))
    assert transport.health.state == "sending"
    submission[0].stop()
    with pytest.raises(TransportUnavailable, match="does not answer"):
        asyncio.run(transport.send("x", "alice@example.org", b"Subject: 1\r\n\r\none\r\n"))
    assert transport.health.state == "unreachable"
