"""Finding English in a text meant for a French reader: a mail's subject and body, a page's text.

The check reads the whole text (nothing is cut out first) and names every word that is common
English and not French, and every placeholder named in English (USERID, FILE). Four kinds of words
are English-looking and still right in French text, and they are the whole allow-list:

- **names**: the games, Dodeca's dice and Cephalopod's seats by their names, the userids of the
  players being checked (and what a visitor typed, shown back), each language by its own name
  (``English`` in the language switch), the server's own name (``PBeM Server``);
- **notation**: links, addresses, numbers, cells and moves (anything with a digit), options
  (``-size``), paths (``/players/...``), a mail's header names (``From``), and a command as the
  server reads it. A verb's or keyword's word (``move``, ``challenge``, ``show``, ``help``...)
  passes only beside another word of a command: a game's name, a userid, a PLACEHOLDER in
  capitals, a number, a starred password, another command word; or inside « » (a page's
  ``<code>``), after a colon or alone on its line, where French text quotes what to send
  (« open », objet : help, a usage line). The same word in a French sentence ("votre move") is
  English and is found;
- **a word quoted alone** in « »: the French text's way of citing what the server reads or keeps
  (« players », a stored position's key), or what a reader wrote (« lost »);
- **markup** of a page: its tags, and the code of its scripts and styles (not words anyone reads;
  the attributes a reader sees or hears, ``title``, ``aria-label``, ``alt``, ``placeholder`` and
  the live script's sentences, are kept as text).
"""

from __future__ import annotations

import re
from html import unescape

import pbm.games
from pbm.commands import verbs
from pbm.games import cephalopod
from pbm.i18n import languages

ENGLISH = frozenset(
    """
    a about above after again against ago all almost already also although always am among and another
    any anyone anything anyway are around asked at available away back be because been before
    begin begins behind being below best better between both but by called can cannot could
    day days did do does done down during each either else end ended ends enough even ever every
    everyone everything few first for found from further get gets give given gives go goes going gone
    got had has have having he her here him his how however i if in into is it its itself just keep
    keeps kept know last later least leave left less let like little long look made make makes many
    may me might mine more most much must my never new next no nobody none nor not nothing now of off
    often old once one only or other others our ours out over own per please same see seen she should
    show shown shows since so some someone something sometimes soon still such than that the their
    theirs them then there these they thing things this those though through till to today together
    too took under until up upon us very was way we well were what whatever when where whether which
    while who whom whose why will with within without would yet you your yours yourself
    board boards game games move moves moved player players played playing play plays won win wins
    winner winners lost lose loses tied tie ties drawn draw draws turn turns seat seats roll rolls rolled
    reroll dice die hand held hold holds captured capturing merge merged merging cell cells square squares
    mail mails sent send sends reply replies wrote write writes written read reads answer
    password passwords userid userids clock clocks time times thinking forfeit forfeits forfeited
    reminder reminders warning deadline deadlines rating ratings rated provisional standings
    record records check checks seed commitment hash chain verify file files key keys signed signature
    north south east west white black red blue
    rules rule help how what status active finished cancelled waiting started starts start over
    each empty full note notes until away vacation holiday quiet hours hour minute minutes week weeks
    month months year years morning night evening tomorrow yesterday
    error errors wrong failed failure unknown invalid illegal legal allowed refused found missing
    language english french settings preferences address addresses subscribe unsubscribe unsubscribed
    watch watching watchers watcher challenge challenges challenged open seek seeks seeking
    opponent opponents enemy friendly pinned source target
    current latest highest lowest higher lower newer older newest oldest showing shows
    queue queued queues preview previews undo resign resigned resigns propose proposed accept
    accepted reject rejected vote votes voting proposal
    server administrator admin updates update lands request called whole number numbers give
    secret winner stone kinds moving already because anyone everybody somebody
    summary news new welcome thanks thank yes okay ok
    list lists page pages left right top bottom first second third last
    """.split()
) - frozenset(
    # French words too, or words French text writes as they are: never a sign of English.
    """a admin as but case chat date de en est fin file files hors i if long main me message messages mine
    minute minutes note notes ok okay or ours page pages place plus pool position propose queue queues second
    secret sent signature son source table tables top type vote votes""".split()
)
"""Common English words that are not French words too: ``page``, ``message``, ``note``, ``table``,
``date``, ``place``, ``case``, ``main``, ``but``, ``or``, ``son``, ``vote``, ``second``, ``file``,
``queue``, ``secret``, ``minute``, ``long``, ``sent``, ``ours`` are French as well (and ``i`` a
column of Dodeca's board), so they are no sign of English and are taken out of the list."""

ENGLISH_PLACEHOLDERS = frozenset(
    "USERID USERID1 USERID2 YOURID PASSWORD BOARD MOVE MOVES GAME ADDRESS FILE FROM UNTIL START INCREMENT CAP"
    " FRIEND OLD NEW TO LANGUAGE NPLAYERS".split()
)
"""What a player writes in place of a usage line's capitals, named in English: French names them
(IDENTIFIANT, MOTDEPASSE, PARTIE, COUP, FICHIER...), whether or not the English word is French too."""

