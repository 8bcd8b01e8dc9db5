"""The JSON API: the pages' data for programs, field by field on purpose.

Every object is built here from the read models by naming its fields, never by
dumping a row or a dataclass, so nothing private can slip out: no addresses,
no password hashes, no reply tokens, no comments players sent each other, and
the dice seed only as the engine's public notes reveal it once a game is over.

- ``GET /api/games``: every type with its counts and current games (the front page)
- ``GET /api/<game>?status=&player=&before=&after=``: a page of that type's boards
- ``GET /api/<game>/<board>?ply=N``: one game in full, or as it stood after N plies (``ply``,
  ``plies``, ``position`` in the engine's notation, ``turn``)
- ``GET /<game>/<board>/record.json``: the game's record, an APGameRecord valid against Abstract
  Play's schema as it is; ``GET /<game>/<board>/record.proof.json``: its proof (the signed chain,
  the dice), which ``pbm verify record.json --proof record.proof.json`` checks it with
- ``GET /api/<game>/<board>/dice``: a finished game's dice record, for ``pbm verify-dice``
- ``GET /api/<game>/standings?page=``: the type's ratings
- ``GET /api/players/<userid>``: a player's games and ratings
- ``GET /api/bots``: every game's bot levels with their measured strength (the ``/bots`` page), and
  from ``pbm serve`` whether its bots are thinking normally (``thinking``, as ``/healthz`` says it)
- ``GET /api/events?game=&board=&player=&after=``: live changes (server-sent events)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.games import BoardCell
from pbm.health.bot_health import BotHealth
from pbm.listeners import client_of
from pbm.store.models import BoardStatus
from pbm.timekeeping.clocks import FOREVER
from pbm.views import record as document
from pbm.views.board import BoardView
from pbm.views.ladders import BotLadder, BotLevelView
from pbm.views.moves import MoveView
from pbm.views.ratings import RatingView
from pbm.views.seats import SeatView
from pbm.views.standing import GameSummary, Standing
from pbm.views.timing import TimeView
from pbm.web import params
from pbm.web.live import GameChanges, Interest, event_stream
from pbm.web.reads import BoardList, GamePage, PlayerPage, Reads, Standings, TypeOverview
from pbm.words import Words

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
STREAMS_FULL = "retry: 60000\n\n"
"""All an event stream past its client's cap says: open me again in a minute."""
ENGLISH = Words()
"""The API's words: English, whatever the browser's language (a program reads them; each field's
fact code or structure beside it says the same in no language)."""


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def seat_json(seat: SeatView) -> dict[str, Any]:
    return {"seat": seat.index, "name": seat.name, "userid": seat.userid, "url": f"/players/{seat.userid}"}


def standing_json(game: Standing) -> dict[str, Any]:
    """Where a game stands, the same in a list and on its own page."""
    return {
        "status": game.status,
        "standing": ENGLISH.say(game.standing_fact),
        "to_move": game.to_move.userid if game.to_move else None,
        "winners": [s.userid for s in game.winners],
        "end_reason": ENGLISH.say(game.end_fact) if game.end_fact is not None else None,
        "end_fact": game.end_fact.to_json() if game.end_fact is not None else None,
        "end_code": game.end_code or None,
    }


def summary_json(game: GameSummary) -> dict[str, Any]:
    return {
        "game": game.game_type,
        "board": game.board,
        "url": f"/{game.game_type}/{game.board}",
        "api": f"/api/{game.game_type}/{game.board}",
        **standing_json(game),
        "players": [seat_json(s) for s in game.seats],
        "move_count": game.move_count,
        "created_at": _time(game.created_at),
        "updated_at": _time(game.updated_at),
    }


def cell_json(cell: BoardCell) -> dict[str, Any]:
    return {
        "name": cell.name,
        "x": cell.x,
        "y": cell.y,
        "owner": cell.owner,
        "value": cell.value,
        "sides": cell.sides,
        "kind": cell.kind,
        "piece": cell.piece,
        "label": cell.label,
        "exists": cell.exists,
    }


def move_json(view: BoardView, move: MoveView) -> dict[str, Any]:
    data = {
        "number": move.number,
        "seat": move.seat,
        "userid": view.seats[move.seat].userid,
        "notation": move.notation,
        "did": ENGLISH.say(move.did),
        "played_at": _time(move.played_at),
    }
    if move.report is not None and move.report.eliminated:
        data["eliminated"] = [view.seats[seat].userid for seat in move.report.eliminated]
        data["why"] = ENGLISH.say(move.report.why) if move.report.why is not None else ""
        if move.report.tally is not None:
            data["tally"] = dict(zip((s.userid for s in view.seats), move.report.tally))
    return data


