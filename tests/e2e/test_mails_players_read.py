"""The mails players read, over real SMTP: what happened first, every move numbered,
who was put out and why, and how a game came out.

Each test plays by mail as players do and reads the mails (and the game page)
they get back.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

import pbm.games
from pbm.store.models import Board
from pbm.words import Words
from tests.conftest import ON_SQLITE_ONLY
from tests.support import body_of, mail, reply_to_board

pytestmark = ON_SQLITE_ONLY  # what mails say

ALICE, BOB, CAROL = "alice@example.org", "bob@example.net", "carol@example.com"
ADDRESSES = {"alice": ALICE, "bob": BOB, "carol": CAROL}
README = Path(__file__).resolve().parents[2] / "README.md"


def to(messages, address):
    return [m for m in messages if m["To"].addresses[0].addr_spec == address]


def signed_up(server, sink, *userids: str):
    for userid in userids:
        server.send(mail(ADDRESSES[userid], f"signup {userid} {userid}-pw"), ADDRESSES[userid])
    sink.wait(len(userids))
    return server


def move(server, sink, userid: str, notation: str, *, players: int = 2, board: int = 101, comment: str = ""):
    """`userid` moves by command; returns the board mails every player got, in seat order of arrival."""
    body = f"cephalopod move {board} {userid} {userid}-pw {notation}" + (f"\n\n{comment}" if comment else "")
    server.send(mail(ADDRESSES[userid], body), ADDRESSES[userid])
    return sink.wait(players)


def page(server, path: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{server.http_port}{path}", timeout=10)


def test_every_move_is_numbered_the_same_in_mails_on_the_web_and_in_the_guard(server, sink):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    move(server, sink, "alice", "c3")
    move(server, sink, "bob", "b3")
    text = body_of(move(server, sink, "alice", "d3")[0])
    # pbmserv's side-by-side columns, one number per move.
    assert re.search(r"^ {5}alice +bob$", text, re.M)
    assert re.search(r"^ {3}1 c3 +2 b3$", text, re.M)
    assert re.search(r"^ {3}3 d3$", text, re.M)

    # #N counts the same moves: the 4th move is bob's.
    server.send(mail(BOB, "cephalopod move 101 bob bob-pw e5#3"), BOB)
    assert "this move was written for move 3, but the game is at move 4" in body_of(sink.wait(1)[0])
    assert re.search(r"^ {3}3 d3 +4 e5$", body_of(move(server, sink, "bob", "e5#4")[0]), re.M)

    assert [m["number"] for m in page(server, "/api/cephalopod/101").json()["moves"]] == [1, 2, 3, 4]
    assert re.findall(
        r'<td class="num"><a class="ply-link"[^>]*>(\d+)</a></td>', page(server, "/cephalopod/101").text
    ) == ["4", "3", "2", "1"]


def test_in_a_game_of_three_the_columns_follow_the_seats(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    server.send(mail(ALICE, "cephalopod challenge alice bob carol"), ALICE)
    sink.wait(3)
    for userid, notation in (("alice", "c3"), ("bob", "b3"), ("carol", "d3")):
        boards = move(server, sink, userid, notation, players=3)
    boards = move(server, sink, "alice", "a1", players=3)
    text = body_of(boards[0])
    assert re.search(r"^ {5}alice +bob +carol$", text, re.M)
    assert re.search(r"^ {5}Paren +Angle +Square$", text, re.M)
    assert re.search(r"^ {3}1 c3 +2 b3 +3 d3$", text, re.M)
    assert re.search(r"^ {3}4 a1$", text, re.M)


def test_a_move_mail_says_first_what_the_move_did(server, sink):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    move(server, sink, "alice", "b3")
    move(server, sink, "bob", "e5")
    boards = move(server, sink, "alice", "d3")
    assert body_of(boards[0]).startswith("alice played d3.\n")
    boards = move(server, sink, "bob", "c3=b3+d3")
    for board in boards:
        assert body_of(board).startswith("bob played c3=b3+d3, capturing 2 dice (a 1 and a 1).\n\nSummary of")


def test_a_new_game_mail_says_who_challenged_whom(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    server.send(mail(ALICE, "cephalopod challenge alice bob carol"), ALICE)
    for board in sink.wait(3):
        assert body_of(board).startswith("alice challenged bob and carol to a new game.\n")


def test_a_move_mail_shows_the_last_rows_of_the_moves_and_show_all_of_them(server, sink):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    played = ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", "b5", "c1"]
    for number, notation in enumerate(played):
        boards = move(server, sink, ("alice", "bob")[number % 2], notation)
    text = body_of(boards[0])
    # Eleven moves are six rows; a move mail shows the last four (moves 5 to 11).
    assert "... 4 earlier moves: send  cephalopod show 101  for the whole list" in text
    assert not re.search(r"^ {3}1 a1", text, re.M)
    assert re.search(r"^ {3}5 a5 +6 b1$", text, re.M)
    assert re.search(r"^  11 c1$", text, re.M)

    server.send(mail(ALICE, "cephalopod show 101"), ALICE)
    shown = body_of(sink.wait(1)[0])
    assert "earlier move" not in shown
    assert re.search(r"^ {3}1 a1 +2 a2$", shown, re.M)


def test_the_subject_of_a_mail_that_carries_a_comment_ends_in_two_stars(server, sink):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    assert {m["Subject"] for m in sink.wait(2)} == {"New Cephalopod Board 101 alice"}
    boards = move(server, sink, "alice", "c3", comment="Your move, Bob.")
    assert {m["Subject"] for m in boards} == {"Cephalopod Board 101 bob **"}
    bobs = to(boards, BOB)[0]
    server.send(reply_to_board(bobs, BOB, "b3"), BOB, [bobs["Reply-To"].addresses[0].addr_spec])
    assert {m["Subject"] for m in sink.wait(2)} == {"Cephalopod Board 101 alice"}


def three_player_game_with_an_elimination() -> tuple[list[str], int]:
    """Moves of a three-player game on a 3x3 board whose last move fills it with a tie for
    first place, and the seat that puts out (found by the engine, from a fixed seed)."""
    engine = pbm.games.get("cephalopod")
    for seed in range(100):
        chooser, state, played = random.Random(seed), engine.new(players=3, options={"size": 3}), []
        while engine.result(state) is None:
            notation = chooser.choice(engine.legal_moves(state))
            after = engine.apply(state, notation)
            played.append(notation)
            report = engine.report(state, notation, after)
            if report.eliminated:
                return played, report.eliminated[0]
            state = after
    raise AssertionError("no seed gave an elimination")


def test_an_elimination_is_told_with_who_is_out_why_and_every_players_count(server, sink):
    signed_up(server, sink, "alice", "bob", "carol")
    server.send(mail(ALICE, "cephalopod challenge -size=3 alice bob carol"), ALICE)
    sink.wait(3)
    played, out = three_player_game_with_an_elimination()
    userids = ["alice", "bob", "carol"]
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=3, options={"size": 3})
    for notation in played:
        mover = userids[state.to_move]
        boards = move(server, sink, mover, notation, players=3)
        state = engine.apply(state, notation)
    before_last = engine.new(players=3, options={"size": 3})
    for notation in played[:-1]:
        before_last = engine.apply(before_last, notation)
    report = engine.report(before_last, played[-1], state)
    counts = ", ".join(f"{userid} {count}" for userid, count in zip(userids, report.tally))

    text = body_of(boards[0])
    assert text.startswith(
        f"{userids[before_last.to_move]} played {played[-1]}, filling the board.\n"
        f"{userids[out]} is out, holding the fewest cells ({report.tally[out]}) when the board filled up "
        "with a tie for first place.\n"
        f"Cells: {counts}.\n"
    )
    seat_names = ["Paren", "Angle", "Square"]
    assert f"{seat_names[out]} (out)" in text

    game = page(server, "/cephalopod/101").text
    assert re.search(rf'{userids[out]}</a>\s*<span class="tag tag-out">out</span>', game)
    assert f"{userids[out]} is out, holding the fewest cells ({report.tally[out]})" in game
    assert f"Cells: {counts}." in game
    api = page(server, "/api/cephalopod/101").json()
    assert [p["out"] for p in api["players"]] == [seat == out for seat in range(3)]
    assert api["moves"][-1]["eliminated"] == [userids[out]]
    assert api["moves"][-1]["tally"] == dict(zip(userids, report.tally))


def test_a_finished_game_mail_gives_the_result_once_the_count_the_ratings_and_the_time_used(server, sink):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge -size=3 alice bob"), ALICE)
    sink.wait(2)
    engine = pbm.games.get("cephalopod")
    state, chooser = engine.new(players=2, options={"size": 3}), random.Random(5)
    while engine.result(state) is None:
        notation = chooser.choice(engine.legal_moves(state))
        boards = move(server, sink, ("alice", "bob")[state.to_move], notation)
        state = engine.apply(state, notation)
    result = engine.result(state)
    winner, loser = ("alice", "bob") if result.winners == [0] else ("bob", "alice")
    cells = engine.tally(state)
    text = body_of(boards[0])

    assert f"\n{winner} {result.reason}.\n" in text
    assert "has won" not in text and text.count(result.reason) == 1
    assert f"\nCells at the end: alice {cells[0]}, bob {cells[1]}.\n" in text
    assert f"\n{winner}'s rating is 1616 (provisional).\n" in text
    assert f"\n{loser}'s rating is 1584 (provisional).\n" in text
    assert re.search(r"^Game started: +\d{4}-\d\d-\d\d \d\d:\d\d UTC$", text, re.M)
    assert re.search(rf"^Game ended: +\d{{4}}-\d\d-\d\d \d\d:\d\d UTC, after {state.ply} moves$", text, re.M)
    assert re.search(r"^Time used: +alice .+, bob .+$", text, re.M)


def test_the_games_options_are_the_same_in_list_and_in_the_readme(server, sink):
    signed_up(server, sink, "alice")
    server.send(mail(ALICE, "list"), ALICE)
    listed = body_of(sink.wait(1)[0])
    readme = " ".join(README.read_text().split())
    for engine in pbm.games.all_games():
        options = " ".join(option.usage() for option in engine.options)
        if options:
            assert f"options: {options}" in listed
            assert f"`{engine.name} {options}`" in readme


def test_the_front_page_tells_how_to_start_a_game(server, sink):
    front = page(server, "/").text
    assert "challenge you opponent" not in front
    assert "<code>cephalopod challenge YOURID OPPONENT</code>" in front


@pytest.mark.parametrize("game", ["cubeo", "dodeca"])
def test_the_first_line_of_a_move_mail_says_what_a_turn_did_in_every_game(server, sink, game):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, f"{game} challenge alice bob"), ALICE)
    sink.wait(2)
    engine = pbm.games.get(game)
    with server.server.database.reading() as session:
        stored = session.scalars(select(Board)).one()
        state = engine.load(stored.state, stored.secret)
    mover = ("alice", "bob")[state.to_move]
    notation = sorted(engine.legal_moves(state))[0]
    server.send(mail(ADDRESSES[mover], f"{game} move 101 {mover} {mover}-pw {notation}"), ADDRESSES[mover])
    after = engine.apply(state, notation)
    said = Words().say(engine.report(state, notation, after).fact)
    for board in sink.wait(2):
        assert body_of(board).startswith(f"{mover} {said}.\n\nSummary of {engine.title} Board 101")


@pytest.mark.parametrize(
    "line",
    [
        "cephalopod challenge -size=11 alice bob",
        "cephalopod challenge -size alice bob",
        "cephalopod challenge -size=5=5 alice bob",
        "cubeo challenge -strict=1 alice bob",
        "cephalopod challenge size=5 alice bob",
        "cephalopod move 101 alice alice-pw z9",
        "cephalopod move 101 alice alice-pw c3#x",
        "cephalopod move 101 alice alice-pw c3#5",
        "cephalopod show 101#99",
    ],
)
def test_an_error_says_what_went_wrong_in_a_sentence(server, sink, line):
    signed_up(server, sink, "alice", "bob")
    server.send(mail(ALICE, "cephalopod challenge alice bob"), ALICE)
    sink.wait(2)
    server.send(mail(ALICE, line), ALICE)
    (error,) = sink.wait(1)
    reason = body_of(error).split("\n\n")[2]
    # A capital, or the player's own word quoted: "'size=5' is not a userid: ..."
    assert (reason[0].isupper() or reason[0] == "'") and reason.rstrip().endswith("."), reason
