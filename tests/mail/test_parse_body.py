"""parse_mail: finding and decoding the text the sender wrote."""

import base64

import pytest

from pbm.mail.fresh import fresh_text
from tests.mail.builders import fixture, message, parse


def multipart(subtype: str, *parts: bytes, boundary: str = "b1") -> bytes:
    """A multipart body (headers of the parts included in each part)."""
    out = b"".join(b"--" + boundary.encode() + b"\r\n" + part + b"\r\n" for part in parts)
    return out + b"--" + boundary.encode() + b"--\r\n"


def part(content_type: str, body: bytes, *extra: str) -> bytes:
    head = "".join(f"{h}\r\n" for h in (f"Content-Type: {content_type}", *extra))
    return head.encode() + b"\r\n" + body


# ---------------------------------------------------------------- charsets


def test_plain_utf8_body_is_read():
    mail = parse(message("c3=b3+c2\r\nWhat a game — ça va?\r\n"))
    assert mail.body == "c3=b3+c2\nWhat a game — ça va?\n"


def test_latin1_body_with_accents_is_read():
    body = "c3=b3+c2\r\nTrès bien joué, à toi!\r\n".encode("latin-1")
    mail = parse(message(body, content_type="text/plain; charset=iso-8859-1"))
    assert mail.body == "c3=b3+c2\nTrès bien joué, à toi!\n"
    assert mail.notes == ()


def test_quoted_printable_latin1_body_is_read():
    mail = parse(fixture("out_of_office.eml"), envelope_sender="frank.weber@fabrikam.de")
    assert mail.body.startswith(
        "Vielen Dank für Ihre Nachricht. Ich bin bis zum 8. Januar nicht im Büro."
    )


def test_windows1252_smart_quotes_are_read():
    body = "\u201cc3=b3+c2\u201d \u2013 that\u2019s it\r\n".encode("cp1252")
    mail = parse(message(body, content_type="text/plain; charset=windows-1252"))
    assert mail.body == "\u201cc3=b3+c2\u201d \u2013 that\u2019s it\n"


def test_latin1_label_with_windows1252_bytes_reads_smart_quotes():
    # Outlook labels Windows-1252 text "iso-8859-1"; browsers read it as 1252 too.
    body = "that\u2019s it".encode("cp1252")
    mail = parse(message(body, content_type="text/plain; charset=iso-8859-1"))
    assert mail.body == "that\u2019s it"


def test_iso_8859_15_euro_sign_is_read():
    mail = parse(
        message("100 €".encode("iso-8859-15"), content_type="text/plain; charset=iso-8859-15")
    )
    assert mail.body == "100 €"


def test_utf16_body_is_read_without_bom():
    body = "c3=b3+c2\r\nbien joué\r\n".encode("utf-16")
    mail = parse(message(body, content_type="text/plain; charset=utf-16"))
    assert mail.body == "c3=b3+c2\nbien joué\n"


def test_base64_utf8_body_is_read():
    body = base64.encodebytes("c3=b3+c2\r\nGrüße\r\n".encode())
    raw = message(body, headers={"Content-Transfer-Encoding": "base64"})
    assert parse(raw).body == "c3=b3+c2\nGrüße\n"


def test_unknown_charset_is_read_as_utf8_with_a_note():
    mail = parse(message("c3=b3+c2 ça".encode(), content_type="text/plain; charset=x-foo"))
    assert mail.body == "c3=b3+c2 ça"
    assert "the charset 'x-foo' is unknown; the text was read as UTF-8" in mail.notes


def test_unknown_charset_falls_back_to_latin1_when_not_utf8():
    mail = parse(message("c3=b3+c2 ça".encode("latin-1"), content_type="text/plain; charset=x-foo"))
    assert mail.body == "c3=b3+c2 ça"
    assert "the charset 'x-foo' is unknown; the text was read as Latin-1" in mail.notes


