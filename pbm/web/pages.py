"""The HTML pages, one endpoint each, rendered from ``templates/web/*.html`` (autoescaped).

A page that can change while it is open names its event stream in its
``<main>`` (``data-live-events``) together with the feed position read before
its queries (``data-live-after``); ``static/live.js`` then refreshes the page's
content when a change it cares about lands.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

import pbm.games
from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.health.bot_health import BotHealth
from pbm.i18n import languages
from pbm.web import params
from pbm.web.live import GameChanges
from pbm.web.reads import FILTERS, Reads
from pbm.words.templating import Templates

LANGUAGE_COOKIE = "pbm_language"
"""Where a visitor's choice of language is remembered (the switch at the foot of every page)."""
_YEAR = 365 * 24 * 3600


def page_language(request: Request, default: str) -> tuple[str, bool]:
    """The language of the page `request` asks for, and whether the visitor just chose it: the
    switch (``?lang=fr``), else the choice remembered in a cookie, else the browser's
    ``Accept-Language``, else the club's `default`. Whatever a visitor sends names one of ours
    or nothing."""
    chosen = languages.language_named(request.query_params.get("lang", "")[:16])
    if chosen is not None:
        return chosen, True
    remembered = languages.language_named(request.cookies.get(LANGUAGE_COOKIE, "")[:16])
    if remembered is not None:
        return remembered, False
    return languages.negotiate(request.headers.get("accept-language"), default), False


def _with_language(request: Request, code: str) -> str:
    """This page's own path and query with ``lang=code``: a link that stays on this server."""
    query = [(key, value) for key, value in request.query_params.multi_items() if key != "lang"]
    return request.url.path + "?" + urlencode([*query, ("lang", code)])


class Pages:
    def __init__(
        self,
        reads: Reads,
        templates: Templates,
        changes: GameChanges,
        address: str,
        signing: SigningKeys | None = None,
        bot_health: BotHealth | None = None,
    ) -> None:
        self.reads = reads
        self.templates = templates
        self.changes = changes
        self.address = address
        self.signing = signing
        """The server's signing keys: the pages show the public one receipts and records are checked by."""
        self.bot_health = bot_health
        """Whether the server's bots think normally, for ``/bots`` (None: a web app with no bots of its own)."""

    def language(self, request: Request) -> tuple[str, bool]:
        """The language `request`'s visitor reads (`page_language`), and whether they just chose it."""
        return page_language(request, self.templates.default_language)

    def render(
        self, request: Request, name: str, *, status_code: int = 200, zone: str | None = None, **context: Any
    ) -> HTMLResponse:
        """The page ``web/<name>`` in the language its visitor reads (`page_language`), its dates in
        UTC, or on the wall clock of `zone` for a page about a player who lives in one."""
        context.setdefault("live", None)
        language, chosen = self.language(request)
        switch = [(code, title, _with_language(request, code)) for code, title in languages.LANGUAGES.items()]
        html = (
            self.templates.speaking(language, zone)
            .get_template(f"web/{name}")
            .render(engines=pbm.games.all_games(), address=self.address, switch=switch, signing=self.signing, **context)
        )
        response = HTMLResponse(html, status_code=status_code)
        response.headers["Vary"] = "Accept-Language, Cookie"
        response.headers["Content-Language"] = language
        if chosen:
            response.set_cookie(LANGUAGE_COOKIE, language, max_age=_YEAR, httponly=True, samesite="lax")
        return response

    def error(self, request: Request, status_code: int, heading: Fact, message: Fact | None) -> HTMLResponse:
        """The error page: `heading` and `message` said in the visitor's language."""
        return self.render(request, "error.html", status_code=status_code, heading=heading, message=message)

    def _live(self, position: str, **interest: Any) -> dict[str, str]:
        query = urlencode({k: v for k, v in interest.items() if v is not None})
        return {"url": "/api/events" + (f"?{query}" if query else ""), "after": position}

    async def index(self, request: Request) -> Response:
        position = await self.changes.settled_position()
        types = await self.reads.run(self.reads.overview)
        return self.render(request, "index.html", types=types, live=self._live(position))

    async def boards(self, request: Request) -> Response:
        engine = params.engine_of(request)
        query = params.list_query(request)
        position = await self.changes.settled_position()
        boards = await params.board_list(self.reads, engine, query)
        return self.render(
            request,
            "boards.html",
            engine=engine,
            boards=boards,
            query=query,
            filters=list(FILTERS),
            live=self._live(position, game=engine.name, player=boards.player),
        )

    async def board(self, request: Request) -> Response:
        engine = params.engine_of(request)
        board = params.board_of(request, engine)
        position = await self.changes.settled_position()
        page = await params.game_page(self.reads, engine, board, params.number(request, "ply"))
        # Live only on the game as it stands: a reader looking back is never moved on by a new move.
        live = self._live(position, game=engine.name, board=board) if "ply" not in request.query_params else None
        return self.render(
            request, "board.html", engine=engine, view=page.view, page=page, dice_record=page.dice_record, live=live
        )

    async def bots(self, request: Request) -> Response:
        ladders = await self.reads.run(self.reads.bots)
        thinking = self.bot_health.report() if self.bot_health is not None else None
        return self.render(request, "bots.html", ladders=ladders, thinking=thinking)

    async def player(self, request: Request) -> Response:
        userid = request.path_params["userid"]
        position = await self.changes.settled_position()
        page = await self.reads.run(self.reads.player, userid)
        if page is None:
            raise params.NotFound("web-no-player", userid=userid)
        live = self._live(position, player=page.userid)
        return self.render(request, "player.html", zone=page.time_zone, page=page, live=live)

    async def standings(self, request: Request) -> Response:
        engine = params.engine_of(request)
        page = params.page_number(request)
        position = await self.changes.settled_position()
        standings = await self.reads.run(self.reads.standings, engine, page)
        return self.render(request, "standings.html", standings=standings, live=self._live(position, game=engine.name))

    async def rules(self, request: Request) -> Response:
        engine = params.engine_of(request)
        # The text the `help` mail sends, in the visitor's language where the rules are translated,
        # escaped on the page like any value.
        language, _ = self.language(request)
        lines = (languages.rules(engine.name, language) or engine.help_text).splitlines()
        if len(lines) > 1 and lines[1] and set(lines[1]) == {"="}:
            lines = lines[2:]  # the text's title: the page has its own heading, with the attribution
        return self.render(request, "rules.html", engine=engine, text="\n".join(lines).strip("\n"))
