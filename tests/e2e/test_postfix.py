"""Debian's Postfix in front of pbm, configured from deploy/postfix/ exactly as
deploy/postfix.md says: mail in through Postfix, replies out through Postfix into
the players' mailboxes, both ways (SMTP to `pbm serve`, the pipe to `pbm process`);
and, as deploy/mail-authentication.md says, signed on the way out by dkimpy-milter."""

from __future__ import annotations

import contextlib
import email
import re
import smtplib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from email.policy import default as default_policy
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import pbm.games
from pbm.store.database import Database
from pbm.store.models import InboundMessage, MoveRecord, Player
from tests.e2e.conftest import free_port
from tests.e2e.postfix import DEPLOY, PLACEHOLDER, DkimpyMilter, PbmHome, PrivatePostfix, render, unavailable
from tests.e2e.test_processes import PbmProcess, wait_until
from tests.support import body_of, confirmation_reply, mail, reply_to_board

GAME_DOMAIN = "games.test"
GAME = f"pbm@{GAME_DOMAIN}"
ALICE, BOB, CAROL = (f"{userid}@{PrivatePostfix.PLAYERS_DOMAIN}" for userid in ("alice", "bob", "carol"))
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
        instance.create([ALICE, BOB, CAROL])
        try:
            yield instance
        finally:
            instance.stop()


def site_values(**more: str) -> dict[str, str]:
    return {"GAME_ADDRESS": GAME, "GAME_DOMAIN": GAME_DOMAIN, **more}


# Way A: Postfix relays to `pbm serve` over SMTP.


def relaying_to_pbm_serve(postfix: PrivatePostfix, database_url: str, folder: Path, **settings: str) -> PbmProcess:
    """`pbm serve` behind Postfix, as way A sets it up, its replies going out through Postfix."""
    pbm = PbmProcess(database_url, folder)
    pbm.env.update(PBM_ADDRESS=GAME, PBM_OUTBOUND=f"smtp://127.0.0.1:{postfix.port}", PBM_SECRET_KEY=SECRET_KEY)
    pbm.env.update({f"PBM_{name.upper()}": value for name, value in settings.items()})
    values = site_values(PBM_SMTP_PORT=str(pbm.smtp_port))
    postfix.apply_main_cf(render("main.cf", values))
    postfix.install_map("pbm_transport", render("smtp/transport", values))
    return pbm


@pytest.fixture
def pbm_serve(postfix: PrivatePostfix, database_url: str, tmp_path: Path) -> Iterator[PbmProcess]:
    pbm = relaying_to_pbm_serve(postfix, database_url, tmp_path)
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


# DKIM: the MTA signs what pbm sends (deploy/mail-authentication.md).

SELECTOR = "pbm2026"


@pytest.fixture
def dkim_signer(postfix: PrivatePostfix) -> Iterator[DkimpyMilter]:
    reason = DkimpyMilter.unavailable()
    if reason:
        pytest.skip(reason)
    signer = DkimpyMilter(postfix.root)
    try:
        yield signer
    finally:
        signer.stop()


def published(key_record: str):
    """dkimpy's DNS lookup, answering the key record at our selector (and nothing else)."""

    def txt(name: bytes, timeout: float = 5) -> bytes:
        assert name == f"{SELECTOR}._domainkey.{GAME_DOMAIN}.".encode()
        return key_record.encode()

    return txt


def dkim_tags(field: str) -> dict[str, str]:
    return {name.strip(): "".join(value.split()) for name, _, value in (tag.partition("=") for tag in field.split(";"))}


def test_mail_pbm_sends_through_postfix_is_dkim_signed_over_both_unsubscribe_fields(
    postfix, dkim_signer, sqlite_template, tmp_path
):
    dkim = pytest.importorskip("dkim", reason="dkimpy checks the signatures: pip install -e '.[test]'")
    database = tmp_path / "pbm.db"  # one database is enough: the MTA signs whatever pbm keeps its games in
    database.write_bytes(sqlite_template.read_bytes())
    database_url = f"sqlite:///{database}"
    key_file, key_record = dkim_signer.make_key(f"{GAME_DOMAIN}.{SELECTOR}")
    values = site_values(DKIM_MILTER_PORT=str(dkim_signer.port), DKIM_SELECTOR=SELECTOR, DKIM_KEY_FILE=str(key_file))
    dkim_signer.start(render("dkim/dkimpy-milter.conf", values))
    # A watcher's mail carries the one-click unsubscribe fields, which need the pages' address.
    pbm = relaying_to_pbm_serve(
        postfix, database_url, tmp_path, public_url=f"https://{GAME_DOMAIN}", confirm_addresses="off"
    )
    postfix.apply_main_cf(render("dkim/main.cf", values))
    postfix.start()
    pbm.start()
    try:
        mailboxes = {address: postfix.mailbox(address) for address in (ALICE, BOB, CAROL)}
        delivered = []
        for address, userid in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
            postfix.send(mail(address, f"signup {userid} {userid}-pw", to=GAME), address, [GAME])
            delivered += mailboxes[address].wait_raw(1)
        postfix.send(mail(CAROL, "cephalopod subscribe carol carol-pw all", to=GAME), CAROL, [GAME])
        delivered += mailboxes[CAROL].wait_raw(1)
        postfix.send(mail(ALICE, "cephalopod challenge alice bob", to=GAME), ALICE, [GAME])
        delivered += mailboxes[ALICE].wait_raw(1) + mailboxes[BOB].wait_raw(1)
        (watched,) = mailboxes[CAROL].wait_raw(1)
    finally:
        pbm.kill()

    for raw in [*delivered, watched]:  # every mail pbm sent, signed by the game's domain
        assert dkim.verify(raw, dnsfunc=published(key_record)), raw.decode(errors="replace")[:2000]
    message = email.message_from_bytes(watched, policy=default_policy)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["List-Unsubscribe"].startswith(f"<https://{GAME_DOMAIN}/unsubscribe/")
    signature = dkim_tags(str(message["DKIM-Signature"]))
    assert (signature["d"], signature["s"]) == (GAME_DOMAIN, SELECTOR)
    signed = signature["h"].lower().split(":")
    # Over-signed: each is named once more than it appears, so a second copy added on the way...
    assert (signed.count("list-unsubscribe"), signed.count("list-unsubscribe-post")) == (2, 2)
    added = watched.replace(
        b"\nList-Unsubscribe:", b"\nList-Unsubscribe: <https://elsewhere.example/>\nList-Unsubscribe:", 1
    )
    # ...breaks the signature.
    assert not dkim.verify(added, dnsfunc=published(key_record))


def test_the_docs_render_fills_every_placeholder_of_the_files_it_installs():
    """deploy/postfix.md's `render` (sed, one expression a placeholder) knows every @PLACEHOLDER@ of deploy/postfix/."""
    rendered = set(re.findall(r"'s\|@([A-Z_]+)@\|", (DEPLOY.parent / "postfix.md").read_text()))
    used = {name for path in DEPLOY.rglob("*") if path.is_file() for name in PLACEHOLDER.findall(path.read_text())}
    assert used and used <= rendered, sorted(used - rendered)


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
