"""Hostile mail: the poison mails of issue 9, and a seeded generator of garbage.

Nothing made here carries a valid command that changes anything: commands in
it name players and boards that do not exist, or are misspelt, or are
`help`, or name real players with wrong passwords. So whatever the server
makes of these mails, players, games and moves must stay as they were.

Every generator takes a `random.Random` and returns the raw bytes, so a run is
reproduced by its seed.
"""

from __future__ import annotations

import base64
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from tests.mail.builders import fixture, fixture_names

US = "pbm@localhost"
_serial = itertools.count(1)


@dataclass(frozen=True)
class Hostile:
    """A hostile mail and how it travels."""

    kind: str
    raw: bytes
    envelope_from: str = "mallory@hostile.example"


def message(
    body: bytes | str = b"",
    *,
    headers: list[tuple[str, bytes | str]] | None = None,
    content_type: bytes | str = "text/plain; charset=utf-8",
    message_id: bytes | str | None = None,
    from_: bytes | str = "Mallory <mallory@hostile.example>",
    subject: bytes | str = "hello",
) -> bytes:
    """A mail written byte by byte, so that any header may carry anything."""
    if message_id is None:
        message_id = f"<hostile.{next(_serial)}@hostile.example>"
    fields: list[tuple[str, bytes | str]] = [
        ("From", from_),
        ("To", US),
        ("Subject", subject),
        ("Message-ID", message_id),
        ("MIME-Version", "1.0"),
        ("Content-Type", content_type),
        *(headers or []),
    ]
    head = b"".join(name.encode() + b": " + _bytes(value) + b"\r\n" for name, value in fields)
    return head + b"\r\n" + _bytes(body)


def _bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


# -- the poison mails of the issue -------------------------------------------------------

INJECTED_MESSAGE_ID = (
    "=?utf-8?q?<x@y>=0D=0ABcc:_someone@evil.test=0D=0AContent-Type:_text/html=0D=0A=0D=0A<h1>pwned</h1>?="
)
"""C2: a Message-ID that, decoded, writes a Bcc, a Content-Type and HTML into a reply."""


