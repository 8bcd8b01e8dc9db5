"""parse_mail never raises and returns only clean, bounded values; fresh_text never
mangles; whatever comes in."""

import base64
import itertools
import json
import quopri
import re
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.facts import UNCONVERTED, Fact
from pbm.mail.fresh import fresh_text
from pbm.mail.limits import MailLimits
from pbm.mail.parse import ParsedMail, parse_mail
from tests.mail.builders import BOARD, OUR_ADDRESS, fixture, fixture_names, quoted
from tests.mail.checks import assert_clean

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOT_READ = (
    "the message could not be read"  # the last-resort reason: every case must be handled before it
)

envelope_senders = st.sampled_from([None, "", "<>", "alice@example.com", "MAILER-DAEMON"])


def assert_well_formed(mail: ParsedMail) -> None:
    assert mail.unreadable is None, "fell through to the last-resort handler"
    assert_clean(mail)


@FUZZ
@given(raw=st.binary(max_size=4000), sender=envelope_senders)
def test_arbitrary_bytes_never_raise(raw, sender):
    assert_well_formed(parse_mail(raw, envelope_sender=sender, loop_marker=OUR_ADDRESS))


TOKENS = [
    b"\r\n",
    b"\n",
    b"\r\n\r\n",
    b"=?",
    b"?=",
    b"=?x-foo?q?",
    b"=?utf-8?b?",
    b"=?utf-8?q?=FF=",
    b"--",
    b"boundary=",
    b'"',
    b"<",
    b">",
    b"@",
    b";",
    b":",
    b"\x00",
    b"\xff\xfe",
    b"\xc3",
    b"Content-Type: multipart/mixed; boundary=X\r\n",
    b"Content-Type: text/html\r\n",
    b"Content-Transfer-Encoding: base64\r\n",
    b"Content-Transfer-Encoding: quoted-printable\r\n",
    b"charset=utf-16",
    b"charset=x-unknown",
    b"From: <\r\n",
    b"Content-Disposition: attachment\r\n",
    b"<div>",
    b"</blockquote>",
    b"<ol start=x><li>",
    b"&#xD800;",
    b"&nbsp;",
]


@st.composite
def mutated_fixtures(draw):
    raw = bytearray(fixture(draw(st.sampled_from(fixture_names()))))
    for _ in range(draw(st.integers(1, 12))):
        at = draw(st.integers(0, len(raw)))
        op = draw(st.sampled_from(["insert", "delete", "truncate", "token", "flip", "repeat"]))
        if op == "insert":
            raw[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del raw[at : at + draw(st.integers(1, 200))]
        elif op == "truncate":
            del raw[at:]
        elif op == "token":
            raw[at:at] = draw(st.sampled_from(TOKENS))
        elif op == "flip" and at < len(raw):
            raw[at] = draw(st.integers(0, 255))
        elif op == "repeat":
            raw[at:at] = raw[at : at + draw(st.integers(1, 300))] * draw(st.integers(2, 5))
    return bytes(raw)


@FUZZ
@given(raw=mutated_fixtures(), sender=envelope_senders)
def test_mutated_real_messages_never_raise(raw, sender):
    assert_well_formed(parse_mail(raw, envelope_sender=sender, loop_marker=OUR_ADDRESS))


header_names = st.sampled_from(
    [
        "From",
        "Subject",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Content-Disposition",
        "Auto-Submitted",
        "Precedence",
        "X-PBM-Loop",
        "Return-Path",
        "MIME-Version",
        "List-Id",
    ]
)
header_values = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "multipart/mixed; boundary=b",
            'text/plain; charset="',
            "text/html; charset=x-foo",
            "=?utf-8?b?!!!?=",
            "<",
            '"a" <',
            "base64",
            "quoted-printable",
            "attachment; filename=",
            'multipart/alternative; boundary="b"',
            "message/rfc822",
        ]
    ),
)


