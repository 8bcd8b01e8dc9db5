"""A fourth game, installed as a club would install one, played by mail and shown on the web.

`tests/plugins/stones.py` is the whole game; a package in `tests/plugins/site`
registers it in the ``pbm.games`` entry-point group. Nothing else of pbm knows
it: the registry finds it, the language takes its name, the mails and the
page show its board, drawn with stones.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import pbm.games
from tests.support import body_of, mail

SITE = str(Path(__file__).resolve().parents[1] / "plugins" / "site")
ALICE, BOB = "alice@example.org", "bob@example.net"


@pytest.fixture
def stones_installed() -> Iterator[None]:
    """The Stones package on the path, as `pip install` would put it, for this test only."""
    sys.path.insert(0, SITE)
    pbm.games.refresh()
    try:
        yield
    finally:
        sys.path.remove(SITE)
        pbm.games.refresh()


def test_an_installed_game_is_played_to_its_end_by_mail_and_drawn_with_stones(stones_installed, server, sink):
    assert pbm.games.names() == ["cephalopod", "cubeo", "dodeca", "stones"]
    for address, userid in ((ALICE, "alice"), (BOB, "bob")):
        server.send(mail(address, f"signup {userid} {userid}-pw"), address)
    sink.wait(2)
    server.send(mail(ALICE, "list"), ALICE)
    assert "stones       Stones, a game by the pbm test suite" in body_of(sink.wait(1)[0])

    server.send(mail(ALICE, "stones challenge alice bob"), ALICE)
    assert {m["Subject"] for m in sink.wait(2)} == {"New Stones Board 101 alice"}
    for userid, address, cell in [("alice", ALICE, "a1"), ("bob", BOB, "b1"), ("alice", ALICE, "a2")]:
        server.send(mail(address, f"stones move 101 {userid} {userid}-pw {cell}"), address)
        sink.wait(2)
    server.send(mail(BOB, "stones move 101 bob bob-pw b2"), BOB)
    sink.wait(2)
    server.send(mail(ALICE, "stones move 101 alice alice-pw a3"), ALICE)
    final = sink.wait(2)
    assert {m["Subject"] for m in final} == {"Stones Board 101 won by alice"}
    text = body_of(final[0])
    assert text.startswith("alice played a3.\n")
    assert "\nalice won with three in a row.\n" in text
    assert "3  x . .\n2  x o .\n1  x o ." in text
    assert "alice's rating is 1616 (provisional)." in text

    page = httpx.get(f"http://127.0.0.1:{server.http_port}/stones/101", timeout=10).text
    assert page.count('class="stone seat-0"') == 3 and page.count('class="stone seat-1"') == 2
    assert 'class="die' not in page
    rules = httpx.get(f"http://127.0.0.1:{server.http_port}/stones/rules", timeout=10).text
    assert "Three in a line wins." in rules and "stones move BOARD USERID PASSWORD MOVE[#N]" in rules


def test_without_the_package_the_game_is_unknown_again():
    assert "stones" not in pbm.games.names()