def test_python_only_codec_names_are_treated_as_unknown():
    # "unicode_escape" would turn the text \u0041 into "A": no sender may pick it.
    mail = parse(message(b"c3=b3+c2 \\u0041", content_type="text/plain; charset=unicode_escape"))
    assert mail.body == "c3=b3+c2 \\u0041"
    assert any("is unknown" in note for note in mail.notes)


def test_bytes_to_bytes_codec_name_is_treated_as_unknown():
    mail = parse(message(b"c3=b3+c2", content_type="text/plain; charset=base64"))
    assert mail.body == "c3=b3+c2"
    assert any("is unknown" in note for note in mail.notes)


def test_ascii_label_on_utf8_text_reads_utf8_with_a_note():
    mail = parse(message("joué".encode(), content_type="text/plain; charset=us-ascii"))
    assert mail.body == "joué"
    assert "the text is not valid 'us-ascii'; it was read as UTF-8" in mail.notes


def test_latin1_label_on_utf8_text_reads_utf8_with_a_note():
    mail = parse(message("Très bien joué".encode(), content_type="text/plain; charset=iso-8859-1"))
    assert mail.body == "Très bien joué"
    assert any("is UTF-8" in note for note in mail.notes)


def test_invalid_utf8_falls_back_to_latin1_with_a_note():
    mail = parse(message("joué".encode("latin-1"), content_type="text/plain; charset=utf-8"))
    assert mail.body == "joué"
    assert "the text is not valid 'utf-8'; it was read as Latin-1" in mail.notes


def test_missing_charset_reads_utf8_silently():
    mail = parse(message("joué".encode(), content_type="text/plain"))
    assert (mail.body, mail.notes) == ("joué", ())


def test_missing_charset_with_latin1_bytes_is_noted():
    mail = parse(message("joué".encode("latin-1"), content_type="text/plain"))
    assert mail.body == "joué"
    assert "the text has no charset; it was read as Latin-1" in mail.notes


def test_missing_content_type_is_plain_text():
    raw = message().replace(b"Content-Type: text/plain; charset=utf-8\r\n", b"")
    assert parse(raw).body == "c3=b3+c2\n"


# ---------------------------------------------------------------- normalisation


def test_crlf_and_lone_cr_become_newlines():
    mail = parse(message(b"a\r\nb\rc\n"))
    assert mail.body == "a\nb\nc\n"


def test_leading_bom_is_dropped():
    mail = parse(message("\ufeffc3=b3+c2".encode()))
    assert mail.body == "c3=b3+c2"


def test_nbsp_becomes_a_space():
    mail = parse(message("c3=b3+c2\u00a0\u00a0good".encode()))
    assert mail.body == "c3=b3+c2  good"


def test_nul_bytes_are_removed_with_a_note():
    mail = parse(message(b"c3=b3\x00+c2\x00\r\n"))
    assert mail.body == "c3=b3+c2\n"
    assert "control characters were removed from the text" in mail.notes


def test_tabs_survive():
    assert parse(message(b"roll\tc2")).body == "roll\tc2"


# ---------------------------------------------------------------- choosing the part


def test_alternative_prefers_the_plain_part():
    body = multipart(
        "alternative",
        part("text/html; charset=utf-8", b"<p>html c3</p>"),
        part("text/plain; charset=utf-8", b"plain c3"),
    )
    mail = parse(message(body, content_type='multipart/alternative; boundary="b1"'))
    assert mail.body == "plain c3"
    assert mail.notes == ()


def test_client_alternative_reply_uses_the_plain_part():
    mail = parse(fixture("gmail_reply.eml"))
    assert mail.body.startswith("c3=b3+c2\n\nNice capture last time!\n")
    assert mail.notes == ()


def test_html_only_outlook_mail_is_converted_with_a_note():
    mail = parse(fixture("html_only_outlook.eml"))
    assert "the HTML part was converted to text" in mail.notes
    assert fresh_text(mail.body) == "c3=b3+c2\n\nThat\u2019s my answer to your last move."


