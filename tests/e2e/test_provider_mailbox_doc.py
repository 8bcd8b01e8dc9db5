"""deploy/provider-mailbox.md, followed literally against a real provider (the private Dovecot and
Postfix of `tests.provider.PostfixProvider`): its environment lines with the test's mailbox and
servers in place of the doc's examples, its private-CA line (the test's certificate is
self-signed), its password file, its `pbm doctor` command, then `pbm serve` with that environment
(as `deploy/pbm.service` reads it) and the doc's check: a `help` answered within seconds. Then a
game is played by mail through the provider, confirmations and all (the doc leaves them on)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pbm.games
from tests import dovecot, submission
from tests.faults.harness import ServeProcess
from tests.provider import CLUB, PASSWORD, PostfixProvider
from tests.support import body_of, confirmation_reply, mail, reply_to_board

pytestmark = pytest.mark.skipif(
    (dovecot.unavailable() or submission.unavailable()) is not None,
    reason=str(dovecot.unavailable() or submission.unavailable()),
)

DOC = Path(__file__).resolve().parents[2] / "deploy" / "provider-mailbox.md"
ALICE, BOB = "alice@players.test", "bob@players.test"


def blocks(language: str) -> list[str]:
    """The doc's fenced blocks in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(), flags=re.M | re.S)


class Followed:
    """The doc's example values, and the test's in their place."""

    def __init__(self, provider: PostfixProvider, etc: Path) -> None:
        self.etc = etc
        self.values = {
            "games%40ourclub.org": "games%40club.test",
            "games@ourclub.org": CLUB,
            "imap.provider.example": f"127.0.0.1:{provider.dovecot.imaps_port}",
            "smtp.provider.example:587": f"127.0.0.1:{provider.postfix.port}",
            "/etc/pbm/": f"{etc}/",
            "/opt/pbm/bin/pbm": f"{sys.executable} -m pbm",
            "sudo -u pbm ": "",
        }

    def __call__(self, text: str) -> str:
        for doc_value, test_value in self.values.items():
            text = text.replace(doc_value, test_value)
        return text


@pytest.fixture
def provider():
    provider = PostfixProvider([ALICE, BOB])
    provider.start()
    yield provider
    provider.stop()


