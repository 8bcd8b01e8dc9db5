"""The HTML pages, one endpoint each, rendered from ``templates/web/*.html`` (autoescaped).

A page that can change while it is open names its event stream in its
``<main>`` (``data-live-events``) together with the feed position read before
its queries (``data-live-after``); ``static/live.js`` then refreshes the page's
content when a change it cares about lands.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

import pbm.games
from pbm.records.keys import SigningKeys
from pbm.web import params
from pbm.web.live import GameChanges
from pbm.web.reads import FILTERS, Reads


class Pages:
    def __init__(
        self,
        reads: Reads,
        templates: jinja2.Environment,
        changes: GameChanges,
        address: str,
        signing: SigningKeys | None = None,
    ) -> None:
        self.reads = reads
        self.templates = templates
        self.changes = changes
        self.address = address
        self.signing = signing
        """The server's signing keys: the pages show the public one receipts and records are checked by."""

    def render(self, name: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("live", None)
        html = self.templates.get_template(f"web/{name}").render(
            engines=pbm.games.all_games(), address=self.address, signing=self.signing, **context
        )
        return HTMLResponse(html, status_code=status_code)

    def _live(self, position: str, **interest: Any) -> dict[str, str]:
        query = urlencode({k: v for k, v in interest.items() if v is not None})
        return {"url": "/api/events" + (f"?{query}" if query else ""), "after": position}

    async def index(self, request: Request) -> Response:
        position = await self.changes.settled_position()
        types = await self.reads.run(self.reads.overview)
        return self.render("index.html", types=types, live=self._live(position))

    async def boards(self, request: Request) -> Response:
        engine = params.engine_of(request)
        query = params.list_query(request)
        position = await self.changes.settled_position()
        boards = await params.board_list(self.reads, engine, query)
        return self.render(
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
            "board.html", engine=engine, view=page.view, page=page, dice_record=page.dice_record, live=live
        )

    async def player(self, request: Request) -> Response:
        userid = request.path_params["userid"]
        position = await self.changes.settled_position()
        page = await self.reads.run(self.reads.player, userid)
        if page is None:
            raise params.NotFound(f"There is no player '{userid}'.")
        return self.render("player.html", page=page, live=self._live(position, player=page.userid))

    async def standings(self, request: Request) -> Response:
        engine = params.engine_of(request)
        page = params.page_number(request)
        position = await self.changes.settled_position()
        standings = await self.reads.run(self.reads.standings, engine, page)
        return self.render("standings.html", standings=standings, live=self._live(position, game=engine.name))

    async def rules(self, request: Request) -> Response:
        engine = params.engine_of(request)
        # The text the `help` mail sends, escaped on the page like any value.
        lines = engine.help_text.splitlines()
        if len(lines) > 1 and lines[1] and set(lines[1]) == {"="}:
            lines = lines[2:]  # the text's title: the page has its own heading, with the attribution
        return self.render("rules.html", engine=engine, text="\n".join(lines).strip("\n"))
