import pytest

from tests.support import Clock
from tests.time.club import TimeClub


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def club(make_mailroom, clock) -> TimeClub:
    """alice, bob and carol signed up on a server whose clock the test moves."""
    club = TimeClub(make_mailroom(clock=clock), clock)
    club.sign_up("alice", "bob", "carol")
    return club


@pytest.fixture
def game(club: TimeClub) -> TimeClub:
    """Cephalopod board 101, alice against bob under the default rules; alice has moved, bob's turn began."""
    club.send("alice", "cephalopod challenge alice bob")
    club.send("alice", "cephalopod move 101 alice alice-pw c3")
    club.replies()
    return club