def test_the_admins_page_followed_literally_plays_a_game_through_the_provider(provider, database_url, tmp_path):
    if not database_url.startswith("sqlite"):
        pytest.skip("the doc's setup is the same on either backend")
    etc = tmp_path / "etc-pbm"
    etc.mkdir()
    follow = Followed(provider, etc)

    # 2. The password, in a file only pbm's user may read (the doc's mode).
    mode = re.search(r"install -m (\d+) -o pbm /dev/null /etc/pbm/mailbox-password", DOC.read_text())
    assert mode is not None
    password_file = etc / "mailbox-password"
    password_file.write_text(PASSWORD + "\n")
    password_file.chmod(int(mode[1], 8))
    # 3. The settings, and the private CA's line (the test provider's certificate is its own).
    (environment_lines,) = blocks("ini")[:1]
    ca_line = re.search(r"`(PBM_MAIL_CA_FILE=[^`]+)`", DOC.read_text())
    assert ca_line is not None, "the doc names PBM_MAIL_CA_FILE for a private CA"
    environment = etc / "environment"
    environment.write_text(follow(environment_lines) + follow(ca_line[1]) + "\n")
    (etc / "provider-ca.pem").write_bytes(provider.dovecot.cert.read_bytes())
    settings = dict(line.split("=", 1) for line in environment.read_text().splitlines() if "=" in line)
    assert settings["PBM_OUTBOUND_MAX_PER_DAY"] and settings["PBM_INBOUND_KEEP_DAYS"]

    # 4. Check: the doc's command, and what the doc says it says.
    (doctor_command,) = [block for block in blocks("sh") if "pbm doctor" in block]
    workdir = tmp_path / "home"
    workdir.mkdir()
    doctor = subprocess.run(
        follow(doctor_command), shell=True, cwd=workdir, capture_output=True, text=True, timeout=60, check=False
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "replies come to games+TOKEN@club.test" in doctor.stdout
    for check in ("sending", "sending limit", "password", "mailbox", "submission"):
        assert f"\n{check}: ok\n" in doctor.stdout, check
    assert doctor.stdout.rstrip().endswith("club.test is ready for mail"), doctor.stdout

    # Then start pbm with that environment, as deploy/pbm.service does (EnvironmentFile=).
    server = ServeProcess(database_url, workdir, env=settings)
    server.start()
    try:
        alice, bob = provider.mailbox(ALICE), provider.mailbox(BOB)
        asked = time.monotonic()
        provider.send(ALICE, mail(ALICE, "help", to=CLUB))
        (answer,) = alice.wait(1, timeout=10)
        assert time.monotonic() - asked < 10, "the answer comes within seconds"
        assert answer["From"].addresses[0].addr_spec == CLUB
        play_a_game(provider, alice, bob)
        health = server.healthz().json()
        assert health["mailbox"]["state"] == "reading" and health["submission"]["state"] == "sending"
        assert health["daily_limit"]["limit"] == int(settings["PBM_OUTBOUND_MAX_PER_DAY"])
        assert provider.count("INBOX") == 0, "every mail read is moved out of INBOX"
    finally:
        server.stop()


def play_a_game(provider: PostfixProvider, alice, bob) -> None:
    """Signups (each address confirmed by a reply), a challenge, moves by command and by reply, a resign."""
    for player, box, userid in ((ALICE, alice, "alice"), (BOB, bob, "bob")):
        provider.send(player, mail(player, f"signup {userid} {userid}-pw", to=CLUB))
        (welcome,) = box.wait(1)
        confirming = confirmation_reply(welcome)
        if confirming is not None:
            provider.send(player, confirming)
            box.wait(1)
    provider.send(ALICE, mail(ALICE, "cephalopod challenge alice bob", to=CLUB))
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=2)
    boards = {ALICE: alice.wait(1)[0], BOB: bob.wait(1)[0]}
    for ply in range(1, 7):
        mover = (ALICE, BOB)[state.to_move]
        move = engine.legal_moves(state)[0]
        provider.send(mover, reply_to_board(boards[mover], mover, move))  # to games+TOKEN@club.test
        state = engine.play(state, move)
        boards = {ALICE: alice.wait(1)[0], BOB: bob.wait(1)[0]}
        assert engine.render(state).rstrip() in body_of(boards[BOB]), f"ply {ply}"
    provider.send(ALICE, reply_to_board(boards[ALICE], ALICE, "resign"))
    assert all("won by bob" in m["Subject"] for m in (alice.wait(1)[0], bob.wait(1)[0]))


def test_the_doctor_of_the_admins_page_says_when_the_provider_refuses_the_password(provider, tmp_path):
    etc = tmp_path / "etc-pbm"
    etc.mkdir()
    follow = Followed(provider, etc)
    (etc / "mailbox-password").write_text("not-the-app-password\n")
    (etc / "mailbox-password").chmod(0o600)
    ca_line = re.search(r"`(PBM_MAIL_CA_FILE=[^`]+)`", DOC.read_text())
    assert ca_line is not None
    (etc / "environment").write_text(follow(blocks("ini")[0]) + follow(ca_line[1]) + "\n")
    (etc / "provider-ca.pem").write_bytes(provider.dovecot.cert.read_bytes())
    (doctor_command,) = [block for block in blocks("sh") if "pbm doctor" in block]
    doctor = subprocess.run(
        follow(doctor_command), shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=90, check=False
    )
    assert doctor.returncode == 1, doctor.stdout
    assert "mailbox: wrong" in doctor.stdout and "the login was refused" in doctor.stdout
    assert "submission: wrong" in doctor.stdout and "login refused" in doctor.stdout
    assert "not-the-app-password" not in doctor.stdout + doctor.stderr
    assert doctor.stdout.rstrip().endswith("club.test is not ready for mail: mailbox, submission to mend")
