"""Debian's Postfix in front of pbm, configured from deploy/postfix/ exactly as
deploy/postfix.md says: mail in through Postfix, replies out through Postfix into
the players' mailboxes, both ways (SMTP to `pbm serve`, the pipe to `pbm process`)."""

from __future__ import annotations

import contextlib
import smtplib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import pbm.games
from pbm.store.database import Database
from pbm.store.models import InboundMessage, MoveRecord, Player
from tests.e2e.conftest import free_port
from tests.e2e.postfix import DEPLOY, PbmHome, PrivatePostfix, render, unavailable
from tests.e2e.test_processes import PbmProcess, wait_until
from tests.support import body_of, confirmation_reply, mail, reply_to_board

GAME_DOMAIN = "games.test"
GAME = f"pbm@{GAME_DOMAIN}"
ALICE, BOB = f"alice@{PrivatePostfix.PLAYERS_DOMAIN}", f"bob@{PrivatePostfix.PLAYERS_DOMAIN}"
PIPE_USER = "nobody"
SECRET_KEY = "postfix-" + "k" * 40


@pytest.fixture
def postfix() -> Iterator[PrivatePostfix]:
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    # Not pytest's tmp_path: that is private to root, and Postfix's daemons, the
    # players' mailboxes and the pipe's user all need to reach into this folder.
    with tempfile.TemporaryDirectory(prefix="pbm-postfix-") as folder:
        root = Path(folder)
        root.chmod(0o755)
        instance = PrivatePostfix(root)
        instance.create([ALICE, BOB])
        try:
            yield instance
        finally:
            instance.stop()


def site_values(**more: str) -> dict[str, str]:
    return {"GAME_ADDRESS": GAME, "GAME_DOMAIN": GAME_DOMAIN, **more}


# Way A: Postfix relays to `pbm serve` over SMTP.


@pytest.fixture
def pbm_serve(postfix: PrivatePostfix, database_url: str, tmp_path: Path) -> Iterator[PbmProcess]:
    pbm = PbmProcess(database_url, tmp_path)
    pbm.env.update(PBM_ADDRESS=GAME, PBM_OUTBOUND=f"smtp://127.0.0.1:{postfix.port}", PBM_SECRET_KEY=SECRET_KEY)
    values = site_values(PBM_SMTP_PORT=str(pbm.smtp_port))
    postfix.apply_main_cf(render("main.cf", values))
    postfix.install_map("pbm_transport", render("smtp/transport", values))
    postfix.start()
    pbm.start()
    yield pbm
    pbm.kill()


def test_a_game_through_postfix_relaying_to_pbm_serve(postfix, pbm_serve, database_url):
    play_a_short_game(postfix)
    assert_the_game_is_stored(database_url)


def test_postfix_accepts_pbm_and_its_token_addresses_and_refuses_the_rest_of_the_domain(postfix):
    values = site_values(PBM_SMTP_PORT=str(free_port()))
    postfix.apply_main_cf(render("main.cf", values))
    postfix.install_map("pbm_transport", render("smtp/transport", values))
    postfix.start()
    with smtplib.SMTP("127.0.0.1", postfix.port, timeout=10) as client:
        client.mail(ALICE)
        assert client.rcpt(GAME)[0] == 250
        assert client.rcpt(f"pbm+some-token@{GAME_DOMAIN}")[0] == 250
        for stranger in (f"someone@{GAME_DOMAIN}", f"pbmx@{GAME_DOMAIN}"):
            code, reason = client.rcpt(stranger)
            assert (code, b"User unknown in relay recipient table" in reason) == (550, True)
        client.rset()


# Way B: Postfix pipes each mail to `pbm process`.


@pytest.fixture
def pbm_home(postfix: PrivatePostfix) -> PbmHome:
    home = PbmHome(postfix.root, PIPE_USER)
    reason = home.install_pbm()
    if reason:
        pytest.skip(reason)
    return home


def write_pbm_environment(home: PbmHome, postfix: PrivatePostfix, database_url: str) -> None:
    home.write_environment(
        address=GAME, database_url=database_url, outbound=f"smtp://127.0.0.1:{postfix.port}", secret_key=SECRET_KEY
    )


def configure_the_pipe(postfix: PrivatePostfix, home: PbmHome) -> None:
    values = site_values(PBM_HOME=str(home.path), PBM_USER=PIPE_USER, PBM_ENVIRONMENT=str(home.environment))
    postfix.apply_main_cf(render("main.cf", values))
    postfix.apply_main_cf(render("pipe/main.cf", values))
    postfix.install_map("pbm_transport", render("pipe/transport", values))
    postfix.append_master_cf(render("pipe/master.cf", values))


def test_a_game_through_postfix_piping_to_pbm_process(postfix, pbm_home, database_url):
    database_url = pbm_home.database_for_the_user(database_url)
    write_pbm_environment(pbm_home, postfix, database_url)
    configure_the_pipe(postfix, pbm_home)
    postfix.start()
    play_a_short_game(postfix)
    assert_the_game_is_stored(database_url)


def deferred(postfix: PrivatePostfix) -> bool:
    return any(entry["queue_name"] == "deferred" for entry in postfix.queue())


