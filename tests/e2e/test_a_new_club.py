"""A new club as it meets pbm: every feature at once, through a real `pbm serve`, then a restore.

Each feature has tests of its own; this one crosses them, because the last wave's failures were
all at the crossings: the bots' thinking process died on the first Dodeca position it was sent
(only Cephalopod had ever crossed to it), and the backup left out the keys its restore needs
(no test restored on a home that had not made them). So here, on one server with its keys made on
first run as a club's are: a French player, a player who takes digests and the bots play all
three games by mail, some moves by reply and some by password; every bot turn must have been
searched; a game record is taken; then the club is backed up, stopped, and restored on a fresh
home, where the French player's reply to a board mail sent before the backup still plays and the
record taken before still verifies against the restored keys.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pbm.games
from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Letter, Player, letter, send_and_wait, sign_up_confirmed
from tests.support import body_of, read, reply_to_board

ALICE = Player("alice", "alice-secret-pw")
MARIE = Player("marie", "marie-secret-pw")
DAN = Player("dan", "dan-secret-pw")
BOT_SECONDS = "3"

ENGLISH_IN_A_FRENCH_MAIL = ("Board", "your move", "It is your turn", "played", "Reply to this mail")


@dataclass
class Home:
    """A club's home on one machine: its folder, database and server (keys made on first run)."""

    folder: Path
    server: ServeProcess

    @property
    def url(self) -> str:
        return self.server.env["PBM_DATABASE_URL"]


def a_home(folder: Path) -> Home:
    folder.mkdir(parents=True)
    database_url = f"sqlite:///{folder / 'pbm.db'}"
    server = ServeProcess(database_url, folder / "run", env={**GENEROUS_LIMITS, "PBM_BOT_SECONDS": BOT_SECONDS})
    # As a club installs it: the secret key and the signing keys are made in PBM_HOME on first run.
    del server.env["PBM_SECRET_KEY"]
    server.env["PBM_HOME"] = str(folder)
    server.env.pop("PBM_CONFIRM_ADDRESSES")
    return Home(folder, server)


def pbm_command(home: Home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pbm", *args],
        env=home.server.env,
        cwd=home.server.workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )


def mails_to(tables: Tables, player: Player) -> list[EmailMessage]:
    """The mails delivered to `player` (as delivery handed them over: the outbox keeps its tokens
    sealed), in the order the server sent them."""
    delivered = {str(m["Message-ID"]).strip(): m for m in map(read, maildir_files(tables.outbox_folder))}
    sent = [delivered[row.message_id.strip()] for row in tables.outbox() if row.message_id.strip() in delivered]
    return [m for m in sent if player.address in str(m["To"])]


def position(tables: Tables, game_type: str, board: int):
    engine = pbm.games.get(game_type)
    (row,) = tables._rows(
        "SELECT state, secret, status, move_count FROM games WHERE game_type = :g AND board = :b", g=game_type, b=board
    )
    return engine.resume(row.state if isinstance(row.state, dict) else json.loads(row.state), row.secret), row


def seat_userids(tables: Tables, game_type: str, board: int) -> list[str]:
    rows = tables._rows(
        "SELECT players.userid FROM seats JOIN games ON games.id = seats.game_id"
        " JOIN players ON players.id = seats.player_id"
        " WHERE games.game_type = :g AND games.board = :b ORDER BY seats.seat",
        g=game_type,
        b=board,
    )
    return [r.userid for r in rows]


PEOPLE = {p.userid: p for p in (ALICE, MARIE, DAN)}


def play_a_round(home: Home, tables: Tables, game_type: str, board: int, rng: random.Random) -> str:
    """Whoever is to move at the board moves: a person by mail (marie replies to her last board
    mail, the others send the command with their password), a bot by itself; returns who moved."""
    engine = pbm.games.get(game_type)
    state, row = position(tables, game_type, board)
    assert row.status == "active"
    mover = seat_userids(tables, game_type, board)[state.to_move]
    if mover in PEOPLE:
        settled(tables)  # the mail that told them it is their turn has gone out
        player = PEOPLE[mover]
        move = rng.choice(engine.legal_moves(state))
        if player is MARIE:
            sent = reply(last_board_mail(tables, MARIE, game_type), MARIE, move)
        else:
            sent = letter(
                player.address, f"{game_type} move {board} {player.userid} {player.password} {move}", kind="move"
            )
        send_and_wait(home.server, sent)
    moved = wait_for(lambda: position(tables, game_type, board)[1].move_count > row.move_count, timeout=60)
    assert moved, f"{mover} moved at {game_type} {board}"
    return mover


def last_board_mail(tables: Tables, player: Player, game_type: str) -> EmailMessage:
    """The last mail `player` got about board 101 of `game_type` that can be answered by a reply."""
    engine = pbm.games.get(game_type)
    about = [m for m in mails_to(tables, player) if m["Reply-To"] and engine.title in str(m["Subject"])]
    return about[-1]


