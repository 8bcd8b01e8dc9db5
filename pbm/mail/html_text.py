"""HTML mail to plain text, within limits, whatever the markup.

html2text (on CPython's html.parser) turns the quotes and lists of real mail into
good text, but is not safe on hostile markup: html.parser scans to the end of the
input again from every "<" that starts something never finished (400 KB of "<!--"
take 50 s), and html2text indents every list item by its depth (deeply nested
lists make text quadratic in the markup).  So the markup is first rewritten, in one
linear pass, into HTML that leaves html.parser nothing to scan twice: tags with
plain names and no attributes (but an <ol>'s start), text whose only character
references are &amp; &lt; &gt; &nbsp; (after a few broken ones html.parser takes
the rest of the input as text, tags and all), no comments, declarations or scripts.
Markup nesting lists and quotes deeper than the limit is read by a plain tag
stripper instead.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import html2text

from pbm.facts import Fact

if TYPE_CHECKING:
    from pbm.mail.limits import MailLimits

log = logging.getLogger(__name__)

# Tags html2text keeps a stack of: each level indents or prefixes every line.
_NESTING_TAGS = {"ol", "ul", "blockquote"}
# Tags after which html2text writes Markdown that could corrupt a move: ~~strike~~,
# `code`, "quotes", "# headings".  With the tag skipped its text passes through as is.
_MARKDOWN_TAGS = {"del", "s", "strike", "code", "kbd", "tt", "samp", "q", "abbr"}
# Block tags whose Markdown ("# ", "* * *") would be left as a line of its own; the
# <hr> above Outlook's "From:/Sent:" block would linger as fresh text.
_BREAK_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "hr"}


class _PlainHTML2Text(html2text.HTML2Text):
    """html2text that writes text, not Markdown, and stops writing after `room`
    characters."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.body_width = 0  # never re-wrap: one move per line must stay one line
        self.single_line_break = True  # Gmail and Outlook write each line as a block
        self.ignore_links = True  # keep link text, drop "[1]: http://..." clutter
        self.ignore_images = True
        self.ignore_emphasis = True  # "<b>c3</b>" must not become "**c3**"
        self.ignore_tables = True  # cells as lines, no "|" and "---|---"
        self.unicode_snob = True  # keep "é" and NBSP rather than ASCII look-alikes
        self.tag_callback = _skip_markdown_tags  # type: ignore[assignment]  # html2text declares it None
        self.room = room

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        # html2text backslash-escapes Markdown-looking text ("+ 1" -> "\+ 1",
        # "1. e4" -> "1\. e4"); entity_char=True is its own switch to skip that.
        super().handle_data(data, entity_char=True)

    def outtextf(self, s: str) -> None:
        if self.room > 0:
            self.room -= len(s)
            super().outtextf(s)


def _skip_markdown_tags(parser: html2text.HTML2Text, tag: str, attrs: dict[str, str | None], start: bool) -> bool:
    if tag in _BREAK_TAGS:
        parser.p()
        return True
    return tag in _MARKDOWN_TAGS


def html_to_text(markup: str, limits: MailLimits) -> tuple[str, list[Fact], bool]:
    """The text of an HTML part, the notes on how it was read, and whether the text
    is whole (False: more text than the body may hold was cut)."""
    notes = [Fact("note-html-converted")]
    if len(markup) > limits.max_html_chars:
        markup = markup[: limits.max_html_chars]
        notes.append(Fact("note-html-cut", limit=limits.max_html_chars))
    safe, deepest, unclosed = _safe_html(markup)
    if unclosed:
        notes.append(Fact("note-html-unclosed"))
    whole = True
    if deepest > limits.max_html_nesting:
        notes.append(Fact("note-html-too-deep", depth=limits.max_html_nesting))
        text = _stripped_html(markup)
    else:
        converter = _PlainHTML2Text(room=2 * limits.max_body_chars)
        try:
            text = converter.handle(safe)
            whole = converter.room > 0
        except Exception:
            # html2text has had crashes on odd markup.  A plain tag strip still
            # gives the sender's words.
            log.warning("html2text failed; stripping tags instead", exc_info=True)
            text = _stripped_html(markup)
    lines = [line.rstrip() for line in text.replace("\xa0", " ").split("\n")]
    # html2text leaves "  " line ends for <br> and several blank lines between blocks.
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n"), notes, whole


