"""Bad input over real SMTP: each gets the right answer and changes nothing it should not."""

from __future__ import annotations

import smtplib

import pytest
from sqlalchemy import func, select

from pbm.store.models import Board, InboundMessage, MoveRecord, Player
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def game(server, sink):
    server.send(mail(ALICE, "signup alice alice-pw"), ALICE)
    server.send(mail(BOB, "signup bob bob-pw"), BOB)
    sink.wait(2)  # the welcome mails, each confirmed by a reply before bob can be challenged
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    server.send(mail(ALICE, "cephalopod move 101 alice alice-pw c3"), ALICE)
    sink.wait(4)
    return server


def snapshot(server):
    with server.server.database.reading() as session:
        game = session.scalar(select(Board))
        return (
            session.scalar(select(func.count()).select_from(Player)),
            session.scalar(select(func.count()).select_from(MoveRecord)),
            game.state if game else None,
        )


def inbound_rows(server):
    with server.server.database.reading() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


@pytest.mark.parametrize(
    ("sender", "line", "subject", "reason"),
    [
        (BOB, "frobnicate 101", "PBeM Server Error", "No command found in your mail"),
        (BOB, "cephalopod move 101 bob wrong-pw b3", "Cephalopod Board 101 Error", "Wrong password for bob"),
        (
            ALICE,
            "cephalopod move 101 alice alice-pw b3",
            "Cephalopod Board 101 Error",
            "It is not your turn: bob is to move",
        ),
        (BOB, "cephalopod move 101 bob bob-pw c3", "Cephalopod Board 101 Error", "c3 is occupied"),
        (
            BOB,
            "cephalopod move 101 bob bob-pw b3#1",
            "Cephalopod Board 101 Error",
            "written for move 1, but the game is at move 2",
        ),
        (
            BOB,
            "cephalopod move 404 bob bob-pw b3",
            "Cephalopod Board 404 Error",
            "There is no Cephalopod board 404",
        ),
    ],
)
def test_a_wrong_command_is_answered_and_changes_nothing(game, sink, sender, line, subject, reason):
    before = snapshot(game)
    game.send(mail(sender, line), sender)
    (answer,) = sink.wait(1)
    assert answer["Subject"] == subject
    assert answer["To"].addresses[0].addr_spec == sender
    assert reason in body_of(answer)
    assert snapshot(game) == before


def test_malformed_mime_is_read_as_far_as_it_goes(game, sink):
    raw = (
        f"From: {BOB}\nTo: pbm@localhost\nSubject: move\nMIME-Version: 1.0\n"
        'Content-Type: multipart/mixed; boundary="XYZ"\n\n'
        "--XYZ\nContent-Type: text/plain\n\ncephalopod move 101 bob bob-pw b3\n"
        "--XYZ\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n%%%not base64\n"
    ).encode()
    game.send(raw, BOB)
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 alice"}
    assert snapshot(game)[1] == 2


def test_binary_garbage_is_stored_and_answered_without_a_crash(game, sink):
    before = snapshot(game)
    garbage = bytes(range(256)) * 4
    game.send(f"From: {BOB}\nSubject: \x01\x02\n\n".encode() + garbage, BOB)
    (answer,) = sink.wait(1)
    assert answer["Subject"] == "PBeM Server Error"
    assert answer["To"].addresses[0].addr_spec == BOB
    text = body_of(answer)
    assert "No command found in your mail" in text
    assert "---------- your message ----------" in text and "\x00" not in text
    assert snapshot(game) == before
    assert inbound_rows(game)[-1].status == "processed"


def test_binary_garbage_without_any_headers_is_kept_and_not_answered(game, sink):
    before = snapshot(game)
    game.send((b"\x00\xff\xfe garbage \x80\x81" * 20 + b"\n") * 50, BOB)
    assert sink.once_settled(game) == []
    assert snapshot(game) == before
    assert inbound_rows(game)[-1].raw.startswith(b"\x00\xff\xfe garbage")