@FUZZ
@given(
    headers=st.lists(st.tuples(header_names, header_values), max_size=10),
    body=st.one_of(
        st.binary(max_size=500),
        st.text(max_size=500).map(lambda t: t.encode("utf-8", "surrogatepass")),
    ),
)
def test_generated_headers_and_bodies_never_raise(headers, body):
    head = b"".join(
        n.encode() + b": " + v.encode("utf-8", "surrogatepass") + b"\r\n" for n, v in headers
    )
    raw = head + b"\r\n--b\r\nContent-Type: text/plain\r\n\r\n" + body + b"\r\n--b--\r\n"
    assert_well_formed(
        parse_mail(raw, envelope_sender="alice@example.com", loop_marker=OUR_ADDRESS)
    )


# ---------------------------------------------------------------- hostile mail

CHARSETS = [
    "utf-8", "utf-7", "utf-16", "utf-16-be", "utf-32", "latin-1", "windows-1252", "iso-2022-jp",
    "shift_jis", "gb18030", "koi8-r", "ascii", "x-unknown", "unicode-escape", "rot13", "base64", "idna", "",
]  # fmt: skip
# Text that once broke a reply or a database column, or costs much to read.
HOSTILE_TEXT = [
    "help +2AA-", "+2AA", "\x00", "\r\nBcc: eve@evil.test", "\u2028", "\x85", "\x9b", "\ud800", "<x@y>",
    "=?", "?=", "<!--", "<ol><li>", "<blockquote>", "&#xD800;", "&#1a", "<a x='", "\ufeff", "é", "😀", "a" * 300,
]  # fmt: skip
hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=20)), max_size=6).map("".join)
# Bytes that decode to something dangerous: a lone surrogate from utf-7, an encoded
# surrogate (CESU-8), a BOM, an ISO-2022 escape, a boundary.
HOSTILE_BYTES = [b"help +2AA-", b"+2AA-", b"\xed\xa0\x80", b"\xff\xfe", b"\x1b$B", b"\x00", b"\r\n\r\n", b"--b0\r\n"]
hostile_bytes = st.lists(st.one_of(st.sampled_from(HOSTILE_BYTES), st.binary(max_size=20)), max_size=6).map(b"".join)
# Values that read as what their header should hold, some of them only just.
PLAUSIBLE_VALUES = [
    "<a@b.example>", "<a@b.example> <c@d.example>", "Alice <alice@example.com>", "alice@bücher.example",
    "=?utf-7?q?+2AA-?= <alice@example.com>", "=?utf-8?q?Ren=C3=A9?= <rene@example.fr>", "text/plain; charset=utf-7",
    "text/html", "multipart/mixed; boundary=b0", "base64", "auto-replied", "bulk", "<>",
]  # fmt: skip


def encoded(text: str, charset: str) -> bytes:
    try:
        data = text.encode(charset or "utf-8")
    except (LookupError, UnicodeError, ValueError):
        data = text.encode("utf-8", "surrogatepass")
    return data if isinstance(data, bytes) else text.encode("utf-8", "surrogatepass")


def encoded_word(charset: str, data: bytes, encoding: str) -> str:
    if encoding in "bB":
        payload = base64.b64encode(data).decode()
    else:
        payload = "".join(f"={byte:02X}" for byte in data)
    return f"=?{charset}?{encoding}?{payload}?="


