"""parse_mail: a crafted mail costs bounded time and memory; what is cut is said.

Each bomb below took tens of seconds to hours, or gigabytes, before the limits.  The
timeouts only catch a hang; none of these tests measures speed.
"""

import pytest

from pbm.mail.limits import MailLimits
from pbm.mail.parse import parse_mail
from tests.mail.builders import OUR_ADDRESS, message, parse
from tests.mail.checks import assert_clean

pytestmark = pytest.mark.timeout(60)

LIMITS = MailLimits()


def html(markup: str | bytes) -> bytes:
    return message(markup, content_type="text/html; charset=utf-8")


# ---------------------------------------------------------------- HTML


@pytest.mark.parametrize("kilobytes", [80, 160])
def test_nested_list_bomb_is_read_without_its_layout(kilobytes):
    markup = "<ol><li>move" * (kilobytes * 1024 // 12)
    mail = parse(html(markup))
    assert_clean(mail)
    assert mail.body.split()[:3] == ["move", "move", "move"]
    assert "the HTML part nests lists or quotes more than 32 deep; it was read without its layout" in mail.notes


def test_nested_quote_bomb_is_read_without_its_layout():
    mail = parse(html("<blockquote>c3=b3+c2<br>" * 20_000))
    assert_clean(mail)
    assert "the HTML part nests lists or quotes more than 32 deep; it was read without its layout" in mail.notes


def test_lists_nested_within_the_limit_keep_their_layout():
    mail = parse(html("<ul><li>a<ul><li>b</li></ul></li></ul>"))
    assert mail.body == "  * a\n    * b"


def test_unclosed_comment_bomb_ends_the_text_with_a_note():
    mail = parse(html("<p>c3=b3+c2</p>" + "<!--" * 100_000))
    assert_clean(mail)
    assert mail.body == "c3=b3+c2"
    assert "the HTML part has a tag or comment that is never closed; what follows it was not read" in mail.notes


@pytest.mark.parametrize(
    "bomb",
    ["<a" * 200_000, "</a" * 200_000, "<!x" * 200_000, "<?x" * 200_000, "<a x='" * 100_000, '<a x="' * 100_000],
    ids=["start tags", "end tags", "declarations", "instructions", "quotes", "double quotes"],
)
def test_unclosed_tag_bombs_end_the_text_with_a_note(bomb):
    mail = parse(html("<p>c3=b3+c2</p>" + bomb))
    assert_clean(mail)
    assert mail.body == "c3=b3+c2"
    assert "the HTML part has a tag or comment that is never closed; what follows it was not read" in mail.notes


def test_unclosed_script_hides_the_rest_with_a_note():
    mail = parse(html("<p>c3=b3+c2</p><script>alert(1)</p>resign"))
    assert mail.body == "c3=b3+c2"
    assert "the HTML part has a tag or comment that is never closed; what follows it was not read" in mail.notes


def test_html_beyond_the_limit_is_cut_with_a_note():
    markup = "<div>c3=b3+c2</div>" + "<p>a paragraph of comment</p>" * 40_000
    mail = parse(html(markup))
    assert_clean(mail)
    assert mail.body.startswith("c3=b3+c2\na paragraph of comment\n")
    assert "the HTML part is longer than 1000000 characters; only its start was read" in mail.notes


def test_html_making_more_text_than_the_body_holds_is_cut_with_a_note():
    mail = parse(html("<p>" + "word " * 40_000 + "</p>"))
    assert len(mail.body) == LIMITS.max_body_chars
    assert "the text is longer than 100000 characters; only its start was read" in mail.notes


# ---------------------------------------------------------------- text and MIME


def test_huge_text_part_is_cut_with_a_note():
    mail = parse(message(b"c3=b3+c2\r\n" + b"a comment line\r\n" * 400_000))
    assert_clean(mail)
    assert len(mail.body) == LIMITS.max_body_chars
    assert mail.body.startswith("c3=b3+c2\na comment line\n")
    assert "the text is longer than 100000 characters; only its start was read" in mail.notes


def test_deep_multipart_nesting_stops_at_the_limit_with_a_note():
    nested = b"".join(
        b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (depth, depth + 1) for depth in range(500)
    )
    raw = message(nested + b"--b500\r\nContent-Type: text/plain\r\n\r\n" + b"x\r\n" * 200_000,
                  content_type="multipart/mixed; boundary=b0")
    mail = parse(raw)
    assert_clean(mail)
    assert mail.from_address == "alice@example.com"
    assert "the message nests MIME parts more than 16 deep; the rest was not read" in mail.notes


def test_nesting_within_the_limit_is_read():
    nested = b"".join(
        b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (depth, depth + 1) for depth in range(15)
    )
    mail = parse(message(nested + b"--b15\r\nContent-Type: text/plain\r\n\r\nc3=b3+c2\r\n--b15--\r\n",
                         content_type="multipart/mixed; boundary=b0"))
    assert mail.body == "c3=b3+c2"
    assert mail.notes == ()


def test_thousands_of_parts_stop_at_the_limit_with_a_note():
    images = b"--b\r\nContent-Type: image/png\r\n\r\nx\r\n" * 5000
    parts = b"--b\r\nContent-Type: text/plain\r\n\r\nc3=b3+c2\r\n" + images
    mail = parse(message(parts + b"--b--\r\n", content_type="multipart/mixed; boundary=b"))
    assert_clean(mail)
    assert mail.body == "c3=b3+c2"
    assert "the message has more than 100 MIME parts; the rest were not read" in mail.notes


def test_many_parts_with_huge_commented_headers_are_read_within_bounds():
    # The email library parses Content-Type again each time it is asked for, in
    # time quadratic in its length.
    header = b"Content-Type: text/plain (" + b"(a)" * 30_000 + b")\r\n"
    parts = b"".join(b"--b\r\n" + header + b"\r\nx\r\n" for _ in range(99))
    mail = parse(message(parts + b"--b--\r\n", content_type="multipart/mixed; boundary=b"))
    assert_clean(mail)


# ---------------------------------------------------------------- headers


def test_thousands_of_headers_are_read_up_to_the_limit_with_a_note():
    junk = "".join(f"References: <r{i}@example.org>\r\n" for i in range(5000)).encode()
    mail = parse(junk + message())
    assert_clean(mail)
    assert len(mail.references) == 20
    assert "the message has more than 500 header fields; the rest were not read" in mail.notes


def test_huge_from_header_is_cut_with_a_note():
    mail = parse(message(from_="Alice (" + "(a)" * 100_000 + ") <alice@example.com>"))
    assert_clean(mail)
    assert mail.from_address is None
    assert "the From header is longer than 998 characters; only part of it was read" in mail.notes


def test_huge_references_header_keeps_the_newest():
    ids = " ".join(f"<m{i}@example.org>" for i in range(10_000))
    mail = parse(message(headers={"References": ids}))
    assert mail.references == tuple(f"<m{i}@example.org>" for i in range(9980, 10_000))


def test_huge_subject_is_cut_with_a_note():
    mail = parse(message(headers={"Subject": "=?utf-8?q?move_c3?= " * 50_000}))
    assert_clean(mail)
    assert len(mail.subject) <= LIMITS.max_subject_chars
    assert mail.subject.startswith("move c3move c3")  # encoded words join without the space
    assert "the Subject header is longer than 998 characters; only part of it was read" in mail.notes


def test_subject_beyond_its_limit_is_cut_with_a_note():
    mail = parse(message(headers={"Subject": "move " * 150}))
    assert len(mail.subject) == 499  # 500, less the space cut off its end
    assert "the Subject is longer than 500 characters; only its start was read" in mail.notes


def test_limits_can_be_set_per_reading():
    limits = MailLimits(max_body_chars=10)
    mail = parse_mail(message(b"c3=b3+c2 and more"), envelope_sender=None, loop_marker=OUR_ADDRESS, limits=limits)
    assert mail.body == "c3=b3+c2 a"
    assert "the text is longer than 10 characters; only its start was read" in mail.notes
