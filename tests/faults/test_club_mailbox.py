"""Faults of a club's mailbox at a provider (issue 46), each with the exactly-once audit: every
player's mail answered once (0 lost, 0 doubled), nothing left in INBOX.

`pbm serve` is SIGKILLed between fetching a batch and storing it, and between storing and moving
it (`PBM_TEST_KILL_MAILBOX`); the folder's UIDVALIDITY changes while mail is stored but not
moved; Dovecot restarts under an IDLE; two servers share the mailbox and the holder dies; the
submission server refuses the login, then a recipient, then goes away.
"""

from __future__ import annotations

import collections
import time

import pytest
from sqlalchemy import func, select

from pbm.store.models import InboundMessage, MailboxMessage, OutboxMessage
from tests import dovecot
from tests.faults.harness import ServeProcess, wait_for
from tests.provider import CLUB, PASSWORD, Provider
from tests.support import mail

pytestmark = pytest.mark.skipif(dovecot.unavailable() is not None, reason=str(dovecot.unavailable()))

MAILS = 12


@pytest.fixture
def provider():
    provider = Provider()
    provider.start()
    yield provider
    provider.stop()


def serve(provider: Provider, database_url: str, workdir, name: str = "pbm", **env: str) -> ServeProcess:
    settings = {**provider.settings(), "PBM_CONFIRM_ADDRESSES": "off", **env}
    return ServeProcess(database_url, workdir, name=name, env=settings)


def signups(count: int, start: int = 0) -> list[bytes]:
    return [mail(f"p{i}@example.org", f"signup p{i} p{i}-pw", to=CLUB) for i in range(start, start + count)]


def count(database, *where, model=InboundMessage) -> int:
    with database.reading() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def audit(provider: Provider, database, players: int) -> None:
    """Each player welcomed exactly once; every mail processed once; the mailbox emptied."""
    assert wait_for(lambda: len(provider.submission.all) >= players, timeout=90), provider.submission.all
    time.sleep(1.5)  # a double would come now
    welcomed = collections.Counter(recipients[0] for _, recipients, _ in provider.submission.all)
    assert sorted(welcomed) == sorted(f"p{i}@example.org" for i in range(players)), "0 lost"
    assert set(welcomed.values()) == {1}, "0 doubled"
    assert count(database, InboundMessage.status == "processed") == players
    assert wait_for(lambda: provider.count("INBOX") == 0, timeout=30)
    assert provider.count("pbm-processed") == players
    assert wait_for(lambda: count(database, model=MailboxMessage) == 0, timeout=30)


def start_to_die(server: ServeProcess) -> None:
    """Start a server that kills itself at its planned point; returns once it is dead."""
    try:
        server.start()
    except AssertionError:
        pass  # died before both ports were seen
    assert server.process is not None
    assert server.process.wait(60) == -9, server.log()


@pytest.mark.parametrize("step", ["fetched", "stored"])
def test_a_sigkill_between_fetching_storing_and_moving_loses_and_doubles_nothing(
    step, provider, database_url, database, tmp_path
):
    provider.append(*signups(MAILS))
    marker = tmp_path / "killed"
    dying = serve(provider, database_url, tmp_path / "a", PBM_TEST_KILL_MAILBOX=f"{step}:{marker}")
    start_to_die(dying)
    stored = count(database)
    assert stored == (0 if step == "fetched" else MAILS)
    assert provider.count("INBOX") == MAILS, "nothing moved before the kill"

    server = serve(provider, database_url, tmp_path / "b")
    server.start()
    try:
        audit(provider, database, MAILS)
        assert count(database, InboundMessage.status == "duplicate") == 0, "moved without being stored again"
    finally:
        server.stop()


def test_a_changed_uidvalidity_stores_again_as_a_copy_never_processed_twice(provider, database_url, database, tmp_path):
    provider.append(*signups(MAILS))
    dying = serve(provider, database_url, tmp_path / "a", PBM_TEST_KILL_MAILBOX=f"stored:{tmp_path / 'killed'}")
    start_to_die(dying)
    assert count(database, model=MailboxMessage) == MAILS
    provider.dovecot.doveadm("mailbox", "update", "-u", CLUB, "--uid-validity", "4242", "INBOX")

    server = serve(provider, database_url, tmp_path / "b")
    server.start()
    try:
        audit(provider, database, MAILS)
        assert count(database, InboundMessage.status == "duplicate") == MAILS, "found again: copies, not processed"
        assert "UIDVALIDITY changed" in server.log()
    finally:
        server.stop()


