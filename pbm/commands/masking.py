"""Passwords starred in what the server passes on or quotes back: comments and error answers.

A word is starred when it can be a password, and only then:

- a password the mail's commands carried (`secrets`, or a line of the text
  that parses as a command), wherever it stands, and in any word containing it;
- the words in a password position of a line shaped like a command of a
  known verb that does not parse, however its board was written (``x101``,
  ``#101``, ``board 101``, ``101,``, or left out), and those words again
  wherever they stand as words of their own.

The positions come from each verb's usage (`Verb.arguments`, `Verb.passwords`):
its password words follow its userid, and the userid follows a board when
the usage puts one first. Where a broken line leaves it open which word the
userid is, every reading counts. Prose, greetings and quoted boards stay as
they were written, and a word shorter than any password (`MIN_LENGTH`) is
starred only where a command that parsed puts a password.

>>> mask_passwords("cephalopod move x101 ivan s3cret c3\\nGood luck, ivan!")
'cephalopod move x101 ******** ******** c3\\nGood luck, ********'
>>> mask_passwords("Hello, Zoe would like to play: cephalopod 101 was fun")
'Hello, Zoe would like to play: cephalopod 101 was fun'
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import pbm.games
from pbm.commands import language as lang
from pbm.commands.language import CommandError
from pbm.commands.usage import secret_count
from pbm.commands.verbs import ACCOUNT, ACCOUNT_VERBS, GAME, Verb, near_miss, parse_command
from pbm.crypto.passwords import MAX_LENGTH, MIN_LENGTH

MASK = "********"
_WORD = re.compile(r"\S+")
_EDGES = string.punctuation + "«»“”‘’"
"""What may stick to a word without being part of it (``101,``, ``(s3cret)``)."""


@dataclass(frozen=True)
class _Guess:
    """The shape of a line of a verb nobody knows, read as a verb's usage is."""

    arguments: str

    @property
    def passwords(self) -> int:
        return secret_count(self.arguments)


_SOME_CHANGE = _Guess("WHAT USERID OLD NEW")
"""``change WHAT USERID ...`` with a WHAT nobody knows, or none: two passwords may follow the userid."""
_SOME_VERB = _Guess("BOARD USERID PASSWORD | USERID PASSWORD")
"""A verb nobody knows, in a line shaped like a command all the same."""
_LONGEST_UNKNOWN = 4
"""The most words after a verb nobody knows in a line read as a command: board, userid, password, move."""


def mask_passwords(text: str, secrets: Collection[str] = (), *, unparsed: bool = False) -> str:
    """The text with every word that can be a password starred, for quoting and comments.

    `secrets` are the passwords the mail's commands carried; `unparsed` says
    that the server read no command in the mail, so that a line of a verb
    nobody knows (``login alice s3cret``) may be the command meant.

    >>> mask_passwords("move 103 bob s3cret c3\\nThanks! My password is s3cret.")
    'move 103 bob ******** c3\\nThanks! My password is ********'
    >>> mask_passwords("Cubeo with eight d8s and removal.")
    'Cubeo with eight d8s and removal.'
    >>> mask_passwords("login alice s3cret", unparsed=True)
    'login alice ********'
    """
    lines = text.split("\n")
    spans = [_word_spans(line) for line in lines]
    readings = [_read(line, line_spans, unparsed=unparsed) for line, line_spans in zip(lines, spans, strict=True)]
    known = {secret for secret in secrets if _can_be_password(secret)}
    guessed: set[str] = set()
    for line, line_spans, (places, parsed) in zip(lines, spans, readings, strict=True):
        words = [line[start:end] for start, end in line_spans]
        candidates = [words[i] for i in places if _can_be_password(words[i])]
        if parsed:
            known.update(candidates)
        else:
            guessed.update(_bare(word) for word in candidates)
    inside = _Secrets(known)
    guessed.discard("")
    return "\n".join(
        _mask_line(line, line_spans, places, inside, guessed)
        for line, line_spans, (places, _) in zip(lines, spans, readings, strict=True)
    )


def _word_spans(line: str) -> list[tuple[int, int]]:
    """Where the words of a line stand, but for ``**`` (the language ignores it)."""
    return [m.span() for m in _WORD.finditer(line) if m.group() != "**"]


def _read(line: str, spans: list[tuple[int, int]], *, unparsed: bool) -> tuple[set[int], bool]:
    """Which words of a line stand where a password would, and whether the line parsed as a command.

    The line is read as a command after its quote marks (``> ``). A verb nobody
    knows is taken for one only in a line the player typed: not quoted, and not
    set in columns (a move list's header reads like ``alice bob carol``).
    """
    words = [line[start:end] for start, end in spans]
    quoted = next((i for i, word in enumerate(words) if set(word) != {">"}), len(words))
    read = [word.lstrip(">") if i == quoted else word for i, word in enumerate(words)][quoted:]
    typed = unparsed and not line.lstrip().startswith(">") and "  " not in line.strip()
    places, parsed = _password_places(read, unparsed=typed)
    return {quoted + i for i in places}, parsed


