"""Composing outgoing mail: whatever text a reply carries, the mail has our headers and one plain part.

The text comes from received mail (the quoted original, a command line, a
Message-ID): it may hold line breaks, encoded words, control characters and
lone surrogates. None of it may create a header line or a MIME part, and none
of it may make composing fail.
"""

from __future__ import annotations

import asyncio
import email
import unicodedata
from datetime import datetime, timezone
from email.policy import default as default_policy

import jinja2
import pytest
from aiosmtpd.controller import Controller
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.commands.effects import OutgoingMail
from pbm.facts import UNCONVERTED, Fact
from pbm.i18n.text import one_line
from pbm.mail import headers
from pbm.mail.compose import SERVER_NAME, Answering, ComposedMail, Composer, Unaddressable
from pbm.mail.delivery import SmtpTransport
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.words.templating import Templates
from tests.e2e.conftest import free_port
from tests.mail.builders import ANSWER_HEADERS

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
ALICE = "alice@example.org"
C2_MESSAGE_ID = (
    "=?utf-8?q?<x@y>=0D=0ABcc:_someone@evil.test=0D=0AContent-Type:_text/html=0D=0A=0D=0A<h1>Click_me</h1>?="
)
UNTHREADED_HEADERS = [name for name in ANSWER_HEADERS if name not in ("In-Reply-To", "References")]

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def composer(templates: Templates | None = None) -> Composer:
    return Composer(templates or Templates(), Addressing("pbm@example.org"), ReplyTokens(b"k" * 32), b"t" * 32)


def echo_composer() -> Composer:
    """A composer whose one template, ``echo``, mails `title` as the subject and `text` as the body."""
    echo = jinja2.Environment(
        loader=jinja2.DictLoader({"mail/echo.txt": "{% set subject = title %}{{ text }}"}),
        undefined=jinja2.StrictUndefined,
    )

    class Echo(Templates):
        def speaking(self, language: str | None = None, zone: str | None = None) -> jinja2.Environment:
            return echo

    return composer(Echo())


def failure_reply(original: str = "help me", to: str = ALICE) -> OutgoingMail:
    return OutgoingMail("failure", to, {"original": original, "not_quoted": 0})


def error_context(reason: str = "", **fields: object) -> dict[str, object]:
    """What an error reply's template is given, without a board: `fields` over empty defaults, the
    reason as words not yet a fact (said as they are)."""
    return {
        "reason": Fact(UNCONVERTED, text=reason),
        "command": "",
        "view": None,
        "title": "",
        "board_number": None,
        "original": "",
        "not_quoted": 0,
        **fields,
    }


def parsed(mail: ComposedMail) -> email.message.EmailMessage:
    return email.message_from_bytes(mail.raw, policy=default_policy)  # type: ignore[return-value]


def header_block(mail: ComposedMail) -> bytes:
    return mail.raw.partition(b"\n\n")[0]


