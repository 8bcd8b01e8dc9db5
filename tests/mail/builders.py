"""Small builders for inbound test mail: raw bytes as an MTA would hand them over."""

from pathlib import Path

from pbm.mail.parse import ParsedMail, parse_mail

MAIL_DATA = Path(__file__).parent.parent / "data" / "mail"
ANSWER_HEADERS = [
    "Auto-Submitted",
    "Content-Transfer-Encoding",
    "Content-Type",
    "Date",
    "From",
    "In-Reply-To",
    "MIME-Version",
    "Message-ID",
    "References",
    "Subject",
    "To",
    "X-PBM-Loop",
]
"""The headers of the server's answer to a mail, each once: nothing else may appear."""
OUR_ADDRESS = "pbm@example.org"

BOARD = """\
Summary of Cephalopod Board 101

alice (white) to move.

       a   b   c   d   e
    5  ... (1) ... ... ...  5
    4  ... ... [2] ... ...  4
    3  ... (1) ... ... ...  3
    2  ... ... ... ... ...  2
    1  ... ... ... ... ...  1
       a   b   c   d   e
"""


def quoted(text: str, prefix: str = "> ") -> str:
    return "".join(prefix + line if line else prefix.rstrip() for line in text.splitlines(True))


def fixture(name: str) -> bytes:
    """A message from tests/data/mail, with CRLF line ends as on the wire."""
    return (MAIL_DATA / name).read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def fixture_names() -> list[str]:
    return sorted(p.name for p in MAIL_DATA.glob("*.eml"))


def message(
    body: bytes | str = b"c3=b3+c2\r\n",
    *,
    headers: dict[str, str | bytes] | None = None,
    content_type: str = "text/plain; charset=utf-8",
    from_: str | bytes | None = "Alice Smith <alice@example.com>",
) -> bytes:
    """A single-part message; headers override or extend the defaults."""
    fields: dict[str, str | bytes] = {
        "Message-ID": "<m1@example.com>",
        "Date": "Mon, 1 Jan 2024 10:00:00 +0000",
        "To": OUR_ADDRESS,
        "Subject": "move",
        "MIME-Version": "1.0",
        "Content-Type": content_type,
    }
    if from_ is not None:
        fields = {"From": from_, **fields}
    fields.update(headers or {})
    head = b"".join(
        name.encode() + b": " + (value if isinstance(value, bytes) else value.encode()) + b"\r\n"
        for name, value in fields.items()
    )
    if isinstance(body, str):
        body = body.encode("utf-8")
    return head + b"\r\n" + body


def parse(raw: bytes, envelope_sender: str | None = "alice@example.com") -> ParsedMail:
    return parse_mail(raw, envelope_sender=envelope_sender, loop_marker=OUR_ADDRESS)