GAME_NAMES = frozenset({*pbm.games.names(), *(pbm.games.get(name).title.lower() for name in pbm.games.names())})
DICE_NAMES = frozenset({"tetra", "cube", "octo", "dodeca", "dodecas", "tetras", "cubes", "octos"})
"""Dodeca's dice, by their names."""
SEAT_NAMES = frozenset(name.lower() for name in cephalopod.SEAT_NAMES)
"""The seats by their names (Paren, Angle, Square...): the brackets the board draws their dice in."""
SERVER_NAME = frozenset({"pbem", "server"})
"""``PBeM Server``, the server's name, as the From line and the subjects name it."""

COMMAND_WORDS = frozenset(
    {
        word.lower()
        for verb in (*verbs.ACCOUNT_VERBS, *verbs.GAME_VERBS)
        for name in (verb.name, *verb.aliases)
        for word in name.split()
    }
    | {"off", "all", "if", "then", "else", "new", "open", "inf", "active", "next", "now", "today", "board"}
    | {"tutorial", "ratings", "time", "bots", "finished", "cancelled", "roll", "propose", "undo", "accept"}
    | {"reject", "resign", "status", "before", "after", "player", "lang", "queue", "reset", "mail", "json"}
    | {"pbm", "verify", "verify-dice", "make", "ladder"}
)
"""The words of the command language (verbs, their aliases, literal arguments, help topics) and the
web pages' query parameters: notation when they stand in a command, English anywhere else."""

_TOKEN = re.compile(r"\*{3,}|-{0,2}[\wÀ-ÿŒœ’']+(?:-[\wÀ-ÿ]+)*=?")
_QUOTED = re.compile(r"«[^«»]*»")
LANGUAGE_NAMES = frozenset(languages.LANGUAGES.values())
"""Each language by its own name (``English``), as the language switch offers it to its readers."""
HEADER_NAMES = frozenset({"From", "Reply-To", "To", "Subject"})
"""A mail's header fields by the name a mail program shows them under (French ones show them too)."""


def _is_notation(token: str, names: frozenset[str]) -> bool:
    """Whether `token` is notation beside which a command's word stands as notation too."""
    plain = token.lower().rstrip("=")
    return (
        token.startswith(("*", "-"))  # a starred password, an option
        or any(character.isdigit() for character in token)  # a cell, a board, a move, a time
        or (token.isupper() and len(token) > 1)  # a placeholder: IDENTIFIANT, MOTDEPASSE, JEU, COUP
        or plain in names
        or plain in GAME_NAMES
        or plain in COMMAND_WORDS
    )


def english_words(text: str, names: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The English words of `text` (plain text) for a reader of French, in order; `names` are the
    userids (and other names) the text may show as they are."""
    names = frozenset(name.lower() for name in names)
    # Links, addresses, paths, keys (roll:i) and a script's {placeholders} are notation: they stand as a number does.
    text = re.sub(r"https?://\S+|[\w.+-]+@[\w.-]+|\{\w+\}|(?<![\w/])/[\w/.-]+|\b\w+:\w+", " 0 ", text)
    quoted = [match.span() for match in _QUOTED.finditer(text)]
    matches = list(_TOKEN.finditer(text))
    tokens = [match.group() for match in matches]
    found = []
    for index, (match, token) in enumerate(zip(matches, tokens)):
        plain = token.lower().strip("'’_")
        if token.rstrip("=") in ENGLISH_PLACEHOLDERS:
            found.append(token)
            continue
        if token.startswith("-") or token.endswith("=") or any(character.isdigit() for character in token):
            continue  # an option (-size, --clock), a key (seats=), notation (c3, at3, 101)
        if plain not in ENGLISH or plain in names or plain in GAME_NAMES | DICE_NAMES | SEAT_NAMES:
            continue
        if token in HEADER_NAMES | LANGUAGE_NAMES or (plain in SERVER_NAME and _server_name_at(tokens, index)):
            continue
        if any(text[start:end].strip("«» \u202f\u00a0") == token for start, end in quoted):
            continue  # one word quoted alone: what the server reads or keeps (« players », « lost »)
        if plain in COMMAND_WORDS and token.islower():
            inside = any(start < match.start() and match.end() < end for start, end in quoted)
            inside = inside or re.search(r":\s*$", text[: match.start()][-3:]) is not None  # "objet : help"
            inside = inside or _alone_on_its_line(text, match)  # a usage line: "    list"
            around = tokens[max(0, index - 1) : index] + tokens[index + 1 : index + 2]
            if inside or any(_is_notation(other, names) for other in around):
                continue  # a command word where a command or a quoted keyword stands
        found.append(token)
    return found


def _alone_on_its_line(text: str, match: re.Match[str]) -> bool:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)].strip() == match.group()


def _server_name_at(tokens: list[str], index: int) -> bool:
    pair = " ".join(tokens[max(0, index - 1) : index + 2])
    return "PBeM Server" in pair


def page_text(html: str) -> str:
    """What a reader of `html` reads and hears: the text between the tags, and the attributes a
    browser shows or says (titles, labels, alternatives, placeholders, the column names a phone
    shows beside each value, the live script's sentences)."""
    said = re.findall(r'(?:title|aria-label|alt|placeholder|data-label|data-live-[a-z]+)="([^"]*)"', html)
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    # A page marks what to type as <code>: its command words stand quoted, as « » quote them in a mail.
    html = re.sub(r"<code\b[^>]*>(.*?)</code>", r"«\1»", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html) + "\n" + "\n".join(said))