def _password_places(words: list[str], *, unparsed: bool) -> tuple[set[int], bool]:
    """Which words of a line stand where a password would, and whether the line parsed as a command.

    A line that parses gives its passwords exactly, whatever their length; its
    shape counts too, for the verbs that are reserved (``pass``) parse without
    reading their passwords.
    """
    if not words:
        return set(), False
    try:
        secrets: tuple[str, ...] | None = parse_command(" ".join(words)).secrets()
    except CommandError:
        secrets = None
    found = {i for i, word in enumerate(words) if secrets and word in secrets}
    shape = _shape(words, unparsed=unparsed)
    if shape is not None:
        verb, at = shape
        found.update(i for i in (at + j for j in _places_after_verb(words[at:], verb)) if _can_be_password(words[i]))
    return found, secrets is not None


def _shape(words: list[str], *, unparsed: bool) -> tuple[Verb | _Guess, int] | None:
    """The verb of a line shaped like a command, and where the words after it start.

    After a game's name or a near miss of one, a verb or a near miss of one
    (``cephalpod resgin ...``); first on the line, a verb where it reads as a
    command (`_reads_as_command`); or a word that is no verb where it stands as
    a command's verb would (`_stands_as_a_verb`).
    """
    lowered = [word.lower() for word in words]
    after_game = len(lowered) > 1 and _is_game(lowered[0])
    at = 1 if after_game else 0
    named = _verb_named(lowered[at:], after_game=after_game)
    if named is None:
        unknown = _stands_as_a_verb(words[at], lowered[at + 1 :], after_game=after_game, unparsed=unparsed)
        return (_SOME_VERB, at + 1) if unknown else None
    verb, length = named
    if after_game or _reads_as_command(verb, lowered[at + length :]):
        return verb, at + length
    return None


def _is_game(word: str) -> bool:
    return word in pbm.games.names() or near_miss(word, pbm.games.names()) is not None


def _verb_named(words: list[str], *, after_game: bool) -> tuple[Verb | _Guess, int] | None:
    """The verb the words from a line's verb on name (in one word or two), and how many words its name takes.

    A near miss of a verb counts only after a game's name: at the start of a
    line, ``Moved to c3`` is prose.
    """
    if not words:
        return None
    two, one = " ".join(words[:2]), words[0]
    if after_game and one in GAME:
        return GAME[one], 1
    if two in ACCOUNT:
        return ACCOUNT[two], 2
    if one in ACCOUNT or one in GAME:
        return ACCOUNT.get(one) or GAME[one], 1
    if one == "change":
        return _SOME_CHANGE, 1
    near = near_miss(one, GAME) if after_game else None
    return (GAME[near], 1) if near is not None else None


def _reads_as_command(verb: Verb | _Guess, args: list[str]) -> bool:
    """Whether a verb first on a line, no game's name before it, reads as a command.

    An account verb does, as the language reads every such line; ``change``
    of something nobody knows in a line no longer than a command (longer, it
    is a sentence: ``Change of plans: I cannot play tonight``). A game's verb,
    its game left out, before a board however written (``move #101 ...``), or
    before a userid in a line no longer than its usage (``limit alice pw 3``).
    """
    if verb is _SOME_CHANGE:
        return len(args) <= len(_alternatives(verb)[0]) + 1  # a second address
    if verb in ACCOUNT_VERBS:
        return True
    if any(character.isdigit() for word in args[:2] for character in word):
        return True
    return _is_userid(args[:1]) and any(
        alternative[:1] == ["USERID"] and (_open_ended(alternative) or len(args) <= len(alternative))
        for alternative in _alternatives(verb)
    )


def _stands_as_a_verb(word: str, args: list[str], *, after_game: bool, unparsed: bool) -> bool:
    """Whether a word that is no verb stands where a command's verb would, in a line no longer than a command.

    After a game's name, or first on the line and written in lower case as
    commands are: before a board; and, when the mail has no command at all
    (`unparsed`), before a userid and a password (``login alice s3cret``).
    A word that only starts sentences (``the same move.``) is never a verb.
    """
    if len(args) > _LONGEST_UNKNOWN or not (after_game or re.fullmatch(r"[a-z]{2,}", word)):
        return False
    if not after_game and word in _SENTENCE_STARTS:
        return False
    if _reads_as_board(args[:1]):
        return True
    # Before a userid and a password: not when the word is one of prose (``demain soir avec toi``).
    return unparsed and _plain(word) not in _PROSE_WORDS and len(args) < _LONGEST_UNKNOWN and _is_userid(args[:1])