def reply(board_mail: EmailMessage, player: Player, move: str) -> Letter:
    """`player`'s reply to `board_mail`, the move on its first line, sent to its reply address."""
    raw = reply_to_board(board_mail, player.address, move)
    return Letter(
        player.address, raw, str(read(raw)["Message-ID"]), "reply", to=board_mail["Reply-To"].addresses[0].addr_spec
    )


def settled(tables: Tables) -> None:
    """Until every mail received is processed and every mail queued has been handed over."""
    assert wait_for(
        lambda: all(row.status != "pending" for row in tables.inbound())
        and all(row.status != "pending" for row in tables.outbox()),
        timeout=60,
    )


def bots_answered_without_searching(home: Home) -> list[str]:
    log = home.server.log_path.read_text(errors="replace")
    return [line for line in log.splitlines() if "without searching" in line or "Pool not running" in line]


def test_a_new_club_plays_all_three_games_with_a_french_player_a_digest_player_and_bots_then_restores(
    tmp_path,
):
    rng = random.Random(2026)
    first = a_home(tmp_path / "first-machine")
    assert pbm_command(first, "db", "upgrade").returncode == 0  # as `make run` does
    first.server.start()
    tables = first.server.tables = Tables(first.url)
    tables.outbox_folder = first.server.outbox
    try:
        sign_up_confirmed(first.server, ALICE, MARIE, DAN)
        send_and_wait(
            first.server,
            letter(MARIE.address, f"language marie {MARIE.password} fr", kind="language", replies=1),
            letter(DAN.address, f"digest dan {DAN.password} 07:30", kind="digest", replies=1),
            letter(ALICE.address, "cephalopod challenge alice marie bot2", kind="challenge", replies=2),
            letter(MARIE.address, "dodeca challenge marie bot1", kind="challenge", replies=1),
            letter(DAN.address, "cubeo challenge dan bot1", kind="challenge", replies=1),
        )
        for _ in range(6):
            for game_type in ("cephalopod", "dodeca", "cubeo"):
                if position(tables, game_type, 101)[1].status == "active":
                    play_a_round(first, tables, game_type, 101, rng)
        # Every game had bot turns, and every one of them was searched, Dodeca's too.
        bot_moves = tables._rows(
            "SELECT count(*) AS n FROM moves JOIN seats ON seats.game_id = moves.game_id AND seats.seat = moves.seat"
            " JOIN players ON players.id = seats.player_id WHERE players.bot_level IS NOT NULL"
        )[0].n
        assert bot_moves >= 6
        assert bots_answered_without_searching(first) == []

        french = [m for m in mails_to(tables, MARIE) if "101" in str(m["Subject"])]
        assert french, "marie got her board mails"
        for message in french:
            text = f"{message['Subject']}\n{body_of(message)}"
            assert not [words for words in ENGLISH_IN_A_FRENCH_MAIL if words in text], text
        # The digest player's turns wait for the digest: no mail telling dan of bot1's move came by itself
        # (the answers to his own moves do).
        assert [m for m in mails_to(tables, DAN) if body_of(m).startswith("bot1")] == []
        assert [row for row in tables.outbox() if row.recipient == DAN.address and row.status == "held"]

        # Dodeca: it is marie's turn again once bot1 has answered; her reply waits until after the restore.
        state, row = position(tables, "dodeca", 101)
        if seat_userids(tables, "dodeca", 101)[state.to_move] != "marie":
            wait_for(lambda: position(tables, "dodeca", 101)[1].move_count > row.move_count, timeout=60)
        settled(tables)
        old_board_mail = last_board_mail(tables, MARIE, "dodeca")
        for document in ("record.json", "record.proof.json"):  # the record, and its proof beside it
            url = f"http://127.0.0.1:{first.server.http_port}/dodeca/101/{document}"
            (tmp_path / document).write_bytes(urllib.request.urlopen(url, timeout=30).read())

        copy = tmp_path / "club-backup"
        backed_up = pbm_command(first, "backup", str(copy))
        assert backed_up.returncode == 0, backed_up.stderr
    finally:
        first.server.stop()
        tables.close()

    # A new machine: nothing of the first one but the backup.
    second = a_home(tmp_path / "second-machine")
    restored = pbm_command(second, "restore", str(copy))
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert (second.folder / "secret.key").exists() and any((second.folder / "signing").iterdir())
    verified = pbm_command(
        second,
        "verify",
        "--keys",
        str(second.folder / "signing"),
        str(tmp_path / "record.json"),
        "--proof",
        str(tmp_path / "record.proof.json"),
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr

    second.server.start()
    tables = second.server.tables = Tables(second.url)
    tables.outbox_folder = second.server.outbox
    try:
        # marie answers the board mail the first machine sent her, before the backup.
        state, row = position(tables, "dodeca", 101)
        move = rng.choice(pbm.games.get("dodeca").legal_moves(state))
        send_and_wait(second.server, reply(old_board_mail, MARIE, move))
        assert wait_for(lambda: position(tables, "dodeca", 101)[1].move_count > row.move_count + 1, timeout=60), (
            "marie's old reply address plays on the restored club, and bot1 answers there"
        )
        assert bots_answered_without_searching(second) == []
    finally:
        second.server.stop()
        tables.close()