def nested_lists_html(size: int) -> bytes:
    """H1: `size` bytes of ever deeper ``<ol><li>`` (quadratic in today's HTML-to-text),
    in lines short enough for SMTP."""
    line = b"<ol><li>x" * 8 + b"\r\n"
    return b"<html><body>\r\n" + line * (size // len(line)) + b"</body></html>\r\n"


def _long_address() -> str:
    return "a" * 330 + "@hostile.example"


POISONS: dict[str, Callable[[], Hostile]] = {
    "utf-7 body": lambda: Hostile("utf-7 body", message("help +2AA-\r\n", content_type="text/plain; charset=utf-7")),
    "utf-7 encoded word in the Message-ID": lambda: Hostile(
        "utf-7 encoded word in the Message-ID", message("help\r\n", message_id="<=?utf-7?q?+2AA-?=@hostile.example>")
    ),
    "From address over 320 characters": lambda: Hostile(
        "From address over 320 characters", message("help\r\n", from_=_long_address())
    ),
    "signup address over 320 characters": lambda: Hostile(
        "signup address over 320 characters", message(f"signup mallory0 mallory-pw {_long_address()}\r\n")
    ),
    "160 KB of nested lists": lambda: Hostile(
        "160 KB of nested lists", message(nested_lists_html(160 * 1024), content_type="text/html; charset=utf-8")
    ),
    "header injection in the Message-ID": lambda: Hostile(
        "header injection in the Message-ID",
        message("frobnicate\r\n", message_id=INJECTED_MESSAGE_ID, from_="victim@victim.example"),
        envelope_from="victim@victim.example",
    ),
    "NUL in the Message-ID": lambda: Hostile("NUL in the Message-ID", message("help\r\n", message_id=b"<a\x00b@x>")),
    "NUL in the envelope sender": lambda: Hostile(
        "NUL in the envelope sender", message("help\r\n"), envelope_from="mal\x00lory@hostile.example"
    ),
}


# -- the generator ---------------------------------------------------------------------------

CHARSETS = [
    "utf-8",
    "utf-7",
    "utf-16",
    "utf-32",
    "iso-8859-1",
    "windows-1252",
    "koi8-r",
    "shift_jis",
    "euc-kr",
    "gb2312",
    "big5",
    "x-unknown",
    "",
    "utf-8'en'",
    "us-ascii",
    "cp037",
    "hz-gb-2312",
    "idna",
    "rot13",
    "base64",
    "uu",
    "zlib",
    "utf-8\x00",
    "utf\r\n-8",
]
HEADER_NAMES = ["From", "Subject", "Message-ID", "References", "In-Reply-To", "Reply-To", "Sender", "To"]
NOT_COMMANDS = [
    "frobnicate 101",
    "cephalopod move 999 nobody no-password c3",
    "cephalopod challenge nobody nemo",
    "dodeca show 9999",
    "cubeo move 101 ghost guess 1,0",
    "signoff nobody no-password",
    "change password nobody old new",
    "signup",
    "signup x",
    "help",
    "cephalopod help",
    "list",
    "** cephalopod ** resign 555 nobody nopw",
]
"""Lines that look like commands but change nothing: unknown verbs, unknown players and boards."""
NASTY = [
    "\r\n",
    "\n",
    "\r",
    "\x00",
    "\t",
    "\x1b[31m",
    "\u202e",
    "\ud800",
    "=?",
    "?=",
    "<",
    ">",
    '"',
    "\\",
    "%s",
    "{{ 7*7 }}",
]


def encoded_word(rng: random.Random, text: str) -> str:
    """RFC 2047: `text` in a random charset and encoding, however wrong."""
    charset = rng.choice(CHARSETS)
    if rng.random() < 0.5:
        payload = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()
        return f"=?{charset}?b?{payload}?="
    quoted = "".join(c if c.isalnum() else "=%02X" % (ord(c) & 0xFF) for c in text)
    return f"=?{charset}?q?{quoted}?="


def nasty_text(rng: random.Random, length: int = 20) -> str:
    parts = []
    for _ in range(length):
        roll = rng.random()
        if roll < 0.3:
            parts.append(rng.choice(NASTY))
        elif roll < 0.5:
            parts.append(
                chr(rng.randrange(0x80, 0x2FFFF)) if rng.random() < 0.9 else chr(rng.randrange(0xD800, 0xE000))
            )
        else:
            parts.append(rng.choice(["x", "board", "101", "move", "@", ".", " ", "Bcc: eve@evil.test"]))
    return "".join(parts)


def header_value(rng: random.Random) -> bytes:
    roll = rng.random()
    text = nasty_text(rng, rng.randrange(1, 40))
    if roll < 0.3:
        return encoded_word(rng, text).encode()
    if roll < 0.5:
        return text.encode("utf-8", "surrogatepass")
    if roll < 0.6:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
    if roll < 0.7:
        return ("<" + text + "@x>").encode("utf-8", "surrogatepass")
    return f"{encoded_word(rng, text)} <{text}@{text}>".encode("utf-8", "surrogatepass")


def broken_headers(rng: random.Random) -> bytes:
    """CR, LF, NUL, encoded words and raw 8-bit bytes in every header."""
    headers = [(name, header_value(rng)) for name in HEADER_NAMES]
    body = rng.choice(NOT_COMMANDS) + "\r\n" + nasty_text(rng, 30)
    return message(body, headers=headers[5:], from_=headers[0][1], message_id=headers[2][1])


def wrong_charset(rng: random.Random) -> bytes:
    charset = rng.choice(CHARSETS)
    text = rng.choice(NOT_COMMANDS) + "\n" + nasty_text(rng, 50)
    encoding = rng.choice(["utf-8", "utf-16", "latin-1", "utf-7", "raw"])
    if encoding == "raw":
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(10, 400)))
    else:
        body = text.encode(
            encoding, "surrogatepass" if encoding.startswith("utf-") and encoding != "utf-7" else "replace"
        )
    cte = rng.choice(["", "base64", "quoted-printable", "8bit", "x-uuencode", "bogus"])
    headers: list[tuple[str, bytes | str]] = [("Content-Transfer-Encoding", cte)] if cte else []
    if cte == "base64" and rng.random() < 0.7:
        body = base64.b64encode(body)
    return message(body, content_type=f"text/plain; charset={charset}", headers=headers)