def board_json(page: GamePage) -> dict[str, Any]:
    view = page.view
    return {
        "game": view.game_type,
        "title": view.title,
        "attribution": view.attribution,
        "board": view.board,
        "url": f"/{view.game_type}/{view.board}",
        "options": view.options,
        **standing_json(view),
        "summary": ENGLISH.say(view.summary_fact),
        "players": [{**seat_json(s), "out": s.out} for s in view.seats],
        "tally": dict(zip((s.userid for s in view.seats), view.tally)) if view.tally is not None else None,
        "tally_unit": view.tally_unit or None,
        "move_count": view.move_count,
        "moves": [move_json(view, m) for m in view.moves],
        "board_text": view.board_text,
        "cells": [cell_json(c) for c in view.cells],
        "notes": [ENGLISH.say(note) for note in view.note_facts],
        "dice_record": f"/api/{view.game_type}/{view.board}/dice" if page.dice_record is not None else None,
        "created_at": _time(view.created_at),
        "updated_at": _time(view.updated_at),
        "time": time_json(view.time) if view.time is not None else None,
        "ply": page.ply,
        "plies": page.plies,
        "position": page.position,
        "turn": page.turn,
        "record": f"/{view.game_type}/{view.board}/record.json",
    }


def time_json(time: TimeView) -> dict[str, Any]:
    """A game's time rules, the turn under way (seconds waited, the forfeit) and the clocks."""
    ends = time.forfeit_at is not None and time.forfeit_at < FOREVER
    return {
        "rules": time.rule_words,
        "to_move": time.to_move,
        "waited_seconds": int(time.waited.total_seconds()) if time.waited is not None else None,
        "forfeit_at": _time(time.forfeit_at) if ends else None,
        "away_until": _time(time.away_until) if time.away_until is not None else None,
        "clocks": [
            {
                "userid": clock.userid,
                "used_seconds": int(clock.used.total_seconds()),
                "left_seconds": int(clock.left.total_seconds()) if clock.left is not None else None,
            }
            for clock in time.clocks
        ],
    }


def rating_json(rating: RatingView) -> dict[str, Any]:
    return {
        "game": rating.game_type,
        "userid": rating.userid,
        "rating": rating.rating,
        "provisional": rating.provisional,
        "games": rating.games,
        "wins": rating.wins,
        "losses": rating.losses,
        "draws": rating.draws,
    }


def overview_json(types: list[TypeOverview], position: str) -> dict[str, Any]:
    return {
        "position": position,
        "types": [
            {
                "game": t.engine.name,
                "title": t.engine.title,
                "designer": t.engine.designer,
                "attribution": t.engine.attribution,
                "url": f"/{t.engine.name}",
                "api": f"/api/{t.engine.name}",
                "counts": {status.value: t.counts.get(status, 0) for status in BoardStatus},
                "games": [summary_json(g) for g in t.games],
            }
            for t in types
        ],
    }


def board_list_json(boards: BoardList, query: params.ListQuery) -> dict[str, Any]:
    base = f"/api/{boards.engine.name}"
    return {
        "game": boards.engine.name,
        "title": boards.engine.title,
        "status": boards.status,
        "player": boards.player,
        "total": boards.total,
        "games": [summary_json(g) for g in boards.games],
        "newer": base + query.query_string(after=boards.newer) if boards.newer is not None else None,
        "older": base + query.query_string(before=boards.older) if boards.older is not None else None,
    }


def player_json(page: PlayerPage) -> dict[str, Any]:
    return {
        "userid": page.userid,
        "url": f"/players/{page.userid}",
        "joined": _time(page.joined),
        "signed_off": page.signed_off,
        "ratings": [rating_json(r) for r in page.ratings],
        "active": [summary_json(g) for g in page.active],
        "finished": [summary_json(g) for g in page.finished],
    }


def standings_json(standings: Standings) -> dict[str, Any]:
    return {
        "game": standings.engine.name,
        "title": standings.engine.title,
        "total": standings.total,
        "page": standings.page,
        "pages": standings.pages,
        "standings": [{"rank": rank, **rating_json(r)} for rank, r in standings.rows],
    }


def bot_level_json(bot: BotLevelView) -> dict[str, Any]:
    return {
        "level": bot.level,
        "userid": bot.userid,
        "elo": bot.elo,
        "elo_95": list(bot.elo_95) if bot.elo_95 is not None else None,
        "lead": bot.lead,
        "lead_95": list(bot.lead_95) if bot.lead_95 is not None else None,
        "shown_stronger": bot.shown_stronger if bot.lead_95 is not None else None,
        "games": bot.games,
        "seconds_per_move": bot.seconds_per_move,
        "wall_seconds_per_move": bot.wall_seconds_per_move,
    }


def bots_json(ladders: list[BotLadder]) -> dict[str, Any]:
    """The bots' levels per game as the ladder measured them: Elo from a random mover at 0, with
    95% intervals; ``lead`` is the Elo over the level below (the random mover for level 1)."""
    return {
        "url": "/bots",
        "games": [
            {
                "game": ladder.engine.name,
                "title": ladder.engine.title,
                "measured": ladder.measured.date().isoformat() if ladder.measured is not None else None,
                "games": ladder.games,
                "random_games": ladder.random_games,
                "rough": ladder.rough,
                "levels": [bot_level_json(bot) for bot in ladder.levels],
            }
            for ladder in ladders
        ],
    }


