"""Reading back the English the store kept before it kept facts (migration 0020).

Until then a finished game kept how it ended in words (``won, holding 15 of the 25 cells``,
``bob resigned in the first round``) and a move kept what it did in words (``played c3=b3+d3,
capturing 2 dice (a 1 and a 2)``). Every one of those sentences was made by a known template,
the same the catalogues hold today, so each is read back into its fact by matching it against
the templates it may have come from, and kept only when the fact says exactly those words
again. A sentence no template made (written by a version before these words) is kept as it
is, under ``unconverted-words``: nothing is lost, and it still reads the same.

>>> from pbm.words import every_catalogue
>>> reader = OldWords(every_catalogue())
>>> reader.end("won, holding 5 of the 9 cells")
Fact('cephalopod-most-cells', held=5, cells=9)
>>> reader.end("won when bob resigned")
Fact('won-when-left', userid='bob', did=Fact('resigned'))
>>> reader.end("whatever an old version wrote")
Fact('unconverted-words', text='whatever an old version wrote')
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterable, Iterator
from typing import Any

from pbm.facts import UNCONVERTED, Catalogue, Fact, Plural, say

_RESULTS = (
    "cephalopod-last-player",
    "cephalopod-most-cells",
    "cephalopod-tie",
    "cubeo-merged",
    "cubeo-no-move",
    "dodeca-dodecas-captured",
)
"""The endings the engines decide (an installed game's are found by their codes: see `OldWords`)."""
_LEAVINGS = ("resigned", "forfeited-by-signing-off", "forfeited-on-time")
_SPANS = ("days", "hours")
_ENDINGS = ("won-when-left", "tied-when-left", "tied-by-agreement", "called-off-in-the-first-round")
_MOVES = (
    "cephalopod-captured",
    "cephalopod-filled",
    "cubeo-adding",
    "cubeo-adding-the-last",
    "cubeo-removing",
    "cubeo-moving",
    "cubeo-merging",
    "dodeca-rolled-again",
    "dodeca-rolled",
    "dodeca-moved",
    "dodeca-captured",
    "dodeca-captured-one-dodeca-left",
    "dodeca-captured-no-dodeca-left",
    *_LEAVINGS,
    "left-and-the-others-play-on",
    "took-back-move",
    "played",
)
_WHYS = (
    "cephalopod-out-in-two-rounds",
    "cephalopod-out-holding-none",
    "cephalopod-out-holding-fewest",
    "cephalopod-out-tied-for-fewest",
)

_FACT, _FACTS, _WORDS = "fact", "facts", "words"
_NESTED: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    # Which parameters of which codes hold a fact (of which codes), a list of facts, or a list of words.
    ("cephalopod-captured", "dice"): (_FACTS, ("cephalopod-die-showing", "cephalopod-die-showing-an")),
    ("cephalopod-out-in-two-rounds", "first"): (_FACT, ("cephalopod-the-players",)),
    ("cephalopod-out-in-two-rounds", "second"): (_FACT, ("cephalopod-the-players",)),
    ("cephalopod-out-in-two-rounds", "fewest"): (_FACT, ("cephalopod-each",)),
    ("forfeited-on-time", "why"): (_FACT, ("no-move-in", "thinking-time-ran-out", "clock-ran-out")),
    ("no-move-in", "span"): (_FACT, _SPANS),
    ("thinking-time-ran-out", "span"): (_FACT, _SPANS),
    ("left-and-the-others-play-on", "did"): (_FACT, _LEAVINGS),
    ("won-when-left", "did"): (_FACT, _LEAVINGS),
    ("tied-when-left", "did"): (_FACT, _LEAVINGS),
    ("player-did", "did"): (_FACT, _LEAVINGS),
    ("called-off-in-the-first-round", "what"): (_FACT, ("player-did", "draw-agreed", "winners-result")),
    ("winners-result", "winners"): (_WORDS, ()),
    ("winners-result", "result"): (_FACT, _RESULTS),
}
_LIST = re.compile(r", | and ")