_TEXT, _START, _END, _UNCLOSED = "text", "start", "end", "unclosed"
_TAG_OPEN = re.compile(r"</?[A-Za-z]")
_TAG_NAME = re.compile(r"[^\s/>]*")
_IN_TAG_SPACE = re.compile(r"[\s/]*")
_ATTRIBUTE = re.compile(r"""([^\s/>=][^\s/>=]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
_RAW_TEXT_END = {"script": re.compile("</script", re.IGNORECASE), "style": re.compile("</style", re.IGNORECASE)}


def _html_tokens(markup: str) -> Iterator[tuple[str, str, str]]:
    """The text and tags of `markup`, in one pass that looks at each character a
    bounded number of times.

    Yields (_TEXT, text as written, ""), (_START, tag name, value of its "start"
    attribute or ""), (_END, tag name, "") and, when the markup ends inside a tag,
    comment or script, a last (_UNCLOSED, "", "").  Tag names are lower-cased.  As
    in HTML5, "<" not followed by a letter, "/", "!" or "?" is text; comments,
    declarations and processing instructions are skipped; the content of script and
    style is no text.  Each search for a closing "-->", ">" or quote either finds it
    and moves past it, or fails once and ends the scan, so nothing is scanned twice.
    """
    pos, end = 0, len(markup)
    while pos < end:
        lt = markup.find("<", pos)
        if lt < 0:
            yield _TEXT, markup[pos:], ""
            return
        if lt > pos:
            yield _TEXT, markup[pos:lt], ""
        tag = _TAG_OPEN.match(markup, lt)
        if tag is None:
            if markup.startswith("<!--", lt):
                close, length = markup.find("-->", lt + 2), 3  # "<!-->" is a whole comment
            elif markup.startswith(("<!", "<?", "</"), lt):
                close, length = markup.find(">", lt + 2), 1
            else:
                yield _TEXT, "<", ""
                pos = lt + 1
                continue
            if close < 0:
                yield _UNCLOSED, "", ""
                return
            pos = close + length
            continue
        name_end = _end_of(_TAG_NAME, markup, tag.end())
        name = markup[tag.end() - 1 : name_end].lower()
        rest = _rest_of_tag(markup, name_end)
        if rest is None:
            yield _UNCLOSED, "", ""
            return
        pos, start = rest
        if tag.group().startswith("</"):
            yield _END, name, ""
            continue
        yield _START, name, start
        if name in _RAW_TEXT_END:
            close_tag = _RAW_TEXT_END[name].search(markup, pos)
            if close_tag is None:
                yield _UNCLOSED, "", ""
                return
            pos = close_tag.start()


def _rest_of_tag(markup: str, pos: int) -> tuple[int, str] | None:
    """The attributes of a tag from `pos`, each taken whole (a quoted value may hold ">"): where the
    tag ends (past its ">") and the value of its "start" attribute ("" without one); None when the
    markup ends inside the tag."""
    end, start = len(markup), ""
    while True:
        pos = _end_of(_IN_TAG_SPACE, markup, pos)
        if pos == end:
            return None
        if markup[pos] == ">":
            return pos + 1, start
        attribute = _ATTRIBUTE.match(markup, pos)
        if attribute is None:  # "=" where a name should begin
            pos += 1
            continue
        if attribute.group(1).lower() == "start":
            start = (attribute.group(2) or "").strip("\"'")
        pos = attribute.end()


def _end_of(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where `pattern`, which matches the empty string too, stops matching from `pos`."""
    match = pattern.match(text, pos)
    assert match is not None, "the pattern matches the empty string"
    return match.end()


_PLAIN_TAG_NAME = re.compile(r"[a-z][a-z0-9]*")
_LIST_START = re.compile(r"[0-9]{1,6}")
# html.unescape raises on a numeric reference of more than 4300 digits.
_LONG_CHARREF = re.compile(r"&#(?=[0-9]{8}|[xX][0-9a-fA-F]{7})")


def _unescape(text: str) -> str:
    """html.unescape, with numeric references too long to be a character left as text."""
    return html.unescape(_LONG_CHARREF.sub("&amp;#", text))


def _safe_html(markup: str) -> tuple[str, int, bool]:
    """`markup` rewritten so that html.parser reads it in one pass; with the deepest
    nesting of lists and quotes in it, and whether it ends inside a tag or comment."""
    out: list[str] = []
    depth = deepest = 0
    unclosed = False
    for kind, value, start in _html_tokens(markup):
        if kind == _TEXT:
            out.append(html.escape(_unescape(value), quote=False).replace("\xa0", "&nbsp;"))
        elif kind == _UNCLOSED:
            unclosed = True
        elif not _PLAIN_TAG_NAME.fullmatch(value):
            continue  # "o:p" and other names html2text does nothing with
        elif kind == _START:
            if value in _NESTING_TAGS:
                depth += 1
                deepest = max(deepest, depth)
            if value == "ol" and _LIST_START.fullmatch(start):
                out.append(f'<ol start="{start}">')
            else:
                out.append(f"<{value}>")
        else:
            if value in _NESTING_TAGS and depth:
                depth -= 1
            out.append(f"</{value}>")
    return "".join(out), deepest, unclosed


_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre", "section", "table",
    "tr", "ul",
}  # fmt: skip
_HTML_SPACE = re.compile(r"[ \t\n\f\r]+")


def _stripped_html(markup: str) -> str:
    """The text of `markup` without its layout: a line for each block, in one pass."""
    pieces: list[str] = []
    in_head = False
    for kind, value, _ in _html_tokens(markup):
        if kind == _TEXT:
            if not in_head:
                pieces.append(_HTML_SPACE.sub(" ", _unescape(value)))
        elif value in {"head", "title", "body"}:
            in_head = kind == _START and value != "body"
        elif value in _BLOCK_TAGS:
            pieces.append("\n")
    return "\n".join(line.strip() for line in "".join(pieces).split("\n"))
