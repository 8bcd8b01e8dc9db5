"""One-click unsubscribe (RFC 8058): a watcher's mails carry ``List-Unsubscribe`` with an https
URL and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``; a POST to it ends that watching at
once, without a login, and says what it did; a GET only asks. A player's own board mails carry
no such header: nothing silences their own games."""

from __future__ import annotations

import pytest

from tests.mail.mailroom import Mailroom
from tests.support import Clock, mail
from tests.web.conftest import TestClient

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"
SITE = "https://games.example.org"


@pytest.fixture
def room(make_mailroom) -> Mailroom:
    room = make_mailroom(public_url=SITE, confirm_addresses=False)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(CAROL, "cephalopod subscribe 101 carol carol-pw"))
    room.send(mail(CAROL, "cephalopod subscribe carol carol-pw all"))
    room.replies()
    return room


MOVES = [(ALICE, "alice", "c3"), (BOB, "bob", "b3"), (ALICE, "alice", "d4"), (BOB, "bob", "a1")]


def carols_copy(room: Mailroom):
    """The mails the next move of the game causes, by address."""
    played = getattr(room, "played", 0)
    address, userid, move = MOVES[played]
    room.played = played + 1
    room.send(mail(address, f"cephalopod move 101 {userid} {userid}-pw {move}"))
    return {m["To"].addresses[0].addr_spec: m for m in room.replies()}


def path_of(header: str) -> str:
    url = header.strip("<>")
    assert url.startswith(f"{SITE}/unsubscribe/")
    return url[len(SITE) :]


def test_a_watchers_mail_carries_the_one_click_headers_and_a_players_own_does_not(room):
    mails = carols_copy(room)
    assert mails[CAROL]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    path_of(mails[CAROL]["List-Unsubscribe"])
    assert mails[ALICE]["List-Unsubscribe"] is None and mails[BOB]["List-Unsubscribe"] is None
    assert {ALICE, BOB} <= set(mails)


def test_a_post_ends_the_watching_at_once_and_says_so(room):
    path = path_of(carols_copy(room)[CAROL]["List-Unsubscribe"])
    with TestClient(room.server.web) as client:
        asked = client.get(path)
        assert asked.status_code == 200 and "Stop mailing carol the moves of Cephalopod board 101?" in asked.text
        assert CAROL in carols_copy(room)  # a GET changed nothing
        done = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200
    assert "carol no longer watches Cephalopod board 101, nor the new Cephalopod games" in done.text
    assert CAROL not in carols_copy(room)


def test_a_second_post_says_there_is_nothing_left_to_end(room):
    path = path_of(carols_copy(room)[CAROL]["List-Unsubscribe"])
    with TestClient(room.server.web) as client:
        client.post(path)
        again = client.post(path)
    assert again.status_code == 200 and "does not watch Cephalopod board 101 (any more)" in again.text


def test_a_made_up_address_ends_nothing(room):
    path = path_of(carols_copy(room)[CAROL]["List-Unsubscribe"])
    forged = path[:-1] + ("a" if path[-1] != "a" else "b")
    with TestClient(room.server.web) as client:
        assert client.post(forged).status_code == 404
    assert CAROL in carols_copy(room)


def test_without_a_public_address_no_mail_carries_the_headers(make_mailroom):
    room = make_mailroom(confirm_addresses=False)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(CAROL, "cephalopod subscribe 101 carol carol-pw"))
    room.replies()
    assert carols_copy(room)[CAROL]["List-Unsubscribe"] is None


def test_the_mail_that_a_game_ended_unsubscribes_from_the_ends_of_that_games_type(make_mailroom):
    room = make_mailroom(public_url=SITE, confirm_addresses=False)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(CAROL, "cephalopod notify carol carol-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod resign 101 alice alice-pw"))
    (ended,) = [m for m in room.replies_to(CAROL) if m["List-Unsubscribe"]]
    with TestClient(room.server.web) as client:
        done = client.post(path_of(ended["List-Unsubscribe"]))
    assert "carol is no longer mailed when Cephalopod games end." in done.text
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod resign 102 alice alice-pw"))
    assert room.replies_to(CAROL) == []


@pytest.fixture
def clocked(make_mailroom) -> Mailroom:
    """`room`, on a clock the test moves."""
    clock = Clock()
    room = make_mailroom(public_url=SITE, confirm_addresses=False, clock=clock)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(CAROL, "cephalopod subscribe 101 carol carol-pw"))
    room.replies()
    room.clock = clock
    return room


def test_an_old_mails_address_does_not_end_the_subscription_made_again_after_it(clocked):
    path = path_of(carols_copy(clocked)[CAROL]["List-Unsubscribe"])
    with TestClient(clocked.server.web) as client:
        client.post(path)
        clocked.clock.advance(minutes=5)
        clocked.send(mail(CAROL, "cephalopod subscribe 101 carol carol-pw"))
        clocked.replies()
        replayed = client.post(path)
    assert replayed.status_code == 200 and "does not watch Cephalopod board 101 (any more)" in replayed.text
    assert CAROL in carols_copy(clocked), "the new subscription holds"


def test_an_address_more_than_a_month_old_ends_nothing_and_says_why(clocked):
    path = path_of(carols_copy(clocked)[CAROL]["List-Unsubscribe"])
    clocked.clock.advance(days=31)
    with TestClient(clocked.server.web) as client:
        old = client.post(path)
    assert old.status_code == 404 and "from a mail more than 30 days old: it ends nothing now" in old.text
    assert CAROL in carols_copy(clocked)


def test_an_old_mail_that_a_game_ended_does_not_end_the_notices_asked_again(make_mailroom):
    clock = Clock()
    room = make_mailroom(public_url=SITE, confirm_addresses=False, clock=clock)
    for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        room.send(mail(address, f"signup {userid} {userid}-pw"))
    room.send(mail(CAROL, "cephalopod notify carol carol-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod resign 101 alice alice-pw"))
    (ended,) = [m for m in room.replies_to(CAROL) if m["List-Unsubscribe"]]
    with TestClient(room.server.web) as client:
        client.post(path_of(ended["List-Unsubscribe"]))
        clock.advance(minutes=5)
        room.send(mail(CAROL, "cephalopod notify carol carol-pw"))
        room.replies()
        replayed = client.post(path_of(ended["List-Unsubscribe"]))
    assert "carol is not mailed when Cephalopod games end (any more)" in replayed.text
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    room.send(mail(ALICE, "cephalopod resign 102 alice alice-pw"))
    assert [m for m in room.replies_to(CAROL) if m["List-Unsubscribe"]], "the notices asked again hold"