class OldWords:
    """Reads old sentences back into facts, with the templates of `catalogue` (every layer's)."""

    def __init__(self, catalogue: Catalogue, *, more_results: Iterable[str] = ()) -> None:
        self.catalogue = catalogue
        self._results = (*_RESULTS, *more_results)

    def end(self, text: str) -> Fact:
        """The fact of a game's ending, from the words `Board.end_reason` kept."""
        return self._read(text, (*self._results, *_ENDINGS))

    def move(self, text: str) -> Fact:
        """The fact of what a move did, from the words a move's report kept."""
        return self._read(text, _MOVES)

    def why(self, text: str, out: int) -> Fact:
        """Why a move put `out` players out, from the words a move's report kept."""
        fact = self._read(text, _WHYS, count=out)
        if fact.code == "cephalopod-out-in-two-rounds":
            # "(7 each)" does not say how many: as many as the second round put out.
            fewest = Fact("cephalopod-each", count=fact["second"]["count"], fewest=fact["fewest"]["fewest"])
            fact = Fact(fact.code, **{**fact.params, "fewest": fewest})
        return fact

    def _read(self, text: str, codes: Iterable[str], *, count: int = 2) -> Fact:
        return self._best(text, codes, count) or Fact(UNCONVERTED, text=text)

    def _best(self, text: str, codes: Iterable[str], count: int = 2) -> Fact | None:
        """Of the facts that say `text`, the one that leaves the fewest words to its parameters
        (``played e1, filling the board`` is ``cephalopod-filled``, not ``played`` a move
        ``e1, filling the board``; ``(7 each)`` is 7, not the words ``7 each``)."""
        return min(self._facts(text, codes, count), key=_loose, default=None)

    def _facts(self, text: str, codes: Iterable[str], count: int = 2) -> Iterator[Fact]:
        """Every fact of one of `codes` that says exactly `text`. A plural whose words do not show
        its number is given `count` for its other form (its one form: 1)."""
        for code in codes:
            message = self.catalogue.get(code)
            if message is None:
                continue
            forms = [(message.one, 1), (message.other, count)] if isinstance(message, Plural) else [(message, 0)]
            for template, number in forms:
                for found in _readings(_parts(template), text):
                    params = self._params(code, found)
                    if params is None:
                        continue
                    if isinstance(message, Plural):
                        params.setdefault(message.count, number)
                    fact = Fact(code, **params)
                    try:
                        if say(fact, self.catalogue) == text:
                            yield fact
                    except (KeyError, ValueError, TypeError, IndexError):
                        continue  # a reading the template cannot say: not the one

    def _params(self, code: str, found: dict[str, str]) -> dict[str, Any] | None:
        params: dict[str, Any] = {}
        for group, words in found.items():
            name, _, conversion = group.partition("!")
            kind, codes = _NESTED.get((code, name), ("", ()))
            if kind == _FACT:
                value: Any = self._best(words, codes)
            elif kind == _FACTS:
                items = [self._best(item, codes) for item in _LIST.split(words)]
                value = None if None in items else items
            elif kind == _WORDS:
                value = _LIST.split(words)
            elif conversion == "r":
                value = _literal(words)
            else:
                value = int(words) if words.isdecimal() and words == str(int(words)) else words
            if value is None:
                return None
            params[name] = value
        return params


def _loose(value: Any) -> int:
    """How many characters of a reading are words taken as they were rather than read."""
    if isinstance(value, Fact):
        return sum(_loose(param) for param in value.params.values())
    if isinstance(value, list):
        return sum(_loose(item) for item in value)
    return len(value) if isinstance(value, str) else 0


def _parts(template: str) -> list[tuple[str, str | None]]:
    """A template as its literal words, each followed by the field after it (``name`` or ``name!r``)."""
    return [
        (literal, None if field is None else f"{field}!{conversion}" if conversion else field)
        for literal, field, _, conversion in string.Formatter().parse(template)
    ]


def _readings(parts: list[tuple[str, str | None]], text: str) -> Iterator[dict[str, str]]:
    """Every way `text` splits into the template's literal words and its fields' words (a field
    used twice says the same words both times)."""
    if not parts:
        if not text:
            yield {}
        return
    (literal, field), rest = parts[0], parts[1:]
    if not text.startswith(literal):
        return
    text = text[len(literal) :]
    if field is None:
        yield from _readings(rest, text)
        return
    following = rest[0][0] if rest else ""
    ends = [len(text)] if not rest else [i for i in range(1, len(text) + 1) if text.startswith(following, i)]
    for end in ends:
        for found in _readings(rest, text[end:]):
            if found.get(field, text[:end]) == text[:end]:
                yield {field: text[:end], **found}


def _literal(words: str) -> str | None:
    try:
        value = ast.literal_eval(words)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None