def test_html_only_gmail_mail_is_converted_with_a_note():
    mail = parse(fixture("html_only_gmail.eml"))
    assert "the HTML part was converted to text" in mail.notes
    assert fresh_text(mail.body) == "roll c2\nTrès bien joué !"


def test_converted_html_drops_links_styles_and_markup():
    mail = parse(fixture("html_only_outlook.eml"))
    for clutter in ["http://", "](", "MsoNormal", "<b>", "<o:p>", "**", "|"]:
        assert clutter not in mail.body, clutter


def test_converted_html_quote_becomes_quoted_lines():
    mail = parse(fixture("html_only_gmail.eml"))
    assert "> Summary of Cephalopod Board 104" in mail.body


@pytest.mark.parametrize(
    "markup",
    [
        "<p>c3=b3+c2</p>",
        "<div>c3=b3+c2</div><div><br></div>",
        "c3=b3+c2<br>",
        "<p>c3=b3+c2&nbsp;</p>",
        "<b>c3=b3+c2</b>",
        "<div><b>c3</b>=b3+c2</div>",
        "<p>c3=<b>b3</b>+c2</p>",
        "<div><strong>c3=b3+c2</strong></div>",
        "<i>c3=b3+c2</i>",
        "<u>c3=b3+c2</u>",
        "<p><span style='font-family:Calibri'>c3=b3+c2</span></p>",
        "<s>c3=b3+c2</s>",
        "<code>c3=b3+c2</code>",
        "<h1>c3=b3+c2</h1>",
        "<table><tr><td>c3=b3+c2</td></tr></table>",
        "<p>c3=b3&#43;c2</p>",
    ],
)
def test_move_written_in_html_survives_exactly(markup):
    mail = parse(message(markup.encode(), content_type="text/html; charset=utf-8"))
    assert fresh_text(mail.body) == "c3=b3+c2"


@pytest.mark.parametrize(
    "move",
    ["+-1,0", "-1,0", "1,0,0->1,-1", "+ 1", "- 1", "1. e4", "--1", "a\\-b", "x_y_", "*c3*", "#2"],
)
def test_markdown_looking_move_in_html_is_not_escaped(move):
    markup = f"<div>{move.replace('>', '&gt;')}</div><div>show</div>"
    mail = parse(message(markup.encode(), content_type="text/html; charset=utf-8"))
    assert mail.body == f"{move}\nshow"


def test_several_html_lines_stay_separate_lines():
    markup = b"<div>roll c2<br>show 101</div><div>&nbsp;</div><p>Good game</p>"
    mail = parse(message(markup, content_type="text/html; charset=utf-8"))
    assert mail.body == "roll c2\nshow 101\n\nGood game"


def test_mixed_attachments_are_ignored_with_a_note():
    mail = parse(fixture("attachments.eml"))
    assert mail.body == "cephalopod move 101 heidi secret c3=b3+c2\n"
    assert mail.notes == ("2 attachments were ignored",)


def test_single_attachment_note_is_singular():
    body = multipart(
        "mixed",
        part("text/plain; charset=utf-8", b"c3=b3+c2"),
        part("application/pdf", b"%PDF", 'Content-Disposition: attachment; filename="a.pdf"'),
    )
    mail = parse(message(body, content_type='multipart/mixed; boundary="b1"'))
    assert mail.notes == ("1 attachment was ignored",)


def test_attached_text_file_is_not_the_body():
    body = multipart(
        "mixed",
        part(
            "text/plain; charset=utf-8",
            b"notes.txt content",
            'Content-Disposition: attachment; filename="notes.txt"',
        ),
        part("text/plain; charset=utf-8", b"c3=b3+c2"),
    )
    mail = parse(message(body, content_type='multipart/mixed; boundary="b1"'))
    assert mail.body == "c3=b3+c2"
    assert mail.notes == ("1 attachment was ignored",)