hostile_header_values = st.lists(
    st.one_of(
        st.sampled_from(PLAUSIBLE_VALUES),
        hostile_text,
        st.builds(
            encoded_word,
            st.sampled_from(CHARSETS),
            st.one_of(hostile_bytes, hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass"))),
            st.sampled_from("bBqQ"),
        ),
        st.sampled_from(["<", ">", "@", '"', "(", ")", ",", ";", ":"]),
        st.sampled_from(["\r\n ", "\r\n", "\n", "\r", "\r\nBcc: eve@evil.test\r\n"]),  # folds and injections
    ),
    min_size=1,
    max_size=4,
).map("".join)
hostile_header_names = st.sampled_from(
    ["From", "Subject", "Message-ID", "In-Reply-To", "References", "Content-Type", "Content-Transfer-Encoding",
     "Content-Disposition", "Auto-Submitted", "Precedence", "X-PBM-Loop", "Return-Path", "To", "List-Id"]
)  # fmt: skip

mime_leaves = st.tuples(
    st.sampled_from(["text/plain", "text/html", "text/x-junk", "application/octet-stream", "message/rfc822",
                     "message/delivery-status", "image/png"]),
    st.one_of(st.sampled_from(CHARSETS), st.sampled_from(["utf-7", "utf-8"])),
    st.sampled_from(["", "7bit", "8bit", "base64", "quoted-printable", "x-uuencode", "x-junk"]),
    st.sampled_from(["", "inline", "attachment", "attachment; filename=a.txt", "inline; filename*=utf-8''%FF"]),
    st.one_of(hostile_text, hostile_bytes),
)  # fmt: skip
mime_trees = st.recursive(
    mime_leaves,
    lambda parts: st.tuples(
        st.sampled_from(["mixed", "alternative", "related", "report", "digest", "encrypted", "signed"]),
        st.lists(parts, max_size=4),
    ),
    max_leaves=10,
)


def render(node: tuple, boundaries: Iterator[int]) -> bytes:
    """A MIME part from a drawn tree: (subtype, children) or a leaf."""
    if len(node) == 2:
        subtype, children = node
        boundary = f"b{next(boundaries)}".encode()
        parts = b"".join(b"--" + boundary + b"\r\n" + render(child, boundaries) + b"\r\n" for child in children)
        return b"Content-Type: multipart/%s; boundary=%s\r\n\r\n%s--%s--\r\n" % (
            subtype.encode(), boundary, parts, boundary)
    content_type, charset, encoding, disposition, content = node
    data = content if isinstance(content, bytes) else encoded(content, charset)
    if encoding == "base64":
        data = base64.encodebytes(data)
    elif encoding == "quoted-printable":
        data = quopri.encodestring(data)
    head = f"Content-Type: {content_type}; charset={charset}\r\n"
    head += f"Content-Transfer-Encoding: {encoding}\r\n" if encoding else ""
    head += f"Content-Disposition: {disposition}\r\n" if disposition else ""
    return head.encode() + b"\r\n" + data


@st.composite
def hostile_mails(draw) -> bytes:
    sender = draw(st.one_of(st.sampled_from(["Alice <alice@example.com>", "Jörg <joerg@bücher.example>"]),
                            hostile_header_values))
    headers = [("From", sender), *draw(st.lists(st.tuples(hostile_header_names, hostile_header_values), max_size=8))]
    head = b"".join(name.encode() + b": " + value.encode("utf-8", "surrogatepass") + b"\r\n" for name, value in headers)
    return head + render(draw(mime_trees), itertools.count())


HOSTILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HOSTILE
@given(raw=hostile_mails(), sender=envelope_senders)
def test_hostile_mail_gives_only_clean_bounded_values(raw, sender):
    assert_well_formed(parse_mail(raw, envelope_sender=sender, loop_marker=OUR_ADDRESS))


small_limits = st.builds(
    MailLimits,
    max_headers=st.integers(1, 6),
    max_header_length=st.integers(1, 60),
    max_parts=st.integers(1, 4),
    max_depth=st.integers(1, 3),
    max_body_chars=st.integers(1, 80),
    max_html_chars=st.integers(1, 200),
    max_html_nesting=st.integers(1, 3),
    max_subject_chars=st.integers(1, 20),
)


@HOSTILE
@given(raw=hostile_mails(), limits=small_limits)
def test_every_limit_holds_however_small(raw, limits):
    mail = parse_mail(raw, envelope_sender="alice@example.com", loop_marker=OUR_ADDRESS, limits=limits)
    assert mail.unreadable is None
    assert_clean(mail, limits)


texts = st.text(st.characters(blacklist_categories=["Cs"]), max_size=30)
parsed_mails = st.builds(
    ParsedMail,
    message_id=st.none() | texts,
    from_address=st.none() | texts,
    subject=texts,
    body=texts,
    references=st.lists(texts, max_size=3).map(tuple),
    auto_reason=st.none() | texts,
    noted=st.lists(
        st.builds(lambda text: Fact(UNCONVERTED, text=text), texts)
        | st.builds(lambda count: Fact("note-attachments-ignored", count=count), st.integers(0, 99))
        | st.builds(lambda label: Fact("note-charset-unknown", label=label, used="Latin-1"), texts),
        max_size=3,
    ).map(tuple),
    unread_because=st.none() | st.builds(lambda text: Fact(UNCONVERTED, text=text), texts),
)


@FUZZ
@given(mail=parsed_mails)
def test_parsed_mail_comes_back_whole_from_json(mail):
    assert ParsedMail.from_json(json.loads(json.dumps(mail.to_json()))) == mail


def test_non_bytes_input_is_survived():
    mail = parse_mail(None, envelope_sender=None, loop_marker=OUR_ADDRESS)  # type: ignore[arg-type]
    assert mail.unreadable == NOT_READ
    assert mail.body == "" and mail.from_address is None


# ---------------------------------------------------------------- fresh_text properties

mail_text = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from(
            [
                "",
                "> quoted",
                "-- ",
                "--",
                "On Mon, Bob wrote:",
                "From: a",
                "Sent: b",
                "-----Original Message-----",
                "c3=b3+c2",
                "+-1,0",
                "Sent from my iPhone",
                "  > x",
                BOARD.splitlines()[5],
            ]
        ),
    ),
    max_size=30,
).map("\n".join)