_ENGLISH_STARTS = (
    "a an and as at but by for from he her his i if in is it its my no not of on or our she so that the their "
    "then there these they this to we what when where which who why will with you your "
    "hi hello hey dear thanks thank sorry ok okay yes please good nice well great oh ah see"
)
_FRENCH_STARTS = (
    "je j tu il elle on nous vous ils elles le la les l un une des du de d et mais ou donc car ni si que qu qui "
    "quoi quand comme ce cet cette ces c mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs y en "
    "au aux avec pour par sur sous dans chez sans vers merci bonjour bonsoir salut coucou oui non ne pas "
    "voici voila bien bon bonne tres trop alors puis ensuite enfin desole pardon bravo cher chere"
)
_SENTENCE_STARTS = frozenset(f"{_ENGLISH_STARTS} {_FRENCH_STARTS}".split()) - set(ACCOUNT) - set(GAME)
"""Words that start prose, in English or French, never a command: no verb of any server is one of them."""
_PROSE_WORDS = _SENTENCE_STARTS | frozenset(
    "am are was were be been have has had do does did can could would should shall may might must me him us them "
    "game games play played playing tomorrow today tonight later again soon time move moves luck fun "
    "suis es est sommes etes sont etais etait ai as avons avez ont avais avait fais fait faire peux peut veux veut "
    "voudrais voudrait aimerais aimerait pourrais pourrait dois doit vais va allons partie parties jouer joue "
    "rejouer demain aujourd hui soir matin ce soir plus tard encore bientot temps coup coups chance amuse toi moi "
    "lui eux".split()
)
"""Words of ordinary prose, in English or French: a line they start is no command of a verb nobody knows,
and none of them is checked against a password."""


def _alternatives(verb: Verb | _Guess) -> list[list[str]]:
    """The shapes of a verb's arguments, as its usage writes them (``BOARD USERID PASSWORD | USERID ...``)."""
    return [alternative.split() for alternative in verb.arguments.split(" | ")]


def _open_ended(alternative: list[str]) -> bool:
    """Whether an argument of the shape may be any number of words (``ADDRESS...``, ``[-options]``, a move)."""
    return any("..." in word or "options" in word or "MOVE" in word for word in alternative)


def _places_after_verb(args: list[str], verb: Verb | _Guess) -> set[int]:
    """Where the passwords of `verb` may stand among the words after it: after its userid, wherever
    that may be, by each shape of its usage."""
    places: set[int] = set()
    for alternative in _alternatives(verb):
        if "USERID" in alternative:
            for userid_at in _userid_places(args, before=alternative.index("USERID")):
                places.update(range(userid_at + 1, min(userid_at + 1 + verb.passwords, len(args))))
    return places


def _userid_places(args: list[str], *, before: int) -> set[int]:
    """Where a userid may stand, when the usage puts `before` words (0, or 1: a board) before it.

    Past the words that read as boards; and, where a word belongs before the
    userid but the first does not read as a board, also past that word: it
    may be the board written wrongly (``x101``), a word before the board
    (``board 101``), or the userid itself, the board left out.
    """
    places = {_past_boards(args, 0)}
    if before and args and not _reads_as_board(args[:1]):
        places.add(_past_boards(args, 1))
    if not before and args and any(character.isdigit() for character in args[0]):
        places.add(_past_boards(args, 1))  # a board where none belongs, written wrongly (``language x101 alice``)
    return places


def _past_boards(args: list[str], start: int) -> int:
    while start < len(args) and _reads_as_board(args[start : start + 1]):
        start += 1
    return start


def _reads_as_board(words: list[str]) -> bool:
    """Whether `words` is one word that reads as a board, punctuation aside (``101``, ``#101``, ``101,``)."""
    return len(words) == 1 and words[0].strip(_EDGES).partition("#")[0].isdecimal()


def _is_userid(words: list[str]) -> bool:
    return len(words) == 1 and lang.USERID.match(words[0]) is not None


class _Secrets:
    """Passwords to find inside words (``s3cret,`` and ``(s3cret)`` hide ``s3cret``).

    A word is looked up by its pieces of each password length, so a mail of a thousand lines
    naming a thousand passwords costs a thousand times a word's few pieces, not a million
    comparisons per line.
    """

    def __init__(self, secrets: Collection[str]) -> None:
        self._secrets = frozenset(secrets)
        self._lengths = sorted({len(secret) for secret in self._secrets})

    def within(self, word: str) -> bool:
        return any(
            word[start : start + length] in self._secrets
            for length in self._lengths
            for start in range(len(word) - length + 1)
        )


