"""parse_mail: auto_reason, the mail that must never be answered (no mail loops)."""

import pytest

from tests.mail.builders import OUR_ADDRESS, fixture, message, parse


def test_ordinary_mail_may_be_answered():
    assert parse(message()).auto_reason is None


@pytest.mark.parametrize(
    "name",
    [
        "gmail_reply.eml",
        "outlook_reply.eml",
        "apple_mail_reply.eml",
        "thunderbird_reply.eml",
        "html_only_outlook.eml",
        "attachments.eml",
    ],
)
def test_client_replies_may_be_answered(name):
    assert parse(fixture(name), envelope_sender="player@example.com").auto_reason is None


def test_real_dsn_bounce_is_not_answered():
    mail = parse(fixture("dsn_bounce.eml"), envelope_sender="")
    assert mail.auto_reason == "bounce (null envelope sender)"


def test_dsn_is_recognised_by_its_content_type_alone():
    raw = fixture("dsn_bounce.eml")
    raw = raw.replace(b"Auto-Submitted: auto-replied\r\nMIME", b"MIME")
    raw = raw.replace(b"From: MAILER-DAEMON@mx.example.org", b"From: relay@mx.example.org")
    mail = parse(raw, envelope_sender="relay@mx.example.org")
    assert mail.auto_reason == "delivery status notification (multipart/report)"


def test_our_loop_header_inside_a_bounced_copy_is_not_ours():
    # The DSN carries our original mail (with X-PBM-Loop) as an attachment; only a
    # top-level header means the mail itself is ours.
    mail = parse(fixture("dsn_bounce.eml"), envelope_sender="")
    assert "loop" not in mail.auto_reason


def test_out_of_office_reply_is_not_answered():
    mail = parse(fixture("out_of_office.eml"), envelope_sender="frank.weber@fabrikam.de")
    assert mail.auto_reason == "auto-submitted (auto-generated)"


@pytest.mark.parametrize(
    "value",
    [
        "auto-replied",
        "auto-generated",
        "AUTO-REPLIED",
        'auto-replied; owner-email="x@example.com"',
        "auto-notified",
        "",
    ],
)
def test_auto_submitted_other_than_no_is_not_answered(value):
    assert parse(message(headers={"Auto-Submitted": value})).auto_reason is not None


@pytest.mark.parametrize("value", ["no", "No", " NO ", "no (a human wrote this)", "no; x=y"])
def test_auto_submitted_no_may_be_answered(value):
    assert parse(message(headers={"Auto-Submitted": value})).auto_reason is None


@pytest.mark.parametrize("value", ["bulk", "junk", "list", "Bulk", " LIST "])
def test_bulk_precedence_is_not_answered(value):
    reason = parse(message(headers={"Precedence": value})).auto_reason
    assert reason == f"bulk mail (Precedence: {value.strip().lower()})"


def test_first_class_precedence_may_be_answered():
    assert parse(message(headers={"Precedence": "first-class"})).auto_reason is None


@pytest.mark.parametrize("sender", ["", "<>", " <> "])
def test_null_envelope_sender_is_a_bounce(sender):
    assert parse(message(), envelope_sender=sender).auto_reason == "bounce (null envelope sender)"


def test_null_return_path_is_a_bounce_when_the_envelope_is_unknown():
    raw = message(headers={"Return-Path": "<>"})
    assert parse(raw, envelope_sender=None).auto_reason == "bounce (null Return-Path)"


def test_unknown_envelope_with_a_real_return_path_may_be_answered():
    raw = message(headers={"Return-Path": "<alice@example.com>"})
    assert parse(raw, envelope_sender=None).auto_reason is None


@pytest.mark.parametrize(
    "address",
    [
        "MAILER-DAEMON@mx.example.org",
        "mailer-daemon@example.org",
        "postmaster@example.org",
        "Postmaster@Example.org",
    ],
)
def test_mail_system_from_address_is_not_answered(address):
    assert parse(message(from_=address), envelope_sender="x@example.org").auto_reason.startswith(
        "sent by a mail system"
    )


def test_mail_system_envelope_sender_is_not_answered():
    mail = parse(message(), envelope_sender="MAILER-DAEMON")
    assert mail.auto_reason == "sent by a mail system (mailer-daemon)"


@pytest.mark.parametrize(
    "address", ["noreply@example.com", "no-reply@example.com", "do-not-reply@example.com"]
)
def test_no_reply_address_is_not_answered(address):
    assert parse(message(from_=address)).auto_reason == "sent from a no-reply address"


@pytest.mark.parametrize("header", ["X-Autoreply", "X-Autorespond"])
def test_autoreply_headers_are_not_answered(header):
    reason = parse(message(headers={header: "yes"})).auto_reason
    assert reason == f"auto-reply header ({header.lower()})"


@pytest.mark.parametrize("value", ["All", "OOF", "AutoReply", "DR, OOF, AutoReply", "oof"])
def test_auto_response_suppress_is_not_answered(value):
    assert parse(message(headers={"X-Auto-Response-Suppress": value})).auto_reason is not None


def test_auto_response_suppress_of_receipts_only_may_be_answered():
    assert parse(message(headers={"X-Auto-Response-Suppress": "DR, RN, NRN"})).auto_reason is None


@pytest.mark.parametrize("header", ["List-Id", "List-Unsubscribe"])
def test_mailing_list_mail_is_not_answered(header):
    raw = message(headers={header: "<games.lists.example.org>"})
    assert parse(raw).auto_reason == f"mailing list ({header.lower()})"


def test_our_own_loop_header_is_not_answered():
    raw = message(headers={"X-PBM-Loop": OUR_ADDRESS})
    assert parse(raw).auto_reason == "it is our own mail (loop)"


def test_our_loop_header_is_matched_loosely():
    raw = message(headers={"X-PBM-Loop": " <PBM@Example.ORG> "})
    assert parse(raw).auto_reason == "it is our own mail (loop)"


def test_another_servers_loop_header_is_not_ours():
    raw = message(headers={"X-PBM-Loop": "pbm@other.example.net"})
    assert parse(raw).auto_reason is None


def test_mail_from_our_own_address_is_a_loop():
    raw = message(from_="Cephalopod Server <pbm+c101a.9f3e2b@example.org>")
    assert (
        parse(raw, envelope_sender="pbm@example.org").auto_reason
        == "it comes from our own address (loop)"
    )


def test_loop_check_needs_a_marker():
    raw = message(headers={"X-PBM-Loop": ""})
    from pbm.mail.parse import parse_mail

    assert parse_mail(raw, envelope_sender="alice@example.com", loop_marker="").auto_reason is None


def test_each_reason_is_a_short_phrase():
    reasons = {
        parse(fixture("dsn_bounce.eml"), envelope_sender="").auto_reason,
        parse(fixture("out_of_office.eml")).auto_reason,
        parse(message(headers={"X-PBM-Loop": OUR_ADDRESS})).auto_reason,
        parse(message(headers={"X-Auto-Response-Suppress": "x" * 500 + ", All"})).auto_reason,
        parse(message(headers={"Auto-Submitted": "auto-" + "x" * 500})).auto_reason,
    }
    assert all(reason and len(reason) < 80 and "\n" not in reason for reason in reasons)
