"""A number in an address or a query is ASCII digits of a bounded length, wherever one is read.

The audit sent ``?ply=²`` and ply and board numbers of 4 400 digits: ``str.isdigit`` took ``²``
and int() refused both, each a 500 with a 40-line traceback (600 requests wrote 1.7 MB of log in
3 s). Each is now a 400 (a query) or a 404 (a path) that says what is wrong in a line.
"""

from __future__ import annotations

import asyncio

import pytest

from pbm.web.live import RESET, GameChanges

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

NOT_ASCII_DIGITS = ["²", "١٢", "１２", "3²"]
"""Characters str.isdigit() takes that are no ASCII digits: a superscript, Arabic-Indic and
full-width digits, a digit with a superscript."""
HUGE = "1" * 4400
"""More digits than int() reads (4 300 by default)."""


@pytest.fixture
def board(club) -> int:
    club.signup("alice", "bob")
    board = club.challenge("cephalopod", "alice", "bob")
    club.play("cephalopod", board, 2, seed=3)
    return board


def query_addresses(board: int) -> list[tuple[str, str]]:
    """Every address that reads a number from its query, with the name of that number."""
    return [
        (f"/cephalopod/{board}", "ply"),
        (f"/api/cephalopod/{board}", "ply"),
        ("/cephalopod", "before"),
        ("/cephalopod", "after"),
        ("/api/cephalopod", "before"),
        ("/api/cephalopod", "after"),
        ("/cephalopod/standings", "page"),
        ("/api/cephalopod/standings", "page"),
    ]


@pytest.mark.parametrize("text", [*NOT_ASCII_DIGITS, HUGE])
def test_a_number_in_a_query_that_is_not_a_few_ascii_digits_is_a_bad_request(client, board, text):
    for address, name in query_addresses(board):
        answer = client.get(address, params={name: text})
        assert answer.status_code == 400, (address, name, answer.status_code)
        assert "must be a whole number" in answer.text


def test_a_bad_request_repeats_a_bounded_part_of_the_wrong_number(client, board):
    answer = client.get(f"/api/cephalopod/{board}", params={"ply": HUGE})
    assert answer.status_code == 400
    assert len(answer.json()["error"]) < 120


def test_a_board_number_of_too_many_digits_in_a_path_is_not_found(client, board):
    for address in (f"/cephalopod/{HUGE}", f"/api/cephalopod/{HUGE}", f"/api/cephalopod/{HUGE}/dice"):
        assert client.get(address).status_code == 404, address
    assert client.get(f"/cephalopod/{HUGE}/record.json").json()["code"] == "web-no-page"


def test_a_board_number_of_ten_digits_is_still_read(client, board):
    answer = client.get("/api/cephalopod/0000000101")
    assert answer.status_code == 200 and answer.json()["board"] == board


@pytest.mark.parametrize("text", [*NOT_ASCII_DIGITS, HUGE])
def test_an_event_stream_resumed_from_a_position_that_is_no_number_starts_afresh(database, text):
    """``Last-Event-ID`` and ``?after=`` come from the browser: a position with a wrong number is
    one the feed no longer has, so the page is told to refresh (a reset), as after a restart."""

    async def first_item():
        changes = GameChanges(database)
        feed = changes.follow(f"{changes.epoch}-{text}", heartbeat=0.05)
        item = await anext(feed)
        await feed.aclose()
        return item

    assert asyncio.run(first_item()) == RESET
