"""Reading a request's path and query: which game, board, filter and page it asks for.

Shared by the HTML pages and the JSON API, so both accept exactly the same
addresses. Anything unknown is `NotFound` (a game, board or player that is not
here) or `BadRequest` (a query the pages never make).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request

import pbm.games
from pbm.facts import Catalogue, Factual
from pbm.games import Game
from pbm.web.reads import FILTERS, BoardList, GamePage, PlyOutOfRange, Reads
from pbm.words.web_messages import MESSAGES

MAX_BOARD = 2**31 - 1
"""Board numbers are stored as 32-bit integers: a larger one names no board."""
MAX_DIGITS = len(str(MAX_BOARD))
"""The most digits a number in an address or a query may have: Python's int() refuses 4 300 digits
with a ValueError (and a longer number only costs time), and no stored number has more than this."""
SHOWN_TEXT = 24
"""How much of a query's wrong value an error repeats: enough to recognise, never a page of digits."""


def ascii_number(text: str) -> int | None:
    """`text` as a number when it is ASCII digits alone, at most `MAX_DIGITS` of them; else None.

    ``str.isdigit`` also takes ``²`` and ``٣``, which int() refuses or reads as another digit.
    """
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
        return None
    return int(text)


class BoardNumber(Convertor[int]):
    """A board's number in a path (``/cephalopod/101``): ASCII digits, at most `MAX_DIGITS`; a longer
    one matches no route (a 404), instead of int() failing on thousands of digits (a 500)."""

    regex = f"[0-9]{{1,{MAX_DIGITS}}}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("board", BoardNumber())


class WebError(Factual):
    """An address or a query the web side cannot answer; its fact says why (`pbm.words.web_messages`),
    in the visitor's language on a page, in English in the JSON API."""

    def english_catalogue(self) -> Catalogue:
        return MESSAGES


class NotFound(WebError):
    """The address names nothing here; the fact says what is missing."""


class BadRequest(WebError):
    """The query string is not one the pages make; the fact says what is wrong."""


def engine_named(name: str) -> Game[Any]:
    try:
        return pbm.games.get(name)
    except pbm.games.UnknownGame:
        raise NotFound("web-no-game", name=name) from None


def engine_of(request: Request) -> Game[Any]:
    return engine_named(request.path_params["game"])


def board_of(request: Request, engine: Game[Any]) -> int:
    board: int = request.path_params["board"]
    if board > MAX_BOARD:
        raise NotFound("web-no-board", game=engine.title, board=board)
    return board


def number(request: Request, name: str, *, minimum: int = 0) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    value = ascii_number(text)
    if value is None or not minimum <= value <= MAX_BOARD:
        shown = text if len(text) <= SHOWN_TEXT else text[:SHOWN_TEXT] + "…"
        raise BadRequest("web-not-a-number", name=name, minimum=minimum, text=shown)
    return value


@dataclass(frozen=True)
class ListQuery:
    """What a list of one type's boards asks for: ``?status=&player=&before=&after=``."""

    status: str = "active"
    player: str | None = None
    before: int | None = None
    after: int | None = None

    def query_string(self, **changes: Any) -> str:
        """This query with `changes`, as the pages link to it (defaults left out)."""
        values = {"status": self.status, "player": self.player, "before": None, "after": None, **changes}
        pairs = [(k, v) for k, v in values.items() if v is not None and not (k == "status" and v == "active")]
        return "?" + urlencode(pairs) if pairs else ""


def list_query(request: Request) -> ListQuery:
    status = request.query_params.get("status") or "active"
    if status not in FILTERS:
        raise BadRequest("web-unknown-status", statuses=", ".join(FILTERS), status=status)
    player = (request.query_params.get("player") or "").strip().lower() or None
    before, after = number(request, "before"), number(request, "after")
    if before is not None and after is not None:
        raise BadRequest("web-before-and-after")
    return ListQuery(status, player, before, after)


async def board_list(reads: Reads, engine: Game[Any], query: ListQuery) -> BoardList:
    """The page of boards `query` asks for, read off the event loop; NotFound when its player names nobody."""
    found = await reads.run(
        reads.boards, engine, status=query.status, player=query.player, before=query.before, after=query.after
    )
    if found is None:
        raise NotFound("web-no-player", userid=query.player)
    return found


def page_number(request: Request) -> int:
    return number(request, "page", minimum=1) or 1


async def game_page(reads: Reads, engine: Game[Any], board: int, ply: int | None) -> GamePage:
    """The game page `board` (after `ply` plies when given); NotFound when there is none."""
    try:
        page = await reads.run(reads.game, engine, board, ply)
    except PlyOutOfRange as error:
        raise NotFound("no-such-ply", title=engine.title, board=board, plies=error.plies, ply=ply) from None
    if page is None:
        raise NotFound("web-no-board", game=engine.title, board=board)
    return page
