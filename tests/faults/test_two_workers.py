"""Two `pbm serve` processes on one PostgreSQL database, racing for the same mail.

"Mail from one sender must be processed in the order received, whatever the
number of workers" — and mail from different senders must not deadlock the
workers when their commands cross.
"""

from __future__ import annotations

import random
import threading

import pytest

from tests.faults.audit import Tables, maildir_files, message_id_counts
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, Match, challenge, letter, new_player, post, signup

pytestmark = pytest.mark.postgresql

ROUND_SECONDS = 30.0
"""How long one round's mails may take to be processed: only a hang takes longer."""


@pytest.fixture
def workers(postgres_url, tmp_path):
    """Two servers on one database, each with its own log; replies go to one maildir."""
    env = {**GENEROUS_LIMITS, "PBM_OUTBOUND": f"maildir:{tmp_path / 'outbox'}"}
    pair = [ServeProcess(postgres_url, tmp_path / name, name=name, env=env) for name in ("worker-a", "worker-b")]
    for worker in pair:
        worker.start()
    yield pair
    for worker in pair:
        worker.stop()


@pytest.fixture
def tables(postgres_url):
    tables = Tables(postgres_url)
    yield tables
    tables.close()


def send(worker: ServeProcess, mail: Letter) -> None:
    post(worker.smtp_port, mail)


def processed(tables: Tables, mails: list[Letter]) -> bool:
    rows = tables.inbound_by_message_id()
    return all(m.message_id in rows and rows[m.message_id][0].status != "pending" for m in mails)


def send_at_once(mails: list[tuple[ServeProcess, Letter]]) -> None:
    """Each mail to its worker, from its own thread, released together."""
    start = threading.Barrier(len(mails))

    def race(worker: ServeProcess, mail: Letter) -> None:
        start.wait()
        send(worker, mail)

    racers = [threading.Thread(target=race, args=pair) for pair in mails]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(60)


def test_the_readme_tour_succeeds_every_time_with_two_workers(workers, tables, scale):
    """Signup, signup, challenge, back to back, spread over both workers' listeners."""
    rng = random.Random("tour")
    failures = []
    for round_ in range(scale.tour_rounds):
        alice, bob = new_player("t", rng), new_player("t", rng)
        dare = letter(alice.address, f"cephalopod challenge {alice.userid} {bob.userid}", kind="challenge")
        tour = [signup(alice), signup(bob), dare]
        for index, mail in enumerate(tour):
            send(workers[(index + round_) % 2], mail)
        if not wait_for(lambda tour=tour: processed(tables, tour), ROUND_SECONDS):
            failures.append(f"round {round_}: not processed within {ROUND_SECONDS:.0f} s")
            continue
        if tables.board_of("cephalopod", [alice.userid, bob.userid]) is None:
            (row,) = tables.inbound_by_message_id()[dare.message_id]
            answers = [r.raw for r in tables.outbox() if r.inbound_id == row.id]
            said = next((line for raw in answers for line in raw.decode().splitlines() if "signed up" in line), "")
            failures.append(f"round {round_}: the challenge made no game: {said or row.note}")
    assert failures == [], f"{len(failures)} of {scale.tour_rounds} tours failed"