def error_json(status: int, fact: Fact) -> JSONResponse:
    """An error as the API answers it: in English (a program reads it, whatever the browser's
    language), with its fact's code, which stays the same when the English is reworded."""
    return JSONResponse({"error": ENGLISH.say(fact), "code": fact.code}, status_code=status)


class Api:
    def __init__(
        self,
        reads: Reads,
        changes: GameChanges,
        *,
        idle_seconds: float,
        event_streams_per_client: int = 10,
        site: str = "pbm",
        signing: SigningKeys | None = None,
        bot_health: BotHealth | None = None,
    ) -> None:
        self.reads = reads
        self.changes = changes
        self.bot_health = bot_health
        """Whether the server's bots think normally: ``/api/bots`` says it as ``/healthz`` does."""
        self.site = site
        """The name records give the server (`pbm.views.record.build`)."""
        self.signing = signing
        """The keys records are signed with (none: unsigned records, for tests of the rest)."""
        self.idle_seconds = idle_seconds
        """How long an event stream with nothing to send lasts (`pbm.web.live.event_stream`)."""
        self.event_streams_per_client = event_streams_per_client
        """Event streams one client may hold at once (`Settings.http_max_event_streams_per_client`)."""
        self._streams: Counter[str] = Counter()
        """Open event streams by client."""

    async def games(self, request: Request) -> Response:
        position = await self.changes.settled_position()
        types = await self.reads.run(self.reads.overview)
        return JSONResponse(overview_json(types, position))

    async def boards(self, request: Request) -> Response:
        engine = params.engine_of(request)
        query = params.list_query(request)
        boards = await params.board_list(self.reads, engine, query)
        return JSONResponse(board_list_json(boards, query))

    async def board(self, request: Request) -> Response:
        engine = params.engine_of(request)
        board = params.board_of(request, engine)
        page = await params.game_page(self.reads, engine, board, params.number(request, "ply"))
        return JSONResponse(board_json(page))

    async def record(self, request: Request) -> Response:
        """The game's record (`pbm.views.record.readable`): an APGameRecord and nothing else."""
        return await self._record(request, document.readable, "")

    async def record_proof(self, request: Request) -> Response:
        """The proof of the game's record (`pbm.views.record.proof`): its signed chain, its dice."""
        return await self._record(request, document.proof, ".proof")

    async def _record(self, request: Request, part: Callable[[dict[str, Any]], Any], suffix: str) -> Response:
        engine = params.engine_of(request)
        board = params.board_of(request, engine)
        record = await self.reads.run(self.reads.record, engine, board, site=self.site, signing=self.signing)
        if record is None:
            raise params.NotFound("web-no-board", game=engine.title, board=board)
        name = f"{engine.name}-{board}{suffix}.json"
        return JSONResponse(part(record), headers={"Content-Disposition": f'inline; filename="{name}"'})

    async def dice(self, request: Request) -> Response:
        engine = params.engine_of(request)
        board = params.board_of(request, engine)
        page = await self.reads.run(self.reads.game, engine, board)
        if page is None:
            raise params.NotFound("web-no-board", game=engine.title, board=board)
        if page.dice_record is None:
            raise params.NotFound("web-no-dice-record", game=engine.title, board=board)
        return JSONResponse(page.dice_record)

    async def standings(self, request: Request) -> Response:
        engine = params.engine_of(request)
        standings = await self.reads.run(self.reads.standings, engine, params.page_number(request))
        return JSONResponse(standings_json(standings))

    async def bots(self, request: Request) -> Response:
        shown = bots_json(await self.reads.run(self.reads.bots))
        if self.bot_health is not None:
            shown["thinking"] = self.bot_health.report().to_json()
        return JSONResponse(shown)

    async def player(self, request: Request) -> Response:
        userid = request.path_params["userid"]
        page = await self.reads.run(self.reads.player, userid)
        if page is None:
            raise params.NotFound("web-no-player", userid=userid)
        return JSONResponse(player_json(page))

    async def events(self, request: Request) -> Response:
        game = request.query_params.get("game") or None
        if game is not None:
            game = params.engine_named(game).name
        board = params.number(request, "board", minimum=1)
        player = (request.query_params.get("player") or "").lower() or None
        after = request.headers.get("last-event-id") or request.query_params.get("after")
        client = client_of((request.client.host, 0) if request.client is not None else None)
        if self._streams[client] >= self.event_streams_per_client:
            # A page's EventSource gives up for good on anything but a 200: this one ends at once
            # and tells it to come back in a minute, by which time another of its pages may have closed.
            return StreamingResponse(iter([STREAMS_FULL]), media_type="text/event-stream", headers=STREAM_HEADERS)
        self._streams[client] += 1
        stream = event_stream(self.changes, after, Interest(game, board, player), idle_seconds=self.idle_seconds)
        return StreamingResponse(self._counted(client, stream), media_type="text/event-stream", headers=STREAM_HEADERS)

    async def _counted(self, client: str, stream: AsyncIterator[str]) -> AsyncIterator[str]:
        """`stream`, holding one of `client`'s places until it ends (or the client goes)."""
        try:
            async for event in stream:
                yield event
        finally:
            self._streams[client] -= 1
            if self._streams[client] <= 0:
                del self._streams[client]
