"""Passwords quoted where no command reads them must reach nobody, on a real `pbm serve`.

The third audit (issue 42) found a player's password passed on to the opponent, or quoted
back, in three shapes: first in a broken command (``cephalopod move 101 PASSWORD carol c3``),
a broken command inside a sentence below a reply, and a good command quoted in prose; and
``language x101 alice PASSWORD`` starred the wrong word. Here each shape is written, in
English and in French, by a player below a move replied to her board mail (the comment goes to
her opponent) and to the plain address (an error quotes it back); no mail the server queues
may hold her password. The figure (shapes whose password got out) goes to the suite's notes.
"""

from __future__ import annotations

import random
import shutil

import pytest

from tests.faults.audit import Tables
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess
from tests.faults.players import Letter, Player, letter, new_player, send_and_wait, signup
from tests.support import body_of, read, reply_to_board

SHAPES = [
    "cephalopod move {board} {password} {userid} c3",
    "sorry, I first sent: cephalopod move x{board} {userid} {password} c3",
    'I had typed "cephalopod move {board} {userid} {password} c3" but it failed.',
    "language x{board} {userid} {password}",
    "désolée, j'avais d'abord envoyé : cephalopod move x{board} {userid} {password} c3",
    "j'avais tapé « cephalopod move {board} {userid} {password} c3 » mais ça n'a pas marché.",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("password-leaks")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env=GENEROUS_LIMITS)
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def texts(server: ServeProcess, inbound_ids: list[int]) -> str:
    """Everything the server queued in answer to these mails, as its readers read it."""
    wanted = set(inbound_ids)
    return "\n".join(
        f"{message}\n{body_of(message)}"
        for message in (read(row.raw) for row in server.tables.outbox() if row.inbound_id in wanted)
    )


def carols_board_mail(server: ServeProcess, ids: list[int], carol: Player):
    """The board mail the move of `ids` sent carol: its reply address plays her move."""
    wanted = set(ids)
    mails = [read(row.raw) for row in server.tables.outbox() if row.inbound_id in wanted]
    return next(m for m in mails if m["To"].addresses[0].addr_spec == carol.address)


def test_a_password_written_where_no_command_reads_it_reaches_nobody(server, figures):
    rng = random.Random("leaks")
    leaked = []
    for number, shape in enumerate(SHAPES):
        alice, carol = new_player("a", rng), new_player("c", rng)
        send_and_wait(server, signup(alice), signup(carol))
        send_and_wait(server, letter(alice.address, f"cephalopod challenge {alice.userid} {carol.userid}", kind="c"))
        board = 101 + number
        moved = send_and_wait(
            server, letter(alice.address, f"cephalopod move {board} {alice.userid} {alice.password} c3", kind="m")
        )
        text = shape.format(board=board, userid=carol.userid, password=carol.password)
        board_mail = carols_board_mail(server, moved, carol)
        raw = reply_to_board(board_mail, carol.address, "b3", comment=f"{text}\nGood luck!")
        reply_to = board_mail["Reply-To"].addresses[0].addr_spec
        replied = Letter(carol.address, raw, str(read(raw)["Message-ID"]).strip(), "reply", to=reply_to)
        plain = letter(carol.address, text, kind="plain")
        sent = texts(server, send_and_wait(server, replied, plain))
        assert "Good luck!" in sent  # the comment went to alice
        if carol.password in sent:
            leaked.append(shape)
    figures.notes.append(f"password leaks: {len(leaked)} of {len(SHAPES)} shapes passed a password on: {leaked}")
    assert leaked == []