def test_dovecot_restarted_under_an_idle_loses_and_doubles_nothing(provider, database_url, database, tmp_path):
    server = serve(provider, database_url, tmp_path / "a")
    server.start()
    try:
        provider.append(*signups(4))
        assert wait_for(lambda: len(provider.submission.all) == 4, timeout=30)
        provider.dovecot.restart()
        provider.append(*signups(MAILS - 4, start=4))
        audit(provider, database, MAILS)
        assert server.healthz().json()["mailbox"]["state"] == "reading"
    finally:
        server.stop()


def test_two_servers_on_one_mailbox_read_it_once_and_the_survivor_takes_over(
    provider, database_url, database, tmp_path
):
    if database_url.startswith("sqlite"):
        pytest.skip("several workers share one database on PostgreSQL")
    first = serve(provider, database_url, tmp_path / "a", name="first")
    second = serve(provider, database_url, tmp_path / "b", name="second")
    first.start()
    second.start()
    try:
        provider.append(*signups(MAILS // 2))
        assert wait_for(lambda: len(provider.submission.all) == MAILS // 2, timeout=60)
        states = {first.healthz().json()["mailbox"]["state"], second.healthz().json()["mailbox"]["state"]}
        assert states == {"reading", "standby"}
        first_reads = first.healthz().json()["mailbox"]["state"] == "reading"
        holder, survivor = (first, second) if first_reads else (second, first)
        holder.kill()
        provider.append(*signups(MAILS - MAILS // 2, start=MAILS // 2))
        audit(provider, database, MAILS)
        assert survivor.healthz().json()["mailbox"]["state"] == "reading"
    finally:
        first.stop()
        second.stop()


def test_the_submission_server_refusing_the_login_then_a_recipient_then_going_away(
    provider, database_url, database, tmp_path
):
    submission = provider.submission
    submission.handler.password = "another-password"  # the provider refuses our login
    server = serve(provider, database_url, tmp_path / "a", PBM_FIRST_RETRY_SECONDS="1")
    server.start()
    try:
        provider.append(*signups(4))
        assert wait_for(lambda: server.healthz().json().get("submission", {}).get("state") == "login_refused", 30)
        assert server.healthz().status_code == 503
        assert wait_for(lambda: count(database, model=OutboxMessage) == 4, timeout=30)
        waiting = server.cli("outbox").stdout
        assert "waits:" in waiting and "login was refused" in waiting, waiting
        with database.reading() as session:
            assert set(session.scalars(select(OutboxMessage.attempts))) == {0}, "no attempt counted"
        assert server.log().count("login_refused") == 1

        submission.handler.password = PASSWORD  # mended
        assert wait_for(lambda: len(submission.all) == 4, timeout=60)

        submission.handler.refused_recipients.add("p4@example.org")  # refuses one recipient for good
        provider.append(*signups(2, start=4))
        assert wait_for(lambda: len(submission.all) == 5, timeout=60)
        with database.reading() as session:
            failed = session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.status == "failed")).all()
        assert wait_for(lambda: count(database, OutboxMessage.status == "failed", model=OutboxMessage) == 1, 30)

        submission.stop()  # goes away
        provider.append(*signups(MAILS - 6, start=6))
        assert wait_for(lambda: server.healthz().json()["submission"]["state"] == "unreachable", timeout=60)
        submission.start()
        assert wait_for(lambda: len(submission.all) == MAILS - 1, timeout=120)
        time.sleep(1.5)
        welcomed = collections.Counter(recipients[0] for _, recipients, _ in submission.all)
        assert set(welcomed.values()) == {1}, "0 doubled"
        assert "p4@example.org" not in welcomed and len(welcomed) == MAILS - 1, "0 lost but the refused one"
        assert failed in ([], ["p4@example.org"])
        assert count(database, InboundMessage.status == "processed") == MAILS
    finally:
        server.stop()


def test_a_wrong_password_is_said_once_and_mail_waits_in_the_mailbox_until_it_is_mended(
    provider, database_url, database, tmp_path
):
    provider.password_file.write_text("not-the-password\n")
    server = serve(provider, database_url, tmp_path / "a")
    server.start()
    try:
        provider.append(*signups(1))
        assert wait_for(lambda: server.healthz().json().get("mailbox", {}).get("state") == "login_refused", 20)
        answer = server.healthz()
        assert answer.status_code == 503 and answer.json()["status"] == "degraded"
        assert "mailbox: login_refused since" in answer.json()["reason"]
        time.sleep(4)  # several attempts, with their backoff
        assert server.log().count("login_refused") == 1, "said once, not at every attempt"
        assert "not-the-password" not in server.log()
        assert provider.count("INBOX") == 1 and count(database) == 0

        provider.password_file.write_text(PASSWORD + "\n")  # read again at the next login
        audit(provider, database, 1)
        assert server.healthz().json()["mailbox"]["state"] == "reading"
    finally:
        server.stop()