def test_forwarded_message_is_not_mistaken_for_the_body():
    mail = parse(fixture("forwarded_message.eml"))
    assert mail.body == "show 103\n"
    assert "resign" not in mail.body
    assert mail.notes == ("1 attachment was ignored",)


def test_forward_alone_gives_no_body():
    inner = b"From: pbm@example.org\r\nSubject: x\r\n\r\nresign 103 grace secret\r\n"
    mail = parse(message(inner, content_type="message/rfc822"))
    assert mail.body == ""
    assert "resign" not in mail.body
    assert "the message has no text" in mail.notes


def test_inline_images_of_an_html_body_are_not_attachments():
    related = multipart(
        "related",
        part("text/html; charset=utf-8", b'<p>c3=b3+c2</p><img src="cid:logo">'),
        part(
            "image/png",
            b"PNG",
            "Content-ID: <logo>",
            'Content-Disposition: inline; filename="image001.png"',
        ),
        boundary="rel",
    )
    body = multipart(
        "alternative",
        part("text/plain; charset=utf-8", b"c3=b3+c2"),
        part('multipart/related; boundary="rel"', related),
    )
    mail = parse(message(body, content_type='multipart/alternative; boundary="b1"'))
    assert (mail.body, mail.notes) == ("c3=b3+c2", ())


def test_named_file_nested_in_an_alternative_is_an_attachment():
    # Apple Mail nests attachments inside the HTML alternative.
    mixed = multipart(
        "mixed",
        part("text/html; charset=utf-8", b"<p>c3=b3+c2</p>"),
        part("application/pdf", b"%PDF", 'Content-Disposition: inline; filename="rules.pdf"'),
        boundary="mx",
    )
    body = multipart(
        "alternative",
        part("text/plain; charset=utf-8", b"c3=b3+c2"),
        part('multipart/mixed; boundary="mx"', mixed),
    )
    mail = parse(message(body, content_type='multipart/alternative; boundary="b1"'))
    assert mail.notes == ("1 attachment was ignored",)


def test_pgp_signature_is_not_an_attachment():
    body = multipart(
        "signed",
        part("text/plain; charset=utf-8", b"c3=b3+c2"),
        part("application/pgp-signature", b"-----BEGIN PGP SIGNATURE-----"),
    )
    ctype = (
        'multipart/signed; micalg=pgp-sha256; protocol="application/pgp-signature"; boundary="b1"'
    )
    mail = parse(message(body, content_type=ctype))
    assert (mail.body, mail.notes) == ("c3=b3+c2", ())


def test_encrypted_mail_is_noted():
    body = multipart(
        "encrypted",
        part("application/pgp-encrypted", b"Version: 1"),
        part("application/octet-stream", b"-----BEGIN PGP MESSAGE-----"),
    )
    ctype = 'multipart/encrypted; protocol="application/pgp-encrypted"; boundary="b1"'
    mail = parse(message(body, content_type=ctype))
    assert mail.body == ""
    assert "the message is encrypted and could not be read" in mail.notes


def test_mail_with_only_an_image_has_no_text():
    mail = parse(message(b"PNG", content_type="image/png"))
    assert mail.body == ""
    assert "the message has no text" in mail.notes


# ---------------------------------------------------------------- damage


def test_missing_closing_boundary_still_reads_the_text():
    body = (
        b"--b1\r\nContent-Type: text/plain\r\n\r\nc3=b3+c2\r\n"
        b"--b1\r\nContent-Type: application/pdf\r\n\r\n%PDF-1."
    )
    mail = parse(message(body, content_type='multipart/mixed; boundary="b1"'))
    assert mail.body == "c3=b3+c2"