_SENTENCE_MARKS = ".,;:!?()\"'«»“”‘’"
"""What a sentence puts around its words (not ``-`` or ``_``, which a userid or a password may end with)."""


def _unmarked(word: str) -> str:
    return word.strip(_SENTENCE_MARKS)


def _plain(word: str) -> str:
    """`word` as the word lists write it: without a sentence's marks, in lower case, without accents
    (``Très,`` is ``tres``)."""
    decomposed = unicodedata.normalize("NFKD", _unmarked(word).lower())
    return "".join(character for character in decomposed if not unicodedata.combining(character))


MOST_WORDS_CHECKED = 8
"""Words of one mail checked against its author's password (`password_candidates`): argon2 takes
tens of milliseconds a check, by design."""


def password_candidates(
    text: str, known: Collection[str] = (), *, most: int = MOST_WORDS_CHECKED, ignore: Collection[str] = ()
) -> list[str]:
    """The words of `text` worth checking against its author's password, at most `most`, likeliest first.

    A password can stand anywhere (first in a broken command, inside a sentence, quoted in
    prose), so the server checks the words themselves, as written and without the punctuation
    around them; but argon2 is slow, so only words of a password's length that are not starred
    already nor in `known` or `ignore` (the author's userid), and not words of prose in English or
    French, games' names or verbs, are checked, and at most `most` of them: first those after a
    game's name or a verb (where a command puts it), then those shaped like one (a digit, a sign,
    or letters of both cases), then the rest, in order. Lines quoted (``>``) are not read: a reply
    quotes our own mail there, and its author's password never stands in it.
    """
    skipped = {word.lower() for word in ignore}
    scored: dict[str, tuple[int, int]] = {}
    for line in text.split("\n"):
        words = line.split()
        after_verb = _words_after_a_verb(words)
        if line.lstrip().startswith(">"):
            continue  # quoted: another's words (our own mail, replied to), at no one's cost
        for index, word in enumerate(words):
            ending = word[:-1] if word[-1:] in ".,;:!?" else word  # ``s3cret!.``: the sentence's stop alone
            # As written too, when its marks may belong to it (``22222!``; not ``coming.``).
            core = _unmarked(word)
            written = () if core.isalpha() and core.islower() else (word,)
            for form in dict.fromkeys((*written, ending, _unmarked(word), _bare(word))):
                if form in scored or form in known or not _can_be_password(form) or MASK in form:
                    continue
                plain = _plain(form)
                if plain in _PROSE_WORDS or plain in skipped or plain in GAME or plain in ACCOUNT or _is_game(plain):
                    continue
                rank = 0 if index in after_verb else 1 if _shaped_like_a_password(form) else 2
                scored[form] = (rank, len(scored))
    return sorted(scored, key=scored.__getitem__)[:most]


def _words_after_a_verb(words: list[str]) -> set[int]:
    """Where, among a line's words, the few after a game's name or a verb stand. A verb counts where a
    command could begin with it: first on the line, after a game's name, or after a colon or a quote
    (``I sent: language alice …``); in the middle of a sentence (``I move on, really``) it is prose,
    and the words after it would crowd the ones worth checking out of the few checked."""
    lowered = [_bare(word).lower() for word in words]
    starts = [
        i
        for i, word in enumerate(lowered)
        if _is_game(word)
        or (
            (word in GAME or word in ACCOUNT)
            and (i == 0 or _is_game(lowered[i - 1]) or words[i - 1][-1:] in ':"«“\'' or words[i][:1] in '"«“\'')
        )
    ]
    return {j for i in starts for j in range(i + 1, min(i + 1 + _LONGEST_UNKNOWN + 1, len(words)))}


def _shaped_like_a_password(word: str) -> bool:
    return not word.isalpha() or (word.lower() != word and word.upper() != word)


def _can_be_password(word: str) -> bool:
    return MIN_LENGTH <= len(word) <= MAX_LENGTH


def _bare(word: str) -> str:
    return word.strip(_EDGES)


def _mask_line(
    line: str, spans: list[tuple[int, int]], places: Iterable[int], known: _Secrets, guessed: Collection[str]
) -> str:
    hidden = set(places) | {
        i for i, (start, end) in enumerate(spans) if _bare(line[start:end]) in guessed or known.within(line[start:end])
    }
    if not hidden:
        return line
    pieces, last = [], 0
    for index, (start, end) in enumerate(spans):
        if index in hidden:
            pieces.append(line[last:start] + MASK)
            last = end
    return "".join(pieces) + line[last:]
