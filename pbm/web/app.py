"""The web side: status pages and the JSON API (Starlette), on the SMTP loop."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from pbm.store import inbox, outbox
from pbm.store.database import Database


def create_app(database: Database) -> Starlette:
    async def healthz(request: Request) -> JSONResponse:
        def check() -> dict[str, object]:
            with database.reading() as session:
                session.execute(text("SELECT 1"))
                return {
                    "status": "ok",
                    "inbound_pending": inbox.pending_count(session),
                    "outbox": outbox.counts(session),
                }

        try:
            return JSONResponse(await asyncio.to_thread(check))
        except Exception as error:
            return JSONResponse({"status": "error", "error": type(error).__name__}, status_code=503)

    return Starlette(routes=[Route("/healthz", healthz)])
