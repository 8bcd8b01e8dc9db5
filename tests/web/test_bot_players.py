"""A bot's own page and calendar: it moves by itself and never forfeits, so it has no deadline."""

from __future__ import annotations


def test_a_bot_to_move_has_no_deadline_on_its_page_or_in_its_calendar(club, client):
    club.signup("alice")
    board = club.challenge("cephalopod", "alice", "bot1", options={"size": 3})
    club.move("cephalopod", board, "alice", "b2")
    page = client.get("/players/bot1")
    assert page.status_code == 200
    assert 'class="deadlines"' not in page.text
    assert "BEGIN:VEVENT" not in client.get("/players/bot1/deadlines.ics").text
    assert 'class="deadlines"' not in client.get("/players/alice").text, "nor alice: it is bot1's turn"