@FUZZ
@given(body=mail_text)
def test_fresh_text_is_a_run_of_unchanged_input_lines(body):
    fresh = fresh_text(body)
    lines = body.replace("\r\n", "\n").replace("\r", "\n")
    if fresh:
        assert f"\n{fresh}\n" in f"\n{lines}\n"


@FUZZ
@given(body=mail_text)
def test_fresh_text_never_contains_a_quote_or_trailing_blank_line(body):
    lines = fresh_text(body).split("\n")
    assert not any(re.match(r"\s*>", line) for line in lines)
    assert lines == [""] or lines[-1].strip()


@FUZZ
@given(body=mail_text)
def test_fresh_text_of_fresh_text_changes_nothing(body):
    once = fresh_text(body)
    assert fresh_text(once) == once


moves = st.one_of(
    st.from_regex(r"[a-e][1-5](=[a-e][1-5](\+[a-e][1-5]){1,3})?", fullmatch=True),
    st.from_regex(
        r"[+-]{0,2}[0-9](,[+-]?[0-9]){1,2}(->[+-]?[0-9](,[+-]?[0-9]){1,2})?", fullmatch=True
    ),
    st.from_regex(r"(roll|show|resign|move) [a-e][1-5]", fullmatch=True),
)


@FUZZ
@given(
    move=moves,
    client=st.sampled_from(
        ["gmail_reply.eml", "outlook_reply.eml", "apple_mail_reply.eml", "thunderbird_reply.eml"]
    ),
)
def test_move_on_the_first_line_of_a_client_reply_survives_exactly(move, client):
    raw = fixture(client)
    old_first_line = {
        "gmail_reply.eml": b"c3=3Db3+c2",
        "outlook_reply.eml": b"roll c2",
        "apple_mail_reply.eml": b"c3=3Db3+c2",
        "thunderbird_reply.eml": b"1,0,0->1,-1",
    }[client]
    head, sep, body = raw.partition(b"\r\n\r\n")
    qp = move.replace("=", "=3D").encode()
    if b"quoted-printable" in head or b"quoted-printable" in body[:400]:
        body = body.replace(old_first_line, qp, 1)
    else:
        body = body.replace(old_first_line, move.encode(), 1)
    mail = parse_mail(head + sep + body, envelope_sender="p@example.com", loop_marker=OUR_ADDRESS)
    assert fresh_text(mail.body).split("\n")[0] == move


@FUZZ
@given(move=moves, indent=st.sampled_from(["", "> ", ">", ">> "]))
def test_move_above_a_quoted_board_is_the_whole_fresh_text(move, indent):
    assert fresh_text(f"{move}\n\n{quoted(BOARD, indent or '> ')}") == move
