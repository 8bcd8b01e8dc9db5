"""Reading the bytes of a mail's text: by its declared charset, or by the best guess when that lies.

A sender may declare any charset, or none, or one Python knows but no mail
uses (``unicode-escape`` would interpret backslashes). Decoding never fails:
Latin-1 reads any bytes. What was guessed is said in a note for the sender.
Then the text is normalised: one kind of newline, no control characters, no
lone surrogates (which no mail can carry).
"""

from __future__ import annotations

import codecs
import re

from pbm.facts import Fact

# Codecs Python knows that are no mail charsets: they interpret backslashes or
# always fail, and a sender must not be able to pick them.
_NOT_MAIL_CHARSETS = {"unicode-escape", "raw-unicode-escape", "undefined", "idna", "punycode"}
# Single-byte labels that, as in browsers (WHATWG Encoding), mean Windows-1252.
_WINDOWS_1252_LABELS = {"iso8859-1", "cp1252"}
_SINGLE_BYTE_WESTERN = _WINDOWS_1252_LABELS | {"iso8859-15"}


def decode(data: bytes, charset: str | None) -> tuple[str, Fact | None]:
    """Text of a part and, when the declared charset did not fit, a note saying how
    it was read instead.  Never fails: Latin-1 reads any bytes."""
    if not charset:
        text, used = decode_fallback(data)
        return text, None if used == "UTF-8" else Fact("note-no-charset", used=used)
    label = printable(charset)
    try:
        codec = codecs.lookup(charset).name
    except (LookupError, ValueError):
        codec = None
    if codec in _SINGLE_BYTE_WESTERN and not data.isascii():
        # Any bytes are "valid" Latin-1, so a lie is only visible the other way
        # round: multi-byte UTF-8 sequences almost never occur in Latin-1 text.
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return text, Fact("note-charset-is-utf8", label=label)
    if codec in _WINDOWS_1252_LABELS:
        return _latin1(data), None
    if codec is not None and codec not in _NOT_MAIL_CHARSETS:
        try:
            return data.decode(codec), None
        except UnicodeError:
            text, used = decode_fallback(data)
            return text, Fact("note-charset-invalid", label=label, used=used)
        except LookupError:
            pass  # a bytes-to-bytes codec such as "base64"
    text, used = decode_fallback(data)
    return text, Fact("note-charset-unknown", label=label, used=used)


def decode_fallback(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return _latin1(data), "Latin-1"


def _latin1(data: bytes) -> str:
    # Windows-1252 is Latin-1 with printable characters (smart quotes, euro) where
    # Latin-1 has C1 controls; the five bytes it leaves undefined need plain Latin-1.
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def printable(text: str) -> str:
    return re.sub(r"[^\x21-\x7e]", "?", text)[:40]


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def normalise(text: str) -> tuple[str, list[Fact]]:
    """'\\n' newlines, no BOM, NBSP as space, no control characters but tab, no lone
    surrogates; and the notes saying what was removed (NUL cannot even be stored in a
    PostgreSQL text column, a lone surrogate cannot be written in any mail)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    text = re.sub(r"[\r\x85\u2028\u2029]", "\n", text).replace("\xa0", " ")
    notes = []
    text, controls = _CONTROLS.subn("", text)
    if controls:
        notes.append(Fact("note-controls-removed"))
    text, surrogates = _SURROGATES.subn("\ufffd", text)
    if surrogates:
        notes.append(Fact("note-invalid-unicode"))
    return text, notes
