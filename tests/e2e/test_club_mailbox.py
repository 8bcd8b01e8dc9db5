"""A club with a mailbox at a provider: `pbm serve` with the README's four settings reads the
club's mailbox (a real Dovecot, over IMAPS with a private CA) and sends through the provider's
submission service (STARTTLS and AUTH), and a whole game is played by mail through them.
Each mail is taken once: stored, moved to the folder of processed mail, nothing left in INBOX."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select

import pbm.games
from pbm.store.models import BouncedAddress, InboundMessage, MailboxMessage
from tests import dovecot
from tests.faults.harness import ServeProcess, wait_for
from tests.provider import CLUB, Provider
from tests.support import body_of, mail, reply_to_board

pytestmark = pytest.mark.skipif(dovecot.unavailable() is not None, reason=str(dovecot.unavailable()))

ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def provider():
    provider = Provider()
    provider.start()
    yield provider
    provider.stop()


@pytest.fixture
def club(provider, database_url, tmp_path):
    if not database_url.startswith("sqlite"):
        pytest.skip("the mailbox is the same on either backend; its lease on PostgreSQL: tests/faults")
    server = ServeProcess(database_url, tmp_path / "serve", env={**provider.settings(), "PBM_CONFIRM_ADDRESSES": "off"})
    yield server
    server.stop()


def to(messages, address):
    return [m for m in messages if m["To"].addresses[0].addr_spec == address]


def count(database, *where, model=InboundMessage) -> int:
    with database.reading() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def read_once_and_the_mailbox_emptied(provider, database, mails: int) -> None:
    """Exactly once: each of the `mails` the players sent processed once, none taken for a duplicate;
    and nothing left to fill the mailbox: INBOX empty, every mail in the processed folder, no UID pending."""
    assert count(database, InboundMessage.status == "processed") == mails
    assert count(database, InboundMessage.status == "duplicate") == 0
    assert wait_for(lambda: provider.count("INBOX") == 0, timeout=10)
    assert provider.count("pbm-processed") == mails
    assert count(database, model=MailboxMessage) == 0


def test_a_whole_game_is_played_through_the_clubs_mailbox_and_its_submission_service(provider, club, database):
    engine = pbm.games.get("cephalopod")
    club.env["PBM_OUTBOUND_MAX_PER_DAY"] = "1000"
    club.start()
    submission = provider.submission
    provider.append(mail(ALICE, "signup alice alice-pw", to=CLUB), mail(BOB, "signup bob bob-pw", to=CLUB))
    welcomes = submission.wait(2)
    assert {m["To"].addresses[0].addr_spec for m in welcomes} == {ALICE, BOB}
    provider.append(mail(ALICE, "cephalopod challenge alice bob", to=CLUB))
    bob_board = to(submission.wait(2), BOB)[0]

    state = engine.new(players=2)
    chooser = random.Random(46)
    mails = 3
    for _ in range(11):  # then bob resigns: a whole game, in the time make test has
        move = chooser.choice(engine.legal_moves(state))
        if state.to_move == 0:
            provider.append(mail(ALICE, f"cephalopod move 101 alice alice-pw {move}#{state.ply + 1}", to=CLUB))
        else:
            provider.append(reply_to_board(bob_board, BOB, move))  # to games+TOKEN@club.test: plus addressing
        mails += 1
        state = engine.play(state, move)
        boards = submission.wait(2)
        bob_board = to(boards, BOB)[0]
        assert engine.render(state).rstrip() in body_of(bob_board)
    assert engine.result(state) is None and state.to_move == 1
    provider.append(reply_to_board(bob_board, BOB, "resign"))
    mails += 1
    assert all("won by alice" in m["Subject"] for m in submission.wait(2))

    # Every mail went once, as the account, over an authenticated submission.
    senders = {sender for sender, _, _ in submission.all}
    assert senders == {CLUB}
    read_once_and_the_mailbox_emptied(provider, database, mails)
    health = club.healthz().json()
    assert health["mailbox"]["state"] == "reading" and health["submission"]["state"] == "sending"
    assert health["daily_limit"]["limit"] == 1000
    assert wait_for(lambda: club.healthz().json()["daily_limit"]["sent_last_day"] == len(submission.all), 10)


def test_a_mail_over_the_size_limit_is_fetched_no_further_than_its_header_and_answered_as_too_large(
    provider, club, database
):
    club.env["PBM_MAX_MESSAGE_SIZE"] = "4096"
    club.start()
    provider.append(mail(ALICE, "signup alice alice-pw\n\n" + "x" * 8000, to=CLUB))
    provider.append(mail(BOB, "signup bob bob-pw", to=CLUB))
    answers = {m["To"].addresses[0].addr_spec: m for m in provider.submission.wait(2)}
    assert "more than the 4096 this server takes" in body_of(answers[ALICE])
    assert "Welcome" in answers[BOB]["Subject"]
    assert wait_for(lambda: provider.count("INBOX") == 0, timeout=10)
    with database.reading() as session:
        stored = session.scalars(select(InboundMessage.raw).order_by(InboundMessage.id)).all()
    assert len(stored[0]) < 1024 and b"xxxx" not in stored[0], "its header only"


def dsn(returned_message_id: str) -> bytes:
    """A provider's report that a mail sent through the account failed for good: to the account
    itself (the envelope sender), with the null sender, returning the failed mail's headers."""
    return (
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@provider.example\r\nTo: games@club.test\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <report.1@provider.example>\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; provider.example\r\n\r\n"
        "Final-Recipient: rfc822; alice@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: games@club.test\r\nTo: alice@example.org\r\n"
        f"Message-ID: {returned_message_id}\r\nSubject: Welcome\r\n--b--\r\n"
    ).encode()


def test_a_report_of_failure_to_the_account_is_matched_to_its_mail_by_the_message_id_it_returns(
    provider, club, database
):
    club.start()
    provider.append(mail(ALICE, "signup alice alice-pw", to=CLUB))
    (welcome,) = provider.submission.wait(1)
    provider.append(dsn("<not.ours@elsewhere.example>"), dsn(str(welcome["Message-ID"])))
    assert wait_for(lambda: count(database, model=BouncedAddress) == 1, timeout=20)
    with database.reading() as session:
        bounced = session.scalars(select(BouncedAddress)).one()
    assert bounced.address == ALICE and bounced.stopped_at is not None, "a permanent failure stops mail to it"
    assert wait_for(lambda: count(database, InboundMessage.status == "pending") == 0, timeout=10)
    assert len(provider.submission.all) == 1, "a report is never answered"
