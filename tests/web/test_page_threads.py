"""Pages read in one thread of their own: a flood of page requests waits there, one read at a
time, instead of many reads at once keeping the event loop (and SMTP on it) from running."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from pbm.web.app import create_app
from pbm.web.live import GameChanges
from pbm.web.reads import Reads
from pbm.words.templating import Templates

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def test_concurrent_page_requests_read_one_at_a_time(database, monkeypatch):
    reading = threading.Lock()
    overlaps = []
    overview = Reads.overview

    def watched(self: Reads):
        if not reading.acquire(blocking=False):
            overlaps.append(threading.current_thread().name)
            return overview(self)
        try:
            time.sleep(0.02)  # long enough for other threads, were there any, to start reading too
            return overview(self)
        finally:
            reading.release()

    monkeypatch.setattr(Reads, "overview", watched)
    app = create_app(database, Templates(), GameChanges(database))

    async def flood() -> list[int]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pbm.test") as client:
            answers = await asyncio.gather(*(client.get(path) for path in ["/", "/api/games"] * 8))
        return [answer.status_code for answer in answers]

    assert asyncio.run(flood()) == [200] * 16
    assert overlaps == []