def test_a_two_megabyte_message_is_refused_at_the_door_with_552(game, sink):
    before = snapshot(game)
    stored = len(inbound_rows(game))
    huge = mail(BOB, "cephalopod move 101 bob bob-pw b3\n" + ("x" * 76 + "\n") * 27000).replace(
        b"\n", b"\r\n"
    )
    assert len(huge) > 2_000_000
    with smtplib.SMTP("127.0.0.1", game.smtp_port) as client:
        # A client that reads our SIZE limit is refused before it sends a byte ...
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            client.sendmail(BOB, ["pbm@localhost"], huge)
        assert refused.value.smtp_code == 552
        # ... and one that ignores it is refused at the end of DATA.
        client.mail(BOB)
        client.rcpt("pbm@localhost")
        code, _ = client.data(huge)
        assert code == 552
    assert snapshot(game) == before
    assert len(inbound_rows(game)) == stored  # the game's mails and their confirmations, nothing more
    assert sink.once_settled(game) == []


def test_html_only_mail_is_converted_and_the_move_applied(game, sink):
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = BOB, "pbm@localhost", "my move"
    message.set_content(
        "<html><body><p>cephalopod move 101 bob bob-pw <b>b3</b></p><p>Nice!</p></body></html>",
        subtype="html",
    )
    game.send(bytes(message), BOB)
    boards = sink.wait(2)
    assert {m["Subject"] for m in boards} == {"Cephalopod Board 101 alice **"}
    assert "bob writes:\n\nNice!" in body_of(boards[0])


def test_latin1_mail_keeps_its_accents_in_the_comment(game, sink):
    raw = (
        f"From: {BOB}\nTo: pbm@localhost\nSubject: coup\nMIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n"
        "cephalopod move 101 bob bob-pw b3\nTr\xe8s bien jou\xe9 !\n"
    ).encode("latin-1")
    game.send(raw, BOB)
    boards = sink.wait(2)
    assert "bob writes:\n\nTrès bien joué !" in body_of(boards[0])


AUTO_REPLY = f"""From: {BOB}
To: pbm@localhost
Subject: Out of office
Auto-Submitted: auto-replied

cephalopod move 101 bob bob-pw b3
"""

BOUNCE = """From: MAILER-DAEMON@mx.example.net
To: pbm@localhost
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

cephalopod move 101 bob bob-pw b3
--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
Final-Recipient: rfc822; nobody@example.net
Action: failed
Status: 5.1.1
--B--
"""


@pytest.mark.parametrize(
    ("raw", "envelope_sender"), [(AUTO_REPLY, BOB), (BOUNCE, "")], ids=["auto-reply", "bounce"]
)
def test_auto_replies_and_bounces_are_kept_but_never_answered(game, sink, raw, envelope_sender):
    before = snapshot(game)
    with smtplib.SMTP("127.0.0.1", game.smtp_port) as client:
        client.sendmail(envelope_sender, ["pbm@localhost"], raw.replace("\n", "\r\n").encode())
    assert sink.once_settled(game) == []
    assert snapshot(game) == before
    assert inbound_rows(game)[-1].status == "ignored"


def test_the_same_message_id_twice_is_applied_once(game, sink):
    raw = mail(BOB, "cephalopod move 101 bob bob-pw b3", message_id="<same@client.example>")
    game.send(raw, BOB)
    game.send(raw, BOB)
    assert len(sink.wait(2)) == 2
    assert sink.once_settled(game) == []
    assert snapshot(game)[1] == 2
    assert [r.status for r in inbound_rows(game)[-2:]] == ["processed", "duplicate"]


def test_mail_for_a_foreign_domain_is_refused_at_rcpt(game, sink):
    before = len(inbound_rows(game))
    with smtplib.SMTP("127.0.0.1", game.smtp_port) as client:
        code, _ = client.ehlo()
        client.mail(BOB)
        code, message = client.rcpt("victim@elsewhere.example")
        assert code == 550 and b"only for pbm@localhost" in message
        code, _ = client.rcpt("other@localhost")
        assert code == 550
    assert len(inbound_rows(game)) == before


def test_a_database_failure_answers_451_so_the_sender_retries(server, sink, monkeypatch):
    from sqlalchemy.exc import OperationalError

    import pbm.mail.inbound

    def unavailable(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception("database is locked"))

    monkeypatch.setattr(pbm.mail.inbound, "save_received", unavailable)
    with pytest.raises(smtplib.SMTPDataError) as refused:
        server.send(mail(ALICE, "help"), ALICE)
    assert refused.value.smtp_code == 451
    assert b"Traceback" not in refused.value.smtp_error