def broken_mime(rng: random.Random) -> bytes:
    boundary = rng.choice(["XYZ", "", "--", "a" * 200, "\x00", "b\r\nc"])
    parts = []
    for _ in range(rng.randrange(0, 6)):
        kind = rng.choice(["text/plain", "text/html", "multipart/alternative", "message/rfc822", "application/x"])
        parts.append(
            f"--{boundary}\r\nContent-Type: {kind}; charset={rng.choice(CHARSETS)}\r\n\r\n"
            f"{rng.choice(NOT_COMMANDS)}\r\n{nasty_text(rng, 10)}\r\n"
        )
    if rng.random() < 0.5:
        parts.append(f"--{boundary}--\r\n")
    body = "".join(parts)
    if rng.random() < 0.3:
        body = body[: rng.randrange(len(body) + 1)]
    content_type = rng.choice(
        [
            f'multipart/mixed; boundary="{boundary}"',
            "multipart/mixed",
            f"multipart/related; boundary={boundary}",
            "message/rfc822",
            "text/plain; charset=",
            "text/html; charset=utf-7",
            ";;;",
            "multipart/",
        ]
    )
    return message(body, content_type=content_type)


def deep_multipart(rng: random.Random) -> bytes:
    depth = rng.randrange(50, 2000)
    opening = "".join(f'--b{i - 1}\r\nContent-Type: multipart/mixed; boundary="b{i}"\r\n\r\n' for i in range(1, depth))
    closing = "".join(f"--b{i}--\r\n" for i in reversed(range(depth)))
    body = opening + f"--b{depth - 1}\r\nContent-Type: text/plain\r\n\r\nhelp\r\n" + closing
    return message(body, content_type='multipart/mixed; boundary="b0"')


def many_headers(rng: random.Random) -> bytes:
    count = rng.randrange(2000, 6000)
    headers = [(f"X-Junk-{i}", nasty_text(rng, 3).encode("utf-8", "surrogatepass")) for i in range(count)]
    return message("help\r\n", headers=headers)


def comment_bomb(rng: random.Random) -> bytes:
    """400 KB of ``<!--`` (quadratic in CPython's HTMLParser)."""
    return message(b"<html><body>\r\n" + (b"<!--" * 16 + b"\r\n") * 6400, content_type="text/html")


def nested_lists(rng: random.Random) -> bytes:
    return message(nested_lists_html(rng.randrange(80, 161) * 1024), content_type="text/html; charset=utf-8")


def thousand_commands(rng: random.Random) -> bytes:
    lines = [rng.choice(NOT_COMMANDS[:7]) for _ in range(1000)]
    return message("\r\n".join(lines) + "\r\n")


def mutated_fixture(rng: random.Random) -> bytes:
    raw = bytearray(fixture(rng.choice(fixture_names())))
    for _ in range(rng.randrange(1, 40)):
        roll, at = rng.random(), rng.randrange(len(raw) or 1)
        if roll < 0.3:
            raw[at : at + 1] = bytes([rng.randrange(256)])
        elif roll < 0.5:
            del raw[at : at + rng.randrange(1, 200)]
        elif roll < 0.7:
            raw[at:at] = rng.choice(NASTY).encode("utf-8", "surrogatepass")
        elif roll < 0.85:
            start = rng.randrange(len(raw) or 1)
            raw[at:at] = raw[start : start + rng.randrange(1, 400)]
        else:
            raw[at:at] = encoded_word(rng, nasty_text(rng, 5)).encode()
    return bytes(raw)


# -- the verbs added since the first audit, with hostile arguments ---------------------------

