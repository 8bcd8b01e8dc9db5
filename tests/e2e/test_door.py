"""The SMTP door over real SMTP: what it stores from a hostile envelope, and what it logs."""

from __future__ import annotations

import logging
import smtplib

from sqlalchemy import select

from pbm.config import secret_key
from pbm.mail.tokens import ReplyTokens
from pbm.store.models import InboundMessage
from tests.support import mail

ALICE = "alice@example.org"


def test_a_nul_in_the_envelope_or_the_message_id_is_stored_and_answered_250(server, sink):
    raw = mail(ALICE, "help", message_id="<a\x00b@client.example>").replace(b"\n", b"\r\n")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=30) as client:
        client.ehlo()
        assert client.docmd("MAIL FROM:<ali\x00ce@example.org>")[0] == 250
        assert client.docmd("RCPT TO:<pbm+x\x00y@localhost>")[0] == 250
        assert client.data(raw)[0] == 250
    with server.server.database.reading() as session:
        row = session.scalars(select(InboundMessage)).one()
    assert row.raw == raw
    assert "\x00" not in row.envelope_from + row.envelope_to + row.message_id


def test_the_log_names_no_token_and_no_address_and_says_one_line_a_mail(server, sink, caplog):
    caplog.set_level(logging.INFO)
    sink.confirm_for(None)  # the three mails below, and no confirmation: one line each
    token = ReplyTokens(secret_key(server.server.settings)).make(board_id=101, player_id=1, ply=0)
    reply_address = f"pbm+{token}@localhost"
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(ALICE, "c3", to=reply_address), ALICE, [reply_address])
    server.send(mail(ALICE, "help"), ALICE)
    sink.wait(3)  # processed and delivered: every part of the server has had its say

    lines = [record for record in caplog.records if record.levelno >= logging.INFO]
    text = "\n".join(f"{record.getMessage()} {record.exc_text or ''}" for record in lines)
    for secret in (token, ALICE, reply_address, "alice-pw", "$argon2"):
        assert secret not in text
    door = [record for record in lines if record.name in ("mail.log", "pbm.mail.inbound")]
    assert len(door) <= 3