def as_mailed(text: str) -> str:
    """What a mail body holds for `text`: "\\n" line ends, control characters other than tab
    gone, surrogates replaced, no trailing white space, never two blank lines in a row, none
    around it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(c for c in text if c in "\t\n" or unicodedata.category(c) != "Cc")
    kept = "".join("\ufffd" if unicodedata.category(c) == "Cs" else c for c in kept)
    lines = "\n".join(line.rstrip() for line in kept.split("\n"))
    while "\n\n\n" in lines:
        lines = lines.replace("\n\n\n", "\n\n")
    return lines.strip("\n") + "\n"


def assert_well_formed(mail: ComposedMail, expected_headers: list[str]) -> email.message.EmailMessage:
    """The mail has exactly `expected_headers`, once each, RFC 5322 lines, and one plain-text part."""
    lines = mail.raw.split(b"\n")
    assert max(len(line) for line in lines) <= 998
    assert b"\r" not in mail.raw
    assert header_block(mail).isascii()
    message = parsed(mail)
    assert sorted(message.keys()) == sorted(expected_headers)
    assert not message.defects
    assert not message.is_multipart()
    assert (message.get_content_type(), message.get_content_charset()) == ("text/plain", "utf-8")
    return message


# -- C2: received text never writes a header line -------------------------------


def test_an_encoded_word_in_the_answered_message_id_writes_no_header_and_no_part():
    mail = composer().compose(failure_reply(), now=NOW, answering=Answering(C2_MESSAGE_ID))
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    assert b"evil" not in mail.raw and b"<h1>" not in mail.raw
    assert "Bcc" not in message


def test_line_breaks_in_the_answered_references_write_no_header():
    references = ("<a@x>\r\nBcc: eve@evil.test", "=?utf-8?q?<b@x>=0D=0ABcc:_eve@evil.test?=")
    mail = composer().compose(failure_reply(), now=NOW, answering=Answering("<m@client.example>", references))
    message = assert_well_formed(mail, ANSWER_HEADERS)
    assert message["References"].split() == ["<a@x>", "<m@client.example>"]
    assert b"evil" not in mail.raw


def test_a_recipient_that_is_not_a_plain_address_is_unaddressable():
    for to in ["", "alice", "alice@example.org\r\nBcc: eve@evil.test", "Alice <alice@example.org>", "a\ud800@x.org"]:
        with pytest.raises(Unaddressable):
            composer().compose(failure_reply(to=to), now=NOW)


def test_the_recipient_is_written_as_the_checked_address():
    mail = composer().compose(failure_reply(to="Alice@Example.ORG"), now=NOW)
    assert mail.recipient == "Alice@example.org"
    assert parsed(mail)["To"] == "Alice@example.org"


def test_a_subject_that_looks_like_an_encoded_word_is_encoded_so_it_reads_as_written():
    title = "=?utf-8?q?=0D=0ABcc:_eve@evil.test?="
    mail = echo_composer().compose(OutgoingMail("echo", ALICE, {"title": title, "text": "hi"}), now=NOW)
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    assert message["Subject"] == title
    assert b"evil" not in header_block(mail)


def test_line_breaks_in_the_subject_become_spaces():
    reply = OutgoingMail("echo", ALICE, {"title": "Board 101\r\nBcc: eve@evil.test", "text": "hi"})
    message = assert_well_formed(echo_composer().compose(reply, now=NOW), UNTHREADED_HEADERS)
    assert message["Subject"] == "Board 101 Bcc: eve@evil.test"


# -- C1: composing never fails on the text it carries --------------------------


def test_lone_surrogates_and_control_characters_in_the_context_compose():
    original = "help \ud800\udfff\x00 and \x1b[31mred\x07\r\nline two\x85\x7f"
    reply = OutgoingMail("error", ALICE, error_context(reason="No \udc80.", command="help \ud800", original=original))
    message = assert_well_formed(composer().compose(reply, now=NOW), UNTHREADED_HEADERS)
    body = message.get_content()
    assert "> help \ufffd\ufffd and [31mred\n> line two\n" in body
    assert "No \ufffd." in body
    assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in body.replace("\n", ""))


def test_a_subject_with_lone_surrogates_and_controls_composes():
    reply = OutgoingMail("echo", ALICE, {"title": "Board \ud800 \x00\x1b Error", "text": "hi"})
    message = assert_well_formed(echo_composer().compose(reply, now=NOW), UNTHREADED_HEADERS)
    assert message["Subject"] == "Board Error"


# -- L4: Message-IDs are written as they are ------------------------------------


def test_a_200_character_message_id_is_written_verbatim_into_in_reply_to_and_references():
    long_id = "<" + "a1b2c3" * 30 + "xyz@client.example>"
    assert len(long_id) == 200
    mail = composer().compose(failure_reply(), now=NOW, answering=Answering(long_id))
    assert f"\nIn-Reply-To: {long_id}\n".encode() in mail.raw
    assert f"\nReferences: {long_id}\n".encode() in mail.raw
    message = assert_well_formed(mail, ANSWER_HEADERS)
    assert message["In-Reply-To"] == message["References"] == long_id


def test_many_long_references_fold_between_ids_and_read_back_as_the_last_ten_and_the_answered_id():
    ids = [f"<{n:02d}." + "r" * 230 + "@client.example>" for n in range(15)]
    answered = "<answered." + "m" * 200 + "@client.example>"
    mail = composer().compose(failure_reply(), now=NOW, answering=Answering(answered, tuple(ids)))
    message = assert_well_formed(mail, ANSWER_HEADERS)
    assert message["References"].split() == [*ids[-10:], answered]
    folded = mail.raw.split(b"\nReferences:", 1)[1].split(b"\nMIME-Version:", 1)[0]
    assert [line.strip() for line in folded.split(b"\n")] == [i.encode() for i in [*ids[-10:], answered]]


def test_references_given_as_one_header_value_are_read_as_their_ids():
    answering = Answering("<m@x>", ("<a@x> <b@y>\r\n <c@z>",))
    message = parsed(composer().compose(failure_reply(), now=NOW, answering=answering))
    assert message["References"].split() == ["<a@x>", "<b@y>", "<c@z>", "<m@x>"]


def test_an_answer_to_a_mail_without_a_message_id_is_not_threaded():
    mail = composer().compose(failure_reply(), now=NOW, answering=Answering(None, ("<a@x>",)))
    assert_well_formed(mail, UNTHREADED_HEADERS)


# -- the mail itself ---------------------------------------------------------------


def test_the_message_id_of_the_mail_is_its_own_and_well_formed():
    mail = composer().compose(failure_reply(), now=NOW)
    assert headers.message_id(mail.message_id) == mail.message_id
    assert mail.message_id.endswith("@example.org>")
    assert parsed(mail)["Message-ID"] == mail.message_id


def test_a_threads_root_names_its_board_and_player_only_when_it_is_genuinely_ours():
    ours = composer()
    root = ours.thread_root(12, 3)
    assert ours.thread_named(root) == ours.thread_named(root.replace("@example.org", "@Example.ORG")) == (12, 3)
    forged = root.replace(".12.3.", ".12.4.")
    elsewhere = root.replace("@example.org", "@example.net")
    other_key = Composer(Templates(), Addressing("pbm@example.org"), ReplyTokens(b"k" * 32), b"u" * 32)
    for message_id in (forged, elsewhere, other_key.thread_root(12, 3), "<1234.5678@example.org>"):
        assert ours.thread_named(message_id) is None, message_id


def test_the_mail_says_who_sent_it_when_and_that_it_is_automatic():
    message = parsed(composer().compose(failure_reply(), now=NOW))
    assert message["From"] == f"{SERVER_NAME} <pbm@example.org>"
    assert message["Date"].datetime == NOW
    assert message["Auto-Submitted"] == "auto-replied"
    assert message["X-PBM-Loop"] == "pbm@example.org"
    assert message["MIME-Version"] == "1.0"


def test_an_ascii_body_with_short_lines_is_sent_7bit_as_it_is():
    mail = composer().compose(failure_reply("move c3\n. a dot line"), now=NOW)
    assert parsed(mail)["Content-Transfer-Encoding"] == "7bit"
    assert b"\n> move c3\n> . a dot line\n" in mail.raw


def test_a_non_ascii_body_is_sent_quoted_printable():
    mail = composer().compose(failure_reply("Grüße, Jörg"), now=NOW)
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    assert message["Content-Transfer-Encoding"] == "quoted-printable"
    assert "> Grüße, Jörg\n" in message.get_content()


def test_a_line_longer_than_998_octets_is_sent_quoted_printable_and_reads_back_whole():
    line = "x" * 2000
    mail = composer().compose(failure_reply(line), now=NOW)
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    assert message["Content-Transfer-Encoding"] == "quoted-printable"
    assert f"> {line}\n" in message.get_content()


def test_a_non_ascii_subject_is_sent_as_encoded_words_in_lines_of_at_most_76_characters():
    title = "Partie für Jörg und Zoë — " * 6
    mail = echo_composer().compose(OutgoingMail("echo", ALICE, {"title": title, "text": "hi"}), now=NOW)
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    assert message["Subject"] == title.strip()
    subject = header_block(mail).split(b"\nSubject:", 1)[1].split(b"\nDate:", 1)[0]
    assert all(len(line) <= 76 - len(b"Subject:") for line in subject.split(b"\n"))
    assert all(len(word) <= 75 for word in subject.split())


def test_an_empty_subject_is_the_server_name():
    message = parsed(echo_composer().compose(OutgoingMail("echo", ALICE, {"title": " \r\n", "text": "hi"}), now=NOW))
    assert message["Subject"] == SERVER_NAME


def test_the_server_address_must_be_a_plain_address():
    with pytest.raises(ValueError):
        Composer(Templates(), Addressing("pbm@local host\r\nBcc: x"), ReplyTokens(b"k" * 32), b"t" * 32)


# -- properties ------------------------------------------------------------------

HOSTILE_PIECES = [
    "\r\n",
    "\r",
    "\n",
    "\n\n",
    "\x00",
    "\t",
    "\x0b",
    "\x0c",
    "\x1b",
    "\x7f",
    "\x85",
    "\u2028",
    "\ud800",
    "\udfff",
    "\ufeff",
    "=?utf-8?q?=0D=0ABcc:_eve@evil.test?=",
    "?=",
    "=?",
    "Bcc: eve@evil.test",
    "Content-Type: text/html",
    "--boundary",
    ".",
    "\n.\n",
    "From ",
    " ",
    "é",
    "😀",
    "x" * 1100,
    "é" * 600,
]
texts = st.lists(
    st.one_of(st.text(st.characters(exclude_categories=()), max_size=40), st.sampled_from(HOSTILE_PIECES)),
    max_size=12,
).map("".join)
message_ids = st.one_of(
    texts,
    st.from_regex(r"<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,230}@[a-z]{1,12}\.example>", fullmatch=True),
)


@FUZZ
@given(title=texts, text=texts, answered=st.none() | message_ids, references=st.lists(message_ids, max_size=15))
def test_any_subject_and_body_make_a_mail_with_our_headers_and_the_text_as_sent(title, text, answered, references):
    reply = OutgoingMail("echo", ALICE, {"title": title, "text": text})
    mail = echo_composer().compose(reply, now=NOW, answering=Answering(answered, tuple(references)))
    answered_id = headers.message_id(answered)
    message = assert_well_formed(mail, ANSWER_HEADERS if answered_id else UNTHREADED_HEADERS)
    assert message["Subject"] == (one_line(title, limit=200) or SERVER_NAME)
    assert message.get_content() == as_mailed(text)
    if answered_id:
        kept = [ref for value in references for ref in headers.message_ids(value)][-10:]
        assert message["In-Reply-To"] == answered_id
        assert message["References"].split() == [*kept, answered_id]


@FUZZ
@given(reason=texts, command=texts, title=texts, board_number=st.none() | st.integers() | texts, original=texts)
def test_any_text_in_an_error_reply_makes_a_mail_with_our_headers_and_the_rendered_body(
    reason, command, title, board_number, original
):
    context = error_context(reason=reason, command=command, title=title, board_number=board_number, original=original)
    error_composer = composer()
    mail = error_composer.compose(OutgoingMail("error", ALICE, context), now=NOW, answering=Answering(C2_MESSAGE_ID))
    message = assert_well_formed(mail, UNTHREADED_HEADERS)
    subject, body = error_composer.render("error", context)
    assert message["Subject"] == subject
    assert message.get_content() == body == as_mailed(body)


# -- over SMTP -------------------------------------------------------------------


class Keeper:
    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.received.append(envelope.original_content)
        return "250 OK"


def test_smtp_delivery_sends_the_mail_with_crlf_line_ends_and_dot_lines_intact():
    keeper = Keeper()
    controller = Controller(keeper, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        mail = composer().compose(failure_reply(".\n..\n. leading dot\nGrüße\n" + "x" * 1200), now=NOW)
        transport = SmtpTransport("127.0.0.1", controller.port, timeout=10)
        asyncio.run(transport.send("pbm@example.org", mail.recipient, mail.raw))
    finally:
        controller.stop()
    [wire] = keeper.received
    assert wire == mail.raw.replace(b"\n", b"\r\n")
