"""parse_mail: nothing read from a mail can poison a reply, a column or a log line."""

import json

import pytest

from pbm.mail.parse import ParsedMail
from tests.mail.builders import message, parse
from tests.mail.checks import NOT_IN_A_LINE, assert_clean

INJECTED_MESSAGE_ID = (
    "=?utf-8?q?<x@y>=0D=0ABcc:_someone@evil.test=0D=0AContent-Type:_text/html=0D=0A=0D=0A<h1>pwned</h1>?="
)


def test_utf7_body_has_no_lone_surrogate():
    mail = parse(message(b"help +2AA-\r\n", content_type="text/plain; charset=utf-7"))
    assert mail.body == "help \ufffd\n"
    assert "characters that are not valid Unicode were replaced in the text" in mail.notes
    mail.body.encode("utf-8")  # what composing a reply does


def test_utf7_encoded_word_message_id_is_dropped():
    mail = parse(message(headers={"Message-ID": "=?utf-7?q?+2AA-?="}))
    assert mail.message_id is None


def test_utf7_encoded_words_leave_no_surrogate_in_any_header():
    word = "=?utf-7?q?+2AA-?="
    mail = parse(message(headers={"Subject": f"move {word}"}, from_=f"{word} <alice@example.com>"))
    assert_clean(mail)
    assert mail.from_address == "alice@example.com"


def test_message_id_smuggling_header_lines_is_dropped():
    mail = parse(message(headers={"Message-ID": INJECTED_MESSAGE_ID}))
    assert mail.message_id is None


def test_threading_headers_smuggling_header_lines_are_dropped():
    headers = {"In-Reply-To": INJECTED_MESSAGE_ID, "References": f"<a@example.org> {INJECTED_MESSAGE_ID}"}
    mail = parse(message(headers=headers))
    assert mail.references == ()


def test_message_id_is_reduced_to_its_token():
    mail = parse(message(headers={"Message-ID": "<abc@host.example> (sent by Bcc: x)"}))
    assert mail.message_id == "<abc@host.example>"


def test_only_the_newest_twenty_references_are_kept():
    ids = [f"<m{i}@example.org>" for i in range(50)]
    mail = parse(message(headers={"References": " ".join(ids)}))
    assert mail.references == tuple(ids[-20:])


def test_four_hundred_character_from_address_is_not_read():
    address = "a" * 388 + "@example.com"
    mail = parse(message(from_=address))
    assert mail.from_address is None
    assert "the From address of the message could not be read" in mail.notes


def test_non_ascii_domain_is_written_as_idna():
    mail = parse(message(from_="Jörg <joerg@bücher.example>".encode()))
    assert mail.from_address == "joerg@xn--bcher-kva.example"


def test_non_ascii_local_part_is_not_read():
    mail = parse(message(from_="jörg@example.de".encode()))
    assert mail.from_address is None
    assert "the From address of the message could not be read" in mail.notes


@pytest.mark.parametrize(
    "value", ["=?utf-8?q?alice=0D=0A?=@example.com", "Alice <=?utf-8?q?a=0D=0ABcc:_x?=@example.com>"]
)
def test_from_address_with_an_encoded_word_is_not_read(value):
    # Setting it as the To of a reply would decode the word and raise on its line break.
    mail = parse(message(from_=value))
    assert mail.from_address is None
    assert "the From address of the message could not be read" in mail.notes


@pytest.mark.parametrize("character", ["\x85", "\u2028", "\u2029", "\x9b", "\x1b"])
def test_subject_and_sender_hold_no_line_separator_or_control_character(character):
    name = f"Al{character}ice <a@example.com>".encode()
    mail = parse(message(headers={"Subject": f"move{character}c3".encode()}, from_=name))
    assert not NOT_IN_A_LINE.search(mail.subject + (mail.from_address or ""))


def test_body_holds_no_c1_control_character():
    mail = parse(message("c3=b3+c2\x9b2J\x85next".encode()))
    assert mail.body == "c3=b3+c22J\nnext"


def test_html_character_reference_to_a_surrogate_is_replaced():
    mail = parse(message(b"<p>c3=b3+c2 &#xD800; &#55296;</p>", content_type="text/html"))
    assert_clean(mail)
    assert mail.body.startswith("c3=b3+c2")


def test_html_numeric_reference_of_thousands_of_digits_is_read_as_text():
    markup = b"<p>c3=b3+c2</p><p>&#" + b"1" * 5000 + b";</p>"
    mail = parse(message(markup, content_type="text/html"))
    assert mail.unreadable is None
    assert mail.body.startswith("c3=b3+c2\n&#111")


def test_markup_after_broken_character_references_is_still_markup():
    # After a few "&#" without digits html.parser takes the rest for text, tags and all.
    markup = b"<p>c3=b3+c2 &#a &#b &#c &#d;</p><p>bien <b>jou&eacute;</b></p>"
    mail = parse(message(markup, content_type="text/html"))
    assert mail.body == "c3=b3+c2 &#a &#b &#c &#d;\nbien jou\u00e9"


def test_parsed_mail_survives_a_json_round_trip():
    mail = parse(message(headers={"References": "<a@x> <b@y>"}))
    assert ParsedMail.from_json(json.loads(json.dumps(mail.to_json()))) == mail


def test_mail_stored_by_an_older_version_is_read_without_the_fields_it_no_longer_has():
    stored = {**parse(message()).to_json(), "from_name": "Alice"}
    assert ParsedMail.from_json(stored) == parse(message())


def test_mail_stored_before_in_reply_to_was_kept_is_read_as_answering_nothing():
    stored = {key: value for key, value in parse(message()).to_json().items() if key != "in_reply_to"}
    assert ParsedMail.from_json(stored).in_reply_to is None


def test_stored_mail_of_the_wrong_shape_is_refused():
    stored = parse(message()).to_json()
    with pytest.raises(ValueError):
        ParsedMail.from_json({**stored, "body": None})
    with pytest.raises(ValueError):
        ParsedMail.from_json({**stored, "references": "<a@x>"})
    with pytest.raises(ValueError):
        ParsedMail.from_json({key: value for key, value in stored.items() if key != "subject"})
    with pytest.raises(ValueError):
        ParsedMail.from_json([])  # type: ignore[arg-type]
