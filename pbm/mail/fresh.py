"""The fresh text of a mail: only what the sender wrote in it.

Quoted lines, reply headers ("On ... wrote:", Outlook's "From:/Sent:" block,
in several languages), forwarded messages and signatures go. Commands such as
``c3=b3+c2``, ``+-1,0`` or ``1,0,0->1,-1`` are never taken for quotes,
bullets or signatures: only a line whose first non-blank character is ``>`` is
a quote.

    >>> fresh_text("c3=b3+c2\\n\\nOn Mon, 1 Jan 2024, Bob <b@x.org> wrote:\\n> board\\n")
    'c3=b3+c2'
"""

from __future__ import annotations

import re

from mailparser_reply import EmailReplyParser

_QUOTE = re.compile(r"\s*>")
_SIGNATURE = re.compile(r"\s*(?:--|_{10,})\s*")
_SEPARATOR = re.compile(
    r"\s*-{2,}\s*(?:original message|forwarded message|ursprüngliche nachricht"
    r"|weitergeleitete nachricht|message d'origine|message transféré|mensaje original"
    r"|mensaje reenviado|oorspronkelijk bericht|doorgestuurd bericht"
    r"|messaggio originale|messaggio inoltrato)\s*-{2,}\s*"
    r"|\s*(?:begin forwarded message|anfang der weitergeleiteten nachricht"
    r"|début du message réexpédié)\s*:\s*",
    re.IGNORECASE,
)
# Words only, so that "sent from my phone: c3=b3+c2" is not taken for one.
_MOBILE_TRAILER = re.compile(
    r"\s*(?:sent from my|sent from|get outlook for|envoyé de mon|envoyé depuis"
    r"|gesendet von meinem|enviado desde mi)\s[\w .'-]{1,40}"
    r"|\s*von meinem\s[\w .'-]{1,40}\sgesendet\s*",
    re.IGNORECASE,
)
# Outlook-style reply header: "From: ..." (also "*From:*" and other languages)
# followed within a few lines by "Sent:", "To:", "Subject:" ...
_BLOCK_FROM = re.compile(r"\s*\**(?:from|von|de|van|da|fra|från)\s*:\**\s*\S", re.IGNORECASE)
_BLOCK_FIELD = re.compile(
    r"\s*\**(?:sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|à|objet"
    r"|enviado|fecha|para|asunto|verzonden|aan|onderwerp|inviato|data|oggetto)\s*:",
    re.IGNORECASE,
)
# An attribution line ending in "wrote:" in some language, when quoted lines follow.
_ATTRIBUTION_END = re.compile(
    r".{0,300}\b(?:wrote|a écrit|schrieb|escribió|schreef|ha scritto|skrev|napsal\(a\))"
    r"[^:\n]{0,100}:\s*",
    re.IGNORECASE,
)

# mail-parser-reply knows the reply headers ("On ... wrote:", wrapped over two lines,
# "Am ... schrieb ...:", "Le ... a écrit :", Outlook "From:/Sent:" blocks) of these
# languages.  Others (it, pl, da, cs) match single short words such as "A:" or "Od:"
# and would cut ordinary text.
_LIBRARY_LANGUAGES = ["en", "de", "fr", "es", "nl"]
_LIBRARY_HEADER = EmailReplyParser(languages=_LIBRARY_LANGUAGES).read("").HEADER_REGEX
# Its patterns backtrack quadratically within a line; headers are short, so only short
# lines near the top are shown to it.
_LIBRARY_MAX_LINE = 200
_LIBRARY_MAX_LINES = 1000


def fresh_text(body: str) -> str:
    """Only what the sender wrote in this mail.

    Text is kept up to the first quoted line, reply header, forwarded message or
    signature.  When nothing but blank lines stands above a quote (bottom-posting,
    Thunderbird's default), the text below the quoted block is taken instead.
    Leading text is kept exactly; trailing blank lines are dropped.
    """
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start = 0
    cut, quoted = _first_cut(lines, start)
    if quoted and not any(line.strip() for line in lines[start:cut]):
        start = _after_quoted_block(lines, cut)
        cut, _ = _first_cut(lines, start)
    kept = lines[start:cut]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)


def _first_cut(lines: list[str], start: int) -> tuple[int, bool]:
    """Index of the first line that is not fresh text (len(lines) if none), and
    whether it begins a quoted block (a quote, or an attribution above quotes)."""
    own = len(lines)
    quoted = False
    for i in range(start, len(lines)):
        line = lines[i]
        if _QUOTE.match(line):
            own, quoted = i, True
            break
        if _SIGNATURE.fullmatch(line) or _SEPARATOR.fullmatch(line) or _MOBILE_TRAILER.fullmatch(line):
            own = i
            break
        if len(line) > 1000:
            continue
        if _BLOCK_FROM.match(line) and any(_BLOCK_FIELD.match(n) for n in lines[i + 1 : i + 5]):
            own = i
            break
        if _ATTRIBUTION_END.fullmatch(line) and _quote_follows(lines, i + 1):
            own, quoted = i, True
            break
    library = _library_cut(lines, start, own)
    if library is not None and library < own:
        return library, _quote_follows(lines, library + 1) or _quote_follows(lines, library + 2)
    return own, quoted


def _quote_follows(lines: list[str], i: int) -> bool:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i < len(lines) and bool(_QUOTE.match(lines[i]))


def _library_cut(lines: list[str], start: int, stop: int) -> int | None:
    """The first reply header mail-parser-reply finds between start and stop.

    Its regexes expect stripped lines (its own normalisation); stripping one line at a
    time keeps line numbers, so a match maps back to our unstripped line.  Two lines
    past ``stop`` are included so a header wrapped over two lines right above our own
    cut is still seen whole.
    """
    end = min(stop + 2, len(lines), start + _LIBRARY_MAX_LINES)
    window = [line.strip() if len(line) <= _LIBRARY_MAX_LINE else "" for line in lines[start:end]]
    text = "\n".join(window)
    match = _LIBRARY_HEADER.search(text)
    if match is None:
        return None
    begin = match.start()
    while begin < len(text) and text[begin] == "\n":
        begin += 1
    return start + text.count("\n", 0, begin)


def _after_quoted_block(lines: list[str], i: int) -> int:
    """First line after the attribution, quoted and blank lines starting at i."""
    if not _QUOTE.match(lines[i]):
        i += 1  # the attribution line ("On ... wrote:")
        if i < len(lines) and lines[i].strip() and not _QUOTE.match(lines[i]):
            i += 1  # its second half when the client wrapped it
    while i < len(lines) and (not lines[i].strip() or _QUOTE.match(lines[i])):
        i += 1
    return i
