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


@pytest.fixture
def under_way(game: TimeClub) -> TimeClub:
    """Board 101 past its first round (every player has moved, so it is rated): alice's c3, bob's a1
    and alice's e5; bob's turn began."""
    game.send("bob", "cephalopod move 101 bob bob-pw a1")
    game.send("alice", "cephalopod move 101 alice alice-pw e5")
    game.replies()
    return game