GAMES = ["cephalopod", "cubeo", "dodeca"]
HOSTILE_WORDS = [
    "'; DROP TABLE players; --",
    "' OR '1'='1",
    "{{ 7*7 }}",
    "{% raw %}",
    "%(password)s",
    "%s%s%s%n",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "=?utf-8?q?Bcc:_eve@evil.test?=",
    "eve@evil.test,mallory@hostile.example",
    "\u202egnp.exe",
    "\ufeff",
    "\ud83d\ude00",
    "\u0130nfo",
    "NaN",
    "None",
]
"""Words an attacker puts where a userid, a board or a number belongs."""
HOSTILE_NUMBERS = [
    "x101",
    "#101",
    "101,",
    "-1",
    "0",
    "1e9",
    "9" * 40,
    "9" * 5000,
    "1.5",
    "0x65",
    "\uff11\uff10\uff11",  # fullwidth 101
    "\u0661\u0660\u0661",  # Arabic-Indic 101
    "\u00b2",
    "inf",
    "",
]
"""Boards, counts and days of the wrong kind: not digits, too large, negative, other scripts."""
OPTIONS = ["-size=99", "-size=-1", "-dice=1e9", "-" + "x" * 300, "-remove=maybe", "--nagtime=1e308", "--clock=9+9/9"]
DAYS = ["now", "14d", "999d", "99999999d", "2026-02-30", "0000-00-00", "9999-12-31", "-5d", "yesterday", "off"]
HOSTILE_MOVES = ["c3", "z9", "a1-a2", "roll", "if", "then", "else", ";", "a1+" * 200, "propose", "undo"]


def one_word(text: str) -> str:
    """`text` without white space or line breaks: one word of a command line, however hostile."""
    return "".join(text.split())


def hostile_userid(rng: random.Random, players: Sequence[str] = ()) -> str:
    """A userid nobody has (hostile words, nasty text, one far too long, a plain unknown name), or
    now and then one of `players`, whose password the mail will not know."""
    roll = rng.random()
    if players and roll < 0.15:
        return rng.choice(players)
    if roll < 0.3:
        return one_word(rng.choice(HOSTILE_WORDS))
    if roll < 0.5:
        return one_word(nasty_text(rng, rng.randrange(1, 12))) or "ghost"
    if roll < 0.6:
        return "u" * rng.randrange(33, 5000)
    return f"ghost{rng.randrange(10_000)}"


def hostile_number(rng: random.Random) -> str:
    return rng.choice(HOSTILE_NUMBERS) or str(rng.randrange(99_999, 10**12))


def hostile_moves(rng: random.Random) -> str:
    return " ".join(rng.choice(HOSTILE_MOVES) for _ in range(rng.randrange(0, 30)))


def newer_verb_line(rng: random.Random, players: Sequence[str] = ()) -> str:
    """One command of a verb added since the first audit, its arguments hostile; it names no
    player who exists but with a wrong password, so it changes nothing."""
    user = hostile_userid(rng, players)
    game, secret = rng.choice(GAMES), one_word(nasty_text(rng, 6)) or "pw"
    board, number = hostile_number(rng), hostile_number(rng)
    verbs = [
        lambda: f"message {user} {secret} {hostile_userid(rng)} {hostile_userid(rng)}",
        lambda: f"broadcast {user} {secret}",
        lambda: f"{game} subscribe {board} {user} {secret}",
        lambda: f"{game} subscribe {user} {secret} all",
        lambda: f"{game} unsubscribe {board} {user} {secret}",
        lambda: f"{game} seek {user} {secret} {number} {rng.choice(OPTIONS)}",
        lambda: f"vacation {user} {secret} {rng.choice(DAYS)} {rng.choice(DAYS)}",
        lambda: f"vacation {user} {secret} {rng.choice(DAYS)}",
        lambda: f"{game} queue {board} {user} {secret} {hostile_moves(rng)}",
        lambda: f"{game} queue {board} {user} {secret} " + "if a1 then b2; " * rng.randrange(1, 400) + "else c3",
        lambda: f"{game} preview {board} {hostile_moves(rng)}",
        lambda: f"{game} preview new {number} {rng.choice(OPTIONS)} {hostile_moves(rng)}",
        lambda: f"password reset {user}",
        lambda: f"password reset {rng.choice(HOSTILE_WORDS)}",
        lambda: f"timezone {user} {secret} {rng.choice(HOSTILE_WORDS)}",
        lambda: f"timezone {user} {secret} " + "../" * rng.randrange(1, 400) + "etc/passwd",
        lambda: f"quiet {user} {secret} {rng.choice(HOSTILE_WORDS)}-{rng.choice(HOSTILE_WORDS)}",
        lambda: f"digest {user} {secret} " + ",".join(["07:30"] * rng.randrange(1, 2000)),
    ]
    return rng.choice(verbs)()


