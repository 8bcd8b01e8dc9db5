"""``broadcast``, over real SMTP: the administrators' word to every player (``PBM_ADMINS``)."""

from __future__ import annotations

import pytest

from tests.e2e.club import ADDRESSES, send, signed_up, to
from tests.support import body_of


@pytest.fixture
def club(server_with):
    """A server whose administrators are alice and dave."""
    return server_with(admins="alice, dave")


def test_an_administrator_reaches_every_player_without_showing_an_address(club, sink):
    signed_up(club, sink, "alice", "bob", "carol")
    send(club, "alice", "broadcast alice alice-pw\n\nThe server moves on Sunday; expect an hour's quiet.")
    mails = sink.wait(3)
    for userid in ("bob", "carol"):
        announcement = to(mails, userid)
        assert announcement["Subject"] == "Announcement from alice"
        text = body_of(announcement)
        assert text.startswith("alice, an administrator of this server, writes to every player:\n\n")
        assert "The server moves on Sunday; expect an hour's quiet." in text
        assert "@" not in text
    sent = to(mails, "alice")
    assert sent["Subject"] == "Message sent to all 2 other players"


def test_a_player_who_is_no_administrator_cannot_broadcast(club, sink):
    signed_up(club, sink, "alice", "bob")
    send(club, "bob", "broadcast bob bob-pw\n\nFree dice!")
    (error,) = sink.wait(1)
    assert error["To"].addresses[0].addr_spec == ADDRESSES["bob"]
    assert "broadcast is for the server's administrators, and bob is not one." in body_of(error)
    assert sink.once_settled(club) == []


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("broadcast alice wrong\n\nHello", "Wrong password for alice."),
        ("broadcast alice alice-pw", "There is nothing to pass on"),
        ("broadcast alice", "Usage: broadcast USERID PASSWORD."),
    ],
)
def test_a_bad_broadcast_is_refused_and_nobody_else_hears_of_it(club, sink, line, reason):
    signed_up(club, sink, "alice", "bob")
    send(club, "alice", line)
    (error,) = sink.wait(1)
    assert reason in body_of(error)
    assert sink.once_settled(club) == []
