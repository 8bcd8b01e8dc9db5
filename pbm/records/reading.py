"""Reading a record's JSON from a file someone handed over, within bounds.

`pbm verify` reads a file from anyone: it must answer in a sentence and exit 2
(not a record) whatever the file holds. Unbounded, Python's JSON reader fails
on 200 000 nested brackets (RecursionError) and on a 100 000-digit number (a
ValueError from int()'s limit on digits), each a traceback and exit 1, the
code that says "not genuine". So the file is read up to `MAX_BYTES`, its
nesting bounded by `MAX_DEPTH`, and every way reading fails is a `Fact`.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

from pbm.facts import Fact

MAX_BYTES = 16 * 1024 * 1024
"""The largest record read: a game of a thousand plies writes well under a megabyte."""
MAX_DEPTH = 32
"""The deepest nesting of arrays and objects read: a record nests six or seven levels."""


class Unreadable(Exception):
    """The file is no JSON a record could be; `fact` says why (`pbm.records.messages`)."""

    def __init__(self, fact: Fact) -> None:
        super().__init__(fact.code)
        self.fact = fact


def read_json(name: str) -> Any:
    """The JSON in file `name` (``-``: standard input), or `Unreadable` saying why it is none."""
    try:
        if name == "-":
            # The bytes under the text stream; a stream with none (a test's, an embedding's) is read as text.
            stdin = getattr(sys.stdin, "buffer", None) or io.BytesIO(sys.stdin.read(MAX_BYTES + 1).encode())
            data = _bounded(stdin)
        else:
            with Path(name).open("rb") as file:
                data = _bounded(file)
    except OSError as error:
        raise Unreadable(Fact("record-unreadable", why=type(error).__name__)) from None
    return parse(data)


def _bounded(file: BinaryIO) -> bytes:
    data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise Unreadable(Fact("record-too-large", megabytes=MAX_BYTES // (1024 * 1024)))
    return data


def _no_constant(name: str) -> Any:
    """NaN and Infinity are no JSON (and no record holds them): refused as the reader's own errors are."""
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def parse(data: bytes) -> Any:
    """`data` as JSON, within `MAX_DEPTH`; `Unreadable` when it is none, too deep, or holds a number
    of more digits than int() reads."""
    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise Unreadable(Fact("record-unreadable", why="UnicodeDecodeError")) from None
    except json.JSONDecodeError:
        raise Unreadable(Fact("record-unreadable", why="JSONDecodeError")) from None
    except RecursionError:
        raise Unreadable(Fact("record-too-deep", depth=MAX_DEPTH)) from None
    except ValueError:  # int() refuses a number of more than sys.get_int_max_str_digits() digits
        raise Unreadable(Fact("record-number-too-long", digits=sys.get_int_max_str_digits())) from None
    if _depth(value) > MAX_DEPTH:
        raise Unreadable(Fact("record-too-deep", depth=MAX_DEPTH))
    return value


def _depth(value: Any) -> int:
    """How deep `value`'s arrays and objects nest, counted without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest
