"""parse_mail never raises and fresh_text never mangles, whatever comes in."""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.mail.parse import ParsedMail, fresh_text, parse_mail
from tests.mail.builders import BOARD, OUR_ADDRESS, fixture, fixture_names, quoted

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOT_READ = (
    "the message could not be read"  # the last-resort note: every case must be handled before it
)

envelope_senders = st.sampled_from([None, "", "<>", "alice@example.com", "MAILER-DAEMON"])


def assert_well_formed(mail: ParsedMail) -> None:
    assert isinstance(mail, ParsedMail)
    assert NOT_READ not in mail.notes, "fell through to the last-resort handler"
    assert isinstance(mail.body, str)
    assert not re.search(r"[\r\x00-\x08\x0b-\x1f\x7f]", mail.body)
    assert not mail.body.startswith("\ufeff")
    for text in (mail.subject, mail.from_name):
        assert isinstance(text, str) and not re.search(r"[\x00-\x1f\x7f]", text)
    assert mail.from_address is None or (
        "@" in mail.from_address and not re.search(r"\s", mail.from_address)
    )
    for value in (mail.message_id, mail.in_reply_to, mail.auto_reason):
        assert value is None or (isinstance(value, str) and value and "\n" not in value)
    assert all(isinstance(r, str) for r in mail.references)
    assert all(isinstance(n, str) and n for n in mail.notes)


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


def test_non_bytes_input_is_survived():
    mail = parse_mail(None, envelope_sender=None, loop_marker=OUR_ADDRESS)  # type: ignore[arg-type]
    assert mail.notes == (NOT_READ,)
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
