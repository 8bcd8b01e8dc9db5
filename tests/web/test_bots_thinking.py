"""Whether the server's bots are thinking (`pbm.health.bot_health`), as ``/healthz`` and ``/bots`` say it:
normally, or since when not, in the visitor's language."""

from __future__ import annotations

import re
import warnings
from datetime import datetime, timezone
from html import unescape

import pytest

from pbm.health.bot_health import BotHealth
from pbm.web.app import create_app
from pbm.words.templating import Templates

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

FRENCH_BROWSER = {"Accept-Language": "fr-FR,fr;q=0.9"}
AT = datetime(2026, 11, 28, 15, 4, tzinfo=timezone.utc)


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page))).strip()


@pytest.fixture
def health() -> BotHealth:
    return BotHealth(now=lambda: AT)


@pytest.fixture
def client(database, changes, health):
    app = create_app(database, Templates(), changes, address="pbm@games.test", bot_health=health)
    with TestClient(app) as client:
        yield client


def test_healthz_says_the_bots_think_normally_and_keeps_its_fields(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200
    report = answer.json()
    assert report["status"] == "ok" and "inbound_pending" in report and "outbox" in report
    assert report["bots"] == {"thinking": "normally", "since": None, "unthought_answers": 0, "thinking_replaced": 0}


def test_healthz_says_since_when_the_bots_answer_without_searching(client, health):
    health.replaced("died")
    health.unthought("dodeca", 103)
    health.unthought("cephalopod", 104)
    answer = client.get("/healthz")
    assert answer.status_code == 200, "mail still flows: the bots' incident is a field of its own"
    assert answer.json()["bots"] == {
        "thinking": "without searching",
        "since": "2026-11-28T15:04:00+00:00",
        "unthought_answers": 2,
        "thinking_replaced": 1,
    }


def test_the_bots_json_says_it_as_healthz_does(client, health):
    assert client.get("/api/bots").json()["thinking"]["thinking"] == "normally"
    health.unthought("cubeo", 101)
    assert client.get("/api/bots").json()["thinking"] == client.get("/healthz").json()["bots"]


def test_the_bots_page_says_they_think_normally(client):
    assert "The bots are thinking normally" in text_of(client.get("/bots").text)
    assert "Les robots réfléchissent normalement" in text_of(client.get("/bots", headers=FRENCH_BROWSER).text)


def test_the_bots_page_says_since_when_they_do_not(client, health):
    health.unthought("dodeca", 103)
    english = text_of(client.get("/bots").text)
    assert "The bots have not been thinking normally since 2026-11-28 15:04 UTC" in english
    assert "thinking normally:" not in english
    french = text_of(client.get("/bots", headers=FRENCH_BROWSER).text)
    assert "Les robots ne réfléchissent plus normalement depuis le" in french
    assert "103" not in english + french, "the board is for the log, not the page"