def newer_verbs(rng: random.Random, players: Sequence[str] = ()) -> bytes:
    """Commands of the verbs added since the first audit (message, broadcast, subscribe, seek,
    vacation, queue, preview, password reset, timezone, quiet, digest) with hostile arguments, in
    the body or the Subject, in a charset that may be wrong, with a comment that tries to inject.
    Some name `players`."""
    lines = [newer_verb_line(rng, players) for _ in range(rng.randrange(1, 8))]
    comment = "\n".join([rng.choice(HOSTILE_WORDS), "Bcc: eve@evil.test", nasty_text(rng, 30)])
    text = "\n".join(lines) + "\n\n" + comment + "\n"
    charset = rng.choice(["utf-8", "utf-8", "iso-8859-1", "utf-16", "utf-7", "shift_jis", "x-unknown"])
    body = text.encode(charset if charset != "x-unknown" else "utf-8", "replace")
    headers: list[tuple[str, bytes | str]] = []
    # SMTP refuses lines past 998 bytes, and would break UTF-16: such a body travels in base64.
    if charset == "utf-16" or max(map(len, body.split(b"\n"))) > 900 or rng.random() < 0.3:
        body = base64.encodebytes(body)
        headers.append(("Content-Transfer-Encoding", "base64"))
    subject = encoded_word(rng, lines[0][:300]) if rng.random() < 0.3 else "hello"
    return message(body, content_type=f"text/plain; charset={charset}", subject=subject, headers=headers)


def calendar_paths(rng: random.Random, count: int, players: Sequence[str] = ()) -> list[str]:
    """``/players/<userid>/deadlines.ics`` for hostile userids (some built on `players`'), and
    `count` more drawn at random, each quoted as a client sends it."""
    userids = [*HOSTILE_WORDS, "u" * 1000, "\x00", "..", "%2e%2e", "a/b", "?x=1", "#x"]
    userids += [
        variant for player in players for variant in (player.upper(), f"{player}\r\nX-Evil: 1", f"{player}\x00")
    ]
    userids += [hostile_userid(rng) for _ in range(count)]
    return [f"/players/{quote(userid.encode('utf-8', 'surrogatepass'), safe='')}/deadlines.ics" for userid in userids]


NEWER_VERBS = "newer verbs"


@dataclass(frozen=True)
class Generator:
    kind: str
    make: Callable[[random.Random], bytes]
    weight: float


GENERATORS = [
    Generator("broken headers", broken_headers, 6),
    Generator("wrong charset", wrong_charset, 5),
    Generator("broken MIME", broken_mime, 5),
    Generator("mutated fixture", mutated_fixture, 8),
    Generator("thousand commands", thousand_commands, 0.5),
    Generator("thousands of headers", many_headers, 0.5),
    Generator("deep multipart", deep_multipart, 0.5),
    Generator("nested lists", nested_lists, 0.3),
    Generator("comment bomb", comment_bomb, 0.3),
    Generator(NEWER_VERBS, newer_verbs, 6),
]


def hostile_mails(rng: random.Random, count: int, *, players: Sequence[str] = ()) -> list[Hostile]:
    """`count` hostile mails, every kind at least once, the rest drawn by weight; the commands of
    the newer verbs now and then name `players` (with wrong passwords)."""
    kinds = list(GENERATORS)
    while len(kinds) < count:
        kinds.append(rng.choices(GENERATORS, weights=[g.weight for g in GENERATORS])[0])
    rng.shuffle(kinds)
    senders = ["mallory@hostile.example", "", "a@b", "x@" + "y" * 60 + ".example", "mal\x00lory@hostile.example"]
    weights = [12, 1, 1, 1, 1]
    return [
        Hostile(
            g.kind,
            newer_verbs(rng, players) if g.kind == NEWER_VERBS else g.make(rng),
            rng.choices(senders, weights)[0],
        )
        for g in kinds[:count]
    ]
