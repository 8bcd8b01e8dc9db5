"""parse_mail: sender, subject and threading headers."""

import pytest

from tests.mail.builders import fixture, message, parse


def test_from_address_is_read_beside_a_display_name():
    mail = parse(message(from_="Alice Smith <alice@example.com>"))
    assert mail.from_address == "alice@example.com"
    assert mail.notes == ()


def test_from_domain_is_lower_cased_but_local_part_kept():
    mail = parse(fixture("outlook_reply.eml"))
    assert mail.from_address == "Bob.Jones@contoso.com"


def test_bare_from_address_is_read():
    assert parse(message(from_="alice@example.com")).from_address == "alice@example.com"


def test_from_address_is_read_beside_an_encoded_display_name():
    mail = parse(message(from_="=?utf-8?q?Ren=C3=A9_Dupont?= <rene@example.fr>"))
    assert (mail.from_address, mail.notes) == ("rene@example.fr", ())


def test_from_address_is_read_beside_an_eight_bit_utf8_display_name():
    mail = parse(message(from_="Jörg Müller <joerg@example.de>".encode()))
    assert (mail.from_address, mail.notes) == ("joerg@example.de", ())


def test_from_address_is_read_beside_an_eight_bit_latin1_display_name():
    mail = parse(message(from_="René <rene@example.fr>".encode("latin-1")))
    assert (mail.from_address, mail.notes) == ("rene@example.fr", ())


def test_missing_from_gives_no_address_and_a_note():
    mail = parse(message(from_=None))
    assert mail.from_address is None
    assert "the message has no From address" in mail.notes


def test_unparseable_from_gives_no_address_and_a_note():
    # "<" alone makes the stdlib address parser raise IndexError.
    for value in ["<", '"', "alice@", "Alice", "undisclosed-recipients:;"]:
        mail = parse(message(from_=value))
        assert mail.from_address is None, value
        assert "the From address of the message could not be read" in mail.notes


def test_from_address_the_parser_had_to_guess_is_not_trusted():
    mail = parse(message(from_="bob@ex ample.org"))
    assert mail.from_address is None


@pytest.mark.parametrize(
    "value", ["Alice <alice@example.com", "alice@example.com>", "<alice@example.com> Alice"]
)
def test_from_address_with_a_harmless_slip_is_read(value):
    assert parse(message(from_=value)).from_address == "alice@example.com"


def test_first_of_several_from_addresses_is_used():
    mail = parse(message(from_="alice@example.com, bob@example.com"))
    assert mail.from_address == "alice@example.com"


def test_plain_mail_has_no_notes():
    assert parse(message()).notes == ()


def test_subject_q_encoding_is_decoded():
    mail = parse(message(headers={"Subject": "=?iso-8859-1?q?Tr=E8s_bien_jou=E9?="}))
    assert mail.subject == "Très bien joué"


def test_subject_b_encoding_is_decoded():
    mail = parse(message(headers={"Subject": "=?utf-8?b?Q8OpcGhhbG9wb2QgbW92ZSAxMDE=?="}))
    assert mail.subject == "Céphalopod move 101"


def test_folded_subject_of_several_encoded_words_is_joined():
    # White space between adjacent encoded words is not part of the text (RFC 2047).
    subject = "=?utf-8?q?cephalopod_move_101_?=\r\n =?utf-8?b?YWxpY2Ugc2VjcmV0IGMzPWIzK2My?="
    mail = parse(message(headers={"Subject": subject}))
    assert mail.subject == "cephalopod move 101 alice secret c3=b3+c2"


def test_folded_plain_subject_is_unfolded_and_stripped():
    mail = parse(message(headers={"Subject": "  cephalopod move 101\r\n\talice secret c3=b3+c2  "}))
    assert mail.subject == "cephalopod move 101 alice secret c3=b3+c2"


def test_subject_cannot_smuggle_a_line_break():
    mail = parse(message(headers={"Subject": "=?utf-8?q?hi=0D=0ABcc:_victim@example.com?="}))
    assert "\n" not in mail.subject and "\r" not in mail.subject


def test_missing_subject_is_empty():
    raw = message().replace(b"Subject: move\r\n", b"")
    assert parse(raw).subject == ""


def test_subject_with_unknown_charset_still_reads():
    mail = parse(message(headers={"Subject": "=?x-unknown?q?show_101?="}))
    assert "show" in mail.subject


def test_message_id_is_kept_as_sent():
    mail = parse(message(headers={"Message-ID": "<CAH8yC8k=Jk3p@mail.gmail.com>"}))
    assert mail.message_id == "<CAH8yC8k=Jk3p@mail.gmail.com>"


def test_folded_message_id_is_unfolded():
    mail = parse(message(headers={"Message-ID": "\r\n  <abc@host.example>"}))
    assert mail.message_id == "<abc@host.example>"


def test_empty_or_missing_message_id_is_none():
    assert parse(message(headers={"Message-ID": ""})).message_id is None
    assert parse(message().replace(b"Message-ID: <m1@example.com>\r\n", b"")).message_id is None


def test_references_are_split_over_folded_lines():
    refs = "<a@example.org>\r\n <b@example.org>\t<c@example.org>"
    mail = parse(message(headers={"References": refs}))
    assert mail.references == ("<a@example.org>", "<b@example.org>", "<c@example.org>")


def test_missing_references_are_empty():
    assert parse(message()).references == ()


def test_threading_headers_of_a_client_reply():
    mail = parse(fixture("gmail_reply.eml"))
    assert mail.message_id == "<CAH8yC8kZ2vQ+Lm0wXf=Jk3p@mail.gmail.com>"
    assert mail.references == ("<board.101.1@example.org>",)
    assert mail.in_reply_to == "<board.101.1@example.org>"
    assert mail.subject == "Re: Cephalopod Board 101 alice"


def test_in_reply_to_is_one_well_formed_message_id_or_none():
    assert parse(message(headers={"In-Reply-To": "<a@example.org> (alice's mail)"})).in_reply_to == "<a@example.org>"
    assert parse(message(headers={"In-Reply-To": "=?utf-8?q?<a@x>=0D=0ABcc:_x@evil.test?="})).in_reply_to is None
    assert parse(message()).in_reply_to is None