def test_the_pipe_keeps_mail_queued_while_the_database_is_down_and_delivers_it_after(postfix, pbm_home, database_url):
    database_url = pbm_home.database_for_the_user(database_url)
    write_pbm_environment(pbm_home, postfix, f"postgresql+psycopg://pbm@127.0.0.1:{free_port()}/pbm")  # no server
    configure_the_pipe(postfix, pbm_home)
    postfix.start()
    alice = postfix.mailbox(ALICE)

    postfix.send(mail(ALICE, "signup alice alice-pw", to=GAME), ALICE, [GAME])
    wait_until(lambda: postfix.queue() == [] or deferred(postfix), timeout=30, what="a first delivery attempt")
    assert [entry["queue_name"] for entry in postfix.queue()] == ["deferred"], postfix.log()

    write_pbm_environment(pbm_home, postfix, database_url)  # the database is back
    postfix.flush()
    (welcome,) = alice.wait(1)
    assert welcome["Subject"] == "Welcome to the PBeM Server, alice"
    with reading(database_url) as session:
        assert session.scalars(select(Player.userid)).all() == ["alice"]


def test_the_pipe_command_keeps_mail_queued_when_it_cannot_read_pbms_settings(tmp_path):
    pbm_pipe = DEPLOY / "pipe" / "pbm-pipe"
    done = subprocess.run([pbm_pipe, tmp_path / "missing", sys.executable], capture_output=True, check=False)
    assert done.returncode == 75  # EX_TEMPFAIL: Postfix defers instead of bouncing


def test_the_pipe_command_runs_pbm_with_the_settings_of_the_environment_file(tmp_path):
    environment = tmp_path / "environment"
    environment.write_text("PBM_ADDRESS=pbm@games.test\n")
    show = "import os; print(os.environ['PBM_ADDRESS'])"
    done = subprocess.run(
        [DEPLOY / "pipe" / "pbm-pipe", environment, sys.executable, "-c", show],
        env={},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "pbm@games.test\n")


# The game both ways play.

MOVES = ["c3", "a1", "e5", "a5"]
REPLIED_MOVE = "a1"  # made by replying to the board mail; the others by `move` commands with a password


def play_a_short_game(postfix: PrivatePostfix) -> None:
    """Two signups, a challenge and four moves, mailed through Postfix; one move is a
    reply to a board mail, sent to the pbm+<token> address of its Reply-To."""
    engine = pbm.games.get("cephalopod")
    mailboxes = {ALICE: postfix.mailbox(ALICE), BOB: postfix.mailbox(BOB)}

    def send(sender: str, raw: bytes, to: str = GAME) -> None:
        postfix.send(raw, sender, [to])

    for sender, userid in ((ALICE, "alice"), (BOB, "bob")):
        send(sender, mail(sender, f"signup {userid} {userid}-pw", to=GAME))
        (welcome,) = mailboxes[sender].wait(1)
        assert welcome["Subject"] == f"Welcome to the PBeM Server, {userid}"
        assert welcome["From"].addresses[0].addr_spec == GAME
        confirming = confirmation_reply(welcome)  # the welcome asks the address to confirm itself
        assert confirming is not None
        send(sender, confirming, to=welcome["Reply-To"].addresses[0].addr_spec)
        (confirmed,) = mailboxes[sender].wait(1)
        assert confirmed["Subject"] == f"Address confirmed for {userid}"

    send(ALICE, mail(ALICE, "cephalopod challenge alice bob", to=GAME))
    state = engine.new(players=2)
    boards = {address: box.wait(1)[0] for address, box in mailboxes.items()}
    for board in boards.values():
        assert board["Subject"] == "New Cephalopod Board 101 alice"
        assert engine.render(state).rstrip() in body_of(board)

    for number, move in enumerate(MOVES, start=1):
        player, userid = ((ALICE, "alice"), (BOB, "bob"))[state.to_move]
        if move == REPLIED_MOVE:
            reply_to = boards[player]["Reply-To"].addresses[0].addr_spec
            assert reply_to.startswith("pbm+") and reply_to.endswith("@" + GAME_DOMAIN)
            send(player, reply_to_board(boards[player], player, move), to=reply_to)
        else:
            send(player, mail(player, f"cephalopod move 101 {userid} {userid}-pw {move}#{number}", to=GAME))
        state = engine.play(state, move)
        waiting = ["alice", "bob"][state.to_move]
        boards = {address: box.wait(1)[0] for address, box in mailboxes.items()}
        for board in boards.values():
            assert board["Subject"] == f"Cephalopod Board 101 {waiting}"
            assert engine.render(state).rstrip() in body_of(board)


def assert_the_game_is_stored(database_url: str) -> None:
    with reading(database_url) as session:
        moves = session.scalars(select(MoveRecord).order_by(MoveRecord.number)).all()
        assert [m.notation for m in moves] == MOVES
        reply = session.get(InboundMessage, moves[MOVES.index(REPLIED_MOVE)].inbound_id)
        assert "pbm+" in reply.envelope_to and reply.envelope_to.endswith("@" + GAME_DOMAIN)  # the token came through


@contextlib.contextmanager
def reading(database_url: str) -> Iterator[Session]:
    database = Database(database_url)
    try:
        with database.reading() as session:
            yield session
    finally:
        database.dispose()