def test_boundary_that_never_appears_reads_the_raw_text_with_a_note():
    mail = parse(message(b"c3=b3+c2\r\n", content_type='multipart/mixed; boundary="nowhere"'))
    assert mail.body == "c3=b3+c2\n"
    assert any("MIME structure" in note for note in mail.notes)


def test_multipart_without_boundary_reads_the_raw_text():
    mail = parse(message(b"c3=b3+c2\r\n", content_type="multipart/mixed"))
    assert mail.body == "c3=b3+c2\n"


def test_bad_base64_keeps_what_decodes_with_a_note():
    raw = message(
        b"YzM9YjMrYzI=\r\n!!!not*base64$$$\r\n", headers={"Content-Transfer-Encoding": "base64"}
    )
    mail = parse(raw)
    assert mail.body.startswith("c3=b3+c2")
    assert any("base64" in note for note in mail.notes)


def test_bad_quoted_printable_is_read_as_is():
    raw = message(
        b"c3=3Db3+c2 =ZZ =\r\n", headers={"Content-Transfer-Encoding": "quoted-printable"}
    )
    assert parse(raw).body.startswith("c3=b3+c2 =ZZ")


def test_unknown_transfer_encoding_is_read_as_is():
    raw = message(b"c3=b3+c2", headers={"Content-Transfer-Encoding": "x-gzip64"})
    assert parse(raw).body == "c3=b3+c2"


def test_binary_garbage_gives_an_empty_but_valid_result():
    raw = bytes(range(256)) * 16
    mail = parse(raw)
    assert isinstance(mail.body, str)
    assert "\x00" not in mail.body
    assert mail.from_address is None


def test_empty_input_gives_an_empty_result():
    mail = parse(b"")
    assert (mail.body, mail.subject, mail.from_address) == ("", "", None)


def test_headers_only_message_has_an_empty_body():
    mail = parse(b"From: alice@example.com\r\nSubject: help\r\n")
    assert (mail.subject, mail.body) == ("help", "")


def test_absurdly_nested_multipart_keeps_the_headers():
    nested = b"--b0\r\n"
    for depth in range(1, 3000):
        nested += b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (depth, depth)
    mail = parse(message(nested, content_type="multipart/mixed; boundary=b0"))
    assert mail.from_address == "alice@example.com"
    assert "the message nests MIME parts more than 16 deep; the rest was not read" in mail.notes


def test_two_megabyte_body_is_cut_to_the_limit_with_a_note():
    line = b"c3=b3+c2 and a long comment about the game so far, line after line\r\n"
    body = line * (2 * 1024 * 1024 // len(line) + 1)
    mail = parse(message(body))
    assert len(mail.body) == 100_000
    assert fresh_text(mail.body).startswith("c3=b3+c2 and a long comment")
    assert "the text is longer than 100000 characters; only its start was read" in mail.notes


def test_two_megabyte_single_line_is_cut_to_the_limit():
    body = b"On " + b"x" * (2 * 1024 * 1024) + b"\r\n> quoted\r\n"
    mail = parse(message(body))
    assert fresh_text(mail.body) == "On " + "x" * (100_000 - 3)


def test_two_megabyte_html_body_is_converted():
    markup = b"<div>c3=b3+c2</div>\r\n" + b"<p>a paragraph of <b>comment</b></p>\r\n" * 50_000
    mail = parse(message(markup, content_type="text/html; charset=utf-8"))
    assert mail.body.startswith("c3=b3+c2\na paragraph of comment\n")


def test_html_converter_failure_falls_back_to_stripping_tags(monkeypatch):
    from pbm.mail import html_text

    def broken(self, markup):
        raise ValueError("html2text bug")

    monkeypatch.setattr(html_text._PlainHTML2Text, "handle", broken)
    mail = parse(
        message(b"<div>c3=b3+c2</div><div>bien&nbsp;jou&eacute;</div>", content_type="text/html")
    )
    assert mail.from_address == "alice@example.com"
    assert mail.body.split() == ["c3=b3+c2", "bien", "joué"]
