"""The web side: status pages and the JSON API (Starlette), on the SMTP loop.

Routes (the design's HTTP contract, and what the pages link to):

- ``/``: every game type with its current games; ``/<game>``: that type's
  boards, paged and filtered; ``/<game>/<board>``: one game;
  ``/<game>/<board>?ply=N``: it as it stood after N plies; ``/<game>/<board>/record.json``:
  its record (`pbm.records`), and ``record.proof.json`` beside it, its proof;
  ``/<game>/standings``, ``/<game>/rules``; ``/players/<userid>``, and
  ``/players/<userid>/deadlines.ics`` (`pbm.web.calendar`); ``/bots``: the bots' levels and
  measured strength; ``/help`` and ``/help/<topic>``: the help topics the ``help`` mail sends
  (`pbm.web.help`)
- ``/api/...``: the same data as JSON (see `pbm.web.api`), and
  ``/api/events``, the live changes the pages follow
- ``/static/...``: the stylesheet and script
- ``/healthz``: for monitors (see `health`), with whether the bots think normally (``bots``:
  `pbm.health.bot_health.BotsThinking.to_json`; an incident of its own, it does not make the status 503)
- ``/favicon.ico``: the site's icon (an SVG), which browsers ask every site for

`create_app` is the one place the web side is put together; `pbm.serving.server`
hands it the database, a template environment of its own and the change feed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, ExceptionHandler, Message, Receive, Scope, Send

from pbm.commands.unsubscribe import Unsubscribing
from pbm.crypto.keys import SigningKeys
from pbm.facts import Fact
from pbm.health.bot_health import BotHealth
from pbm.listeners import Refusals
from pbm.resources import resource_dir
from pbm.store import inbox, outbox
from pbm.store.database import Database, DatabaseTimeout
from pbm.store.models import utcnow
from pbm.timekeeping.clocks import TimeControl
from pbm.web import api, calendar, params, unsubscribe
from pbm.web.api import Api
from pbm.web.help import HelpPages
from pbm.web.live import GameChanges
from pbm.web.pages import Pages
from pbm.web.reads import DEFAULT_TIME, Reads
from pbm.words.templating import Templates

STATIC = resource_dir("templates") / "web" / "static"
FAVICON_HEADERS = {"Cache-Control": "public, max-age=604800"}
"""The site's icon changes with a release at most: a browser keeps it a week."""

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    """Every response says: run only our own script and style, and sniff no types.

    Should a hostile string ever slip past the escaping, the browser still
    refuses to run it.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _refusal(reason: str) -> bytes:
    body = f"{reason}; please try again in a minute.\n".encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nretry-after: 60\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


HTTP_REFUSALS = Refusals(
    client_full=_refusal("Too many connections from your address"),
    listener_full=_refusal("Too many connections just now"),
)
"""What the web server answers a connection past its caps (`pbm.listeners`), before closing it."""
HEALTH_REQUESTS = (b"GET /healthz ", b"GET /healthz?", b"HEAD /healthz ")
"""The first bytes of a request for ``/healthz``: answered past the caps too, so that a monitor
tells a busy server from a dead one."""


def health(database: Database, *, stuck_after: float) -> dict[str, object]:
    """What ``/healthz`` reports: the queues, and whether mail is stuck in them.

    ``status`` is ``ok``, or ``stuck`` when the oldest pending received mail,
    or a reply due for delivery, has waited more than `stuck_after` seconds
    (``reason`` says which). ``inbound_pending`` and ``outbox`` (counts by
    status) are the keys monitors have always read; ``inbound`` counts
    received mail by status. Failed mail is counted but is no reason for
    alarm by itself: it is finished, and the queue has moved on.
    """
    now = utcnow()
    with database.reading() as session:
        inbound = inbox.status_counts(session)
        oldest = inbox.oldest_pending_received_at(session)
        replies = outbox.counts(session)
        overdue = outbox.most_overdue(session, now)
    waited = (now - oldest).total_seconds() if oldest else 0.0
    late = (now - overdue).total_seconds() if overdue else 0.0
    reasons = []
    if waited > stuck_after:
        reasons.append(f"received mail has waited {waited:.0f} s to be processed")
    if late > stuck_after:
        reasons.append(f"a reply has waited {late:.0f} s past its time to be delivered")
    report: dict[str, object] = {
        "status": "stuck" if reasons else "ok",
        "inbound_pending": inbound.get("pending", 0),
        "inbound": inbound,
        "inbound_oldest_pending_seconds": round(waited, 1),
        "outbox": replies,
        "outbox_most_overdue_seconds": round(late, 1),
    }
    if reasons:
        report["reason"] = "; ".join(reasons)
    return report


def _add_mail_health(report: dict[str, object], doors: dict[str, dict[str, object]]) -> None:
    """The doors to a mail provider (the mailbox, submission), each with its state and since when;
    one in trouble (unreachable, its login refused) makes the report ``degraded``: mail waits."""
    for name, door in doors.items():
        report[name] = door
        if not door.get("ok", True) and report["status"] == "ok":
            report["status"] = "degraded"
            report["reason"] = f"{name}: {door['state']} since {door['since']}"


def _unsubscribe_routes(
    database: Database, unsubscribing: Unsubscribing | None, pages: Pages, now: Callable[[], datetime]
) -> list[Route]:
    if unsubscribing is None:
        return []
    handler = unsubscribe.endpoint(database, unsubscribing, pages.render, now)
    return [Route("/unsubscribe/{token}", handler, methods=["GET", "POST"])]


Endpoint = Callable[[Request], Awaitable[Response]]


def _healthz(
    database: Database,
    stuck_after: float,
    bot_health: BotHealth | None,
    mail_health: Callable[[], dict[str, dict[str, object]]] | None,
) -> Endpoint:
    """``/healthz``: `health`, with the bots' and the mail provider's doors where the server has them;
    503 unless all is well."""

    async def healthz(request: Request) -> Response:
        try:
            report = await database.call(lambda: health(database, stuck_after=stuck_after))
        except (DatabaseTimeout, SQLAlchemyError) as error:
            reason = "the database does not answer"
            return JSONResponse({"status": "unreachable", "reason": reason, "error": type(error).__name__}, 503)
        if bot_health is not None:
            report["bots"] = bot_health.report().to_json()
        if mail_health is not None:
            _add_mail_health(report, mail_health())
        return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)

    return healthz


async def _favicon(request: Request) -> Response:
    # Browsers ask every site for /favicon.ico; an SVG at that address is one they show.
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml", headers=FAVICON_HEADERS)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path.endswith(".json")


def _error_handlers(pages: Pages) -> dict[Any, ExceptionHandler]:
    """Not found, a bad request and any other HTTP error: a page, or JSON for the API and the records."""

    async def not_found(request: Request, error: Exception) -> Response:
        fact = error.fact if isinstance(error, params.NotFound) else Fact("web-no-page")
        if _wants_json(request):
            return api.error_json(404, fact)
        return pages.error(request, 404, Fact("web-not-found"), fact)

    async def bad_request(request: Request, error: Exception) -> Response:
        assert isinstance(error, params.BadRequest)
        if _wants_json(request):
            return api.error_json(400, error.fact)
        return pages.error(request, 400, Fact("web-bad-request"), error.fact)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 404:
            return await not_found(request, error)
        heading = Fact("web-http-error", status=str(error.status_code), reason=str(error.detail))
        if _wants_json(request):
            return api.error_json(error.status_code, heading)
        return pages.error(request, error.status_code, heading, None)

    return {params.NotFound: not_found, params.BadRequest: bad_request, HTTPException: http_error}


def _routes(
    pages: Pages,
    json_api: Api,
    guide: HelpPages,
    healthz: Endpoint,
    deadlines: Callable[[Request], object],
    unsubscribing: list[Route],
) -> list[BaseRoute]:
    """Every route, in the order they are tried: the fixed paths before the game's and board's."""
    return [
        Route("/", pages.index),
        Route("/healthz", healthz),
        Route("/favicon.ico", _favicon),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/games", json_api.games),
        Route("/api/bots", json_api.bots),
        Route("/api/events", json_api.events),
        Route("/api/players/{userid:path}", json_api.player),
        Route("/api/{game}", json_api.boards),
        Route("/api/{game}/standings", json_api.standings),
        Route("/api/{game}/{board:board}", json_api.board),
        Route("/api/{game}/{board:board}/dice", json_api.dice),
        Route("/players/{userid}/deadlines.ics", deadlines),
        *unsubscribing,
        Route("/players/{userid:path}", pages.player),
        Route("/bots", pages.bots),
        Route("/help", guide.index),
        Route("/help/{topic}", guide.topic),
        Route("/{game}", pages.boards),
        Route("/{game}/standings", pages.standings),
        Route("/{game}/rules", pages.rules),
        Route("/{game}/{board:board}", pages.board),
        Route("/{game}/{board:board}/record.json", json_api.record),
        Route("/{game}/{board:board}/record.proof.json", json_api.record_proof),
    ]


def create_app(
    database: Database,
    templates: Templates,
    changes: GameChanges,
    *,
    address: str = "pbm@localhost",
    stuck_after: float = 600.0,
    time_control: TimeControl = DEFAULT_TIME,
    vacation_allowance: timedelta = timedelta(days=30),
    idle_seconds: float = 60.0,
    event_streams_per_client: int = 10,
    now: Callable[[], datetime] = utcnow,
    unsubscribing: Unsubscribing | None = None,
    signing: SigningKeys | None = None,
    site: str | None = None,
    bot_health: BotHealth | None = None,
    mail_health: Callable[[], dict[str, dict[str, object]]] | None = None,
) -> Starlette:
    """The web app; its pages are rendered from `templates`, in each visitor's language.

    ``/healthz`` waits for the database at most `database.timeout` seconds and
    counts mail as stuck after `stuck_after` seconds (`Settings.stuck_after`);
    an event stream with nothing to send ends after `idle_seconds`
    (`Settings.http_idle_seconds`), and one client holds `event_streams_per_client` at most.
    With `unsubscribing` (the server has a public address), the one-click unsubscribe URLs of
    watchers' mails answer (`pbm.web.unsubscribe`). With `bot_health` (the server's,
    `pbm.health.bot_health`), ``/healthz`` and ``/bots`` say whether the bots are thinking normally.
    `time_control` and `vacation_allowance` are the club's (`Club`), as ``/help/time`` says them.
    """
    reads = Reads(database, time_control=time_control, now=now)
    pages = Pages(reads, templates, changes, address, signing, bot_health)
    guide = HelpPages(pages, reads, time_control, vacation_allowance)
    site_name = site or address.partition("@")[2] or address
    json_api = Api(
        reads,
        changes,
        idle_seconds=idle_seconds,
        event_streams_per_client=event_streams_per_client,
        site=site_name,
        signing=signing,
        bot_health=bot_health,
    )
    healthz = _healthz(database, stuck_after, bot_health, mail_health)
    feed = calendar.endpoint(reads, now, templates.default_language)
    routes = _routes(pages, json_api, guide, healthz, feed, _unsubscribe_routes(database, unsubscribing, pages, now))
    app = Starlette(routes=routes, exception_handlers=_error_handlers(pages))
    app.add_middleware(SecurityHeaders)
    return app
