"""A mail about a move shows the end of the move list, read from the end of the game's record
(`pbm.store.boards.recent_moves`), so a move costs the same at move 3 and move 300. What it
shows must be exactly the end of the whole list that ``show`` prints: the same rows, in the
same columns, and the right count of the moves left out. Games of two to four players, with
players put out of the game (their column stays, empty), and moves played from a queue,
whose ``(Auto)`` widens the columns of every row."""

from __future__ import annotations

import random
import re

import pytest

import pbm.games
from tests.support import body_of, mail

EARLIER = re.compile(r"^ {5}\.\.\. (\d+) earlier moves?: send")


def move_list(text: str) -> tuple[int, list[str]]:
    """(the moves a mail says it left out, the rows of its move list) of a board mail."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Summary of"))
    header = next(i for i in range(start, len(lines)) if re.match(r"^ {5}\S", lines[i]))
    rows, earlier = [], 0
    for line in lines[header + 2 :]:
        if found := EARLIER.match(line):
            earlier = int(found.group(1))
            continue
        if not re.match(r"^ *\d+ \S|^ {5}-- ", line):
            break
        rows.append(line)
    return earlier, [lines[header], lines[header + 1], *rows]


def moves_in(rows: list[str]) -> int:
    return sum(len(re.findall(r"(?:^|\s)\d+ \S", row)) for row in rows[2:] if not row.startswith("     -- "))


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (3, 4)])
def test_a_move_mail_shows_exactly_the_end_of_the_whole_move_list(make_mailroom, players, seed):
    room = make_mailroom(max_mails_per_address_per_hour=100_000)
    rng = random.Random(seed)
    names = ["alice", "bob", "carol", "dave"][:players]
    for name in names:
        room.send(mail(f"{name}@example.org", f"signup {name} {name}-pw"))
    room.send(mail("alice@example.org", f"cephalopod challenge -size=3 {' '.join(names)}"))
    room.replies()
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=players, options={"size": 3})
    checked = 0
    while engine.result(state) is None:
        mover = names[state.to_move]
        move = rng.choice(engine.legal_moves(state))
        if rng.random() < 0.2:
            # Queued, then played for the player when the one before them moves.
            after = engine.play(state, move)
            if engine.result(after) is None:
                follower = names[after.to_move]
                reply = rng.choice(engine.legal_moves(after))
                room.send(mail(f"{follower}@example.org", f"cephalopod queue 101 {follower} {follower}-pw {reply}"))
                room.replies()
        room.send(mail(f"{mover}@example.org", f"cephalopod move 101 {mover} {mover}-pw {move}"))
        boards = [m for m in room.replies() if m["Subject"].startswith("Cephalopod Board 101")]
        assert boards, f"no board mail after {mover} played {move}"
        state = engine.play(state, move)
        if len(boards) > len(names):  # the queued move was played too
            state = engine.play(state, reply)
        if engine.result(state) is not None:
            break
        earlier, shown = move_list(body_of(boards[-1]))
        room.send(mail("alice@example.org", "cephalopod show 101"))
        (whole,) = room.replies()
        none_left_out, everything = move_list(body_of(whole))
        assert none_left_out == 0
        assert shown[:2] == everything[:2], "the same columns"
        assert shown[2:] == everything[len(everything) - len(shown) + 2 :], "the end of the whole list"
        assert earlier == moves_in(everything) - moves_in(shown)
        checked += 1
    assert checked > 10