def test_crossed_multi_command_mails_never_deadlock(workers, tables, scale):
    """Mail 1 moves on board X then Y, mail 2 (another player's) on Y then X, both at once.

    In X p moves first, in Y q does; whichever mail goes first, exactly three
    of the four moves are legal when their turn comes, and each is applied once.
    """
    rng = random.Random("crossed")
    p, q = new_player("x", rng), new_player("x", rng)
    signups = [signup(p), signup(q)]
    for mail in signups:
        send(workers[0], mail)
    assert wait_for(lambda: processed(tables, signups), ROUND_SECONDS)  # the order of these is the other test's
    last = {"x": 0, "y": 0}
    for round_ in range(scale.crossed_rounds):
        boards = {}
        for name, seats in (("x", [p, q]), ("y", [q, p])):
            send(
                workers[0],
                letter(seats[0].address, f"cephalopod challenge {seats[0].userid} {seats[1].userid}", kind="challenge"),
            )
            userids = [seat.userid for seat in seats]
            boards[name] = wait_for(
                lambda userids=userids, name=name: (
                    (b := tables.board_of("cephalopod", userids)) and b > last[name] and b
                ),
                ROUND_SECONDS,
            )
            assert boards[name], f"round {round_}: the challenge for board {name} made no game"
        last.update(boards)
        x, y = boards["x"], boards["y"]
        one = letter(
            p.address,
            f"cephalopod move {x} {p.userid} {p.password} a1\ncephalopod move {y} {p.userid} {p.password} e5",
            kind="crossed",
        )
        two = letter(
            q.address,
            f"cephalopod move {y} {q.userid} {q.password} a1\ncephalopod move {x} {q.userid} {q.password} e5",
            kind="crossed",
        )
        send_at_once([(workers[0], one), (workers[1], two)])
        assert wait_for(lambda mails=(one, two): processed(tables, list(mails)), ROUND_SECONDS), (
            f"round {round_}: not processed"
        )
        applied = [m for m in tables.moves() if m.board in (x, y)]
        numbers = {board: sorted(m.number for m in applied if m.board == board) for board in (x, y)}
        assert len(applied) == 3, f"round {round_}: {len(applied)} moves applied: {applied}"
        assert sorted(map(len, numbers.values())) == [1, 2] and all(
            n == list(range(1, len(n) + 1)) for n in numbers.values()
        )
        assert len({(m.board, m.inbound_id) for m in applied}) == 3, f"round {round_}: a mail moved twice on a board"
    deadlocks = [
        f"{worker.name}: {line}"
        for worker in workers
        for line in worker.log().splitlines()
        if "deadlock" in line.lower()
    ]
    assert deadlocks == []


def test_racing_load_is_processed_once_applied_once_and_mailed_once(workers, tables, scale, tmp_path):
    """Many games at once, each move mailed to either worker and one in three to both at the same
    moment (an MTA retrying on a second MX): every mail is processed once, every move applied once
    and in order, and every reply written once, though both workers process and deliver."""
    rng = random.Random("racing")
    matches = [Match("cephalopod", [new_player("r", rng), new_player("r", rng)]) for _ in range(scale.racing_games)]
    signups = [signup(player) for match in matches for player in match.players]
    for index, mail in enumerate(signups):
        send(workers[index % 2], mail)
    dares = [challenge("cephalopod", match.players) for match in matches]
    for index, mail in enumerate(dares):
        send(workers[index % 2], mail)
    assert wait_for(lambda: processed(tables, signups + dares), ROUND_SECONDS)
    for match in matches:
        match.board = tables.board_of("cephalopod", match.userids)
        assert match.board is not None, f"{match.userids}: the challenge made no game"

    sent: list[Letter] = []
    twice: list[Letter] = []

    def play(match: Match, seed: int) -> None:
        # Each game's moves one after another, as its players would; the games race each other.
        chooser = random.Random(seed)
        for _ in range(scale.racing_moves):
            mail, _move = match.move_letter(chooser)
            sent.append(mail)
            if chooser.random() < 1 / 3:
                twice.append(mail)
                send_at_once([(workers[0], mail), (workers[1], mail)])
            else:
                send(chooser.choice(workers), mail)

    players = [threading.Thread(target=play, args=(m, i)) for i, m in enumerate(matches)]
    for thread in players:
        thread.start()
    for thread in players:
        thread.join(ROUND_SECONDS * scale.racing_moves)
    assert len(sent) == scale.racing_games * scale.racing_moves
    assert wait_for(lambda: processed(tables, sent), ROUND_SECONDS), "not every move was processed"

    inbound = tables.inbound_by_message_id()
    for mail in sent:
        statuses = sorted(row.status for row in inbound[mail.message_id])
        assert statuses.count("processed") == 1, f"{mail.message_id}: {statuses}"
        assert set(statuses) <= {"processed", "duplicate"}
    assert twice and all(len(inbound[mail.message_id]) == 2 for mail in twice)

    moves = tables.moves()
    for match in matches:
        numbers = [m.number for m in moves if m.board == match.board]
        assert numbers == list(range(1, scale.racing_moves + 1)), f"board {match.board}: {numbers}"
    moved_by = [m.inbound_id for m in moves if any(m.board == match.board for match in matches)]
    assert len(moved_by) == len(set(moved_by)), "a mail moved twice"

    assert wait_for(lambda: all(row.status == "sent" for row in tables.outbox()), ROUND_SECONDS)
    outbox = tables.outbox()
    assert all(row.attempts == 1 for row in outbox)
    written = message_id_counts(maildir_files(tmp_path / "outbox"))
    twice_written = {message_id: n for message_id, n in written.items() if n > 1}
    assert twice_written == {}, "replies written twice by the two workers"
    assert set(written) == {row.message_id for row in outbox}
