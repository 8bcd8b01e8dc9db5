"""A backup carries the club on: restored on a new machine (a fresh PBM_HOME), the server
answers a reply to a board mail it sent before, and ``pbm verify --keys`` accepts a record it
signed before. Its secrets are readable by the server's user alone, whatever the umask, and
encrypted to an administrator's key when asked."""

from __future__ import annotations

import json
import mailbox
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from starlette.testclient import TestClient

from pbm.cli import main
from pbm.config import load_settings
from tests.support import mail, read

ALICE, BOB = "alice@example.org", "bob@example.net"


@dataclass
class Club:
    """A club's home with a game under way, and what its players and readers hold from it."""

    folder: Path
    home: Path
    reply_to: str
    """The Reply-To of the board mail the player to move got."""
    mover: str
    record: Path
    """The game's record.json, as a reader downloaded it (its proof, record.proof.json, beside it)."""


def process(folder: Path, sender: str, raw: bytes, to: str = "pbm@localhost") -> None:
    """The mail as the MTA pipes it to ``pbm process``."""
    path = folder / "mail.eml"
    path.write_bytes(raw)
    assert main(["process", str(path), "--sender", sender, "--recipient", to]) == 0


def delivered(home: Path) -> list:
    return [read(bytes(message)) for message in mailbox.Maildir(home / "outbox", create=False)]


def use_home(monkeypatch, home: Path) -> None:
    monkeypatch.setenv("PBM_HOME", str(home))


@pytest.fixture
def club(tmp_path, monkeypatch, capsys) -> Club:
    for name in ("PBM_DATABASE_URL", "PBM_SECRET_KEY", "PBM_CONFIG", "PBM_OUTBOUND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PBM_CONFIRM_ADDRESSES", "off")
    home = tmp_path / "old-host"
    use_home(monkeypatch, home)
    assert main(["db", "upgrade"]) == 0
    process(tmp_path, ALICE, mail(ALICE, "signup alice alice-pw"))
    process(tmp_path, BOB, mail(BOB, "signup bob bob-pw"))
    process(tmp_path, ALICE, mail(ALICE, "cephalopod challenge alice bob"))
    first = [  # alice, who challenged, moves first
        m for m in delivered(home) if "+" in str(m["Reply-To"] or "") and m["To"].addresses[0].addr_spec == ALICE
    ][0]
    from pbm.serving.server import Server

    server = Server(load_settings())
    try:
        web = TestClient(server.web)
        record = web.get("/cephalopod/101/record.json")
        proof = web.get("/cephalopod/101/record.proof.json")
    finally:
        server.close()
    assert record.status_code == 200 and proof.status_code == 200
    (tmp_path / "record.json").write_text(record.text)
    (tmp_path / "record.proof.json").write_text(proof.text)
    capsys.readouterr()
    reply_to, mover = first["Reply-To"].addresses[0].addr_spec, first["To"].addresses[0].addr_spec
    return Club(tmp_path, home, reply_to, mover, tmp_path / "record.json")


def reply_on(club: Club, monkeypatch, home: Path) -> str:
    """The player to move replies to the old board mail with a move, on the server at `home`;
    returns the subject and the text of the answer they get."""
    use_home(monkeypatch, home)
    before = {m["Message-ID"] for m in delivered(home)} if (home / "outbox").exists() else set()
    process(club.folder, club.mover, mail(club.mover, "c3", to=club.reply_to), club.reply_to)
    (answer,) = [
        m for m in delivered(home) if m["Message-ID"] not in before and m["To"].addresses[0].addr_spec == club.mover
    ]
    return str(answer["Subject"]) + "\n" + answer.get_content()


def verifies_with_keys_of(club, home) -> bool:
    """Whether `pbm verify` takes the club's record (and its proof) against the signing keys in `home`."""
    proof = club.record.with_name("record.proof.json")
    return main(["verify", str(club.record), "--proof", str(proof), "--keys", str(home / "signing")]) == 0


def test_a_backup_restored_on_a_new_machine_answers_old_board_mails_and_verifies_old_records(club, monkeypatch, capsys):
    copy = club.folder / "club.backup"
    assert main(["backup", str(copy)]) == 0
    new_home = club.folder / "new-host"
    use_home(monkeypatch, new_home)
    assert main(["restore", str(copy)]) == 0
    said = capsys.readouterr().out
    assert "restored the secret key" in said and "restored the signing keys" in said
    secret = (club.home / "secret.key").read_text().strip().encode()
    assert (new_home / "secret.key").read_text().strip().encode() == secret
    live = b"".join(path.read_bytes() for path in new_home.glob("pbm.db*"))
    assert secret not in live, "the keys the backup carried never reach the live database"
    answer = reply_on(club, monkeypatch, new_home)
    assert "not a reply address of this server" not in answer
    assert "Error" not in answer.splitlines()[0], answer
    assert verifies_with_keys_of(club, new_home)


def test_restoring_a_database_only_backup_still_works_and_says_the_keys_were_not_in_it(club, monkeypatch, capsys):
    old = club.folder / "old-style.sqlite3"  # what pbm backup wrote before it carried the keys
    with sqlite3.connect(club.home / "pbm.db") as source, sqlite3.connect(old) as target:
        source.backup(target)
    use_home(monkeypatch, club.folder / "new-host")
    assert main(["restore", str(old)]) == 0
    said = capsys.readouterr().out
    assert "the keys were not in it" in said
    assert "restored the secret key" not in said


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def umask(request) -> Iterator[int]:
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def private(path: Path) -> bool:
    return path.stat().st_mode & 0o077 == 0


def test_backups_and_the_database_are_readable_by_the_server_alone_whatever_the_umask(
    tmp_path, monkeypatch, umask, capsys
):
    for name in ("PBM_DATABASE_URL", "PBM_SECRET_KEY", "PBM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    use_home(monkeypatch, home)
    assert main(["db", "upgrade"]) == 0
    assert main(["keys", "show"]) == 0
    assert main(["backup"]) == 0
    assert main(["backup", str(tmp_path / "named.backup")]) == 0
    (made,) = (home / "backups").iterdir()
    written = [home / "pbm.db", made, tmp_path / "named.backup"]
    written += [path for path in home.glob("pbm.db-*")]  # the write-ahead log and its index
    assert [path.name for path in written if not private(path)] == []


# -- encrypted to the administrator's key ---------------------------------------------


@pytest.fixture
def admin_keys(tmp_path) -> tuple[Path, Path]:
    """An X25519 pair as ``openssl genpkey -algorithm x25519`` makes one: (private, public) PEM files."""
    key = X25519PrivateKey.generate()
    private_file, public_file = tmp_path / "backup-key.pem", tmp_path / "backup-key.pub.pem"
    private_file.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    public_file.write_bytes(key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    return private_file, public_file


def test_a_backup_encrypted_to_the_admins_key_shows_nothing_and_restores_with_the_private_key(
    club, admin_keys, monkeypatch, capsys
):
    private_file, public_file = admin_keys
    copy = club.folder / "club.sealed"
    assert main(["backup", "--encrypt-to", str(public_file), str(copy)]) == 0
    sealed = copy.read_bytes()
    secret = (club.home / "secret.key").read_text().strip().encode()
    signing = (club.home / "signing" / "current.key").read_text().strip().encode()
    assert b"SQLite format 3" not in sealed and secret not in sealed and signing not in sealed
    assert b"alice" not in sealed
    new_home = club.folder / "new-host"
    use_home(monkeypatch, new_home)
    capsys.readouterr()
    assert main(["restore", str(copy)]) == 1
    assert "--decrypt-with" in capsys.readouterr().err
    assert not (new_home / "secret.key").exists()
    assert main(["restore", "--decrypt-with", str(private_file), str(copy)]) == 0
    assert "restored the signing keys" in capsys.readouterr().out
    assert "not a reply address of this server" not in reply_on(club, monkeypatch, new_home)
    assert verifies_with_keys_of(club, new_home)


def test_an_encrypted_backup_is_refused_with_another_key_or_changed_by_one_byte(
    club, admin_keys, tmp_path, monkeypatch, capsys
):
    _, public_file = admin_keys
    copy = club.folder / "club.sealed"
    assert main(["backup", "--encrypt-to", str(public_file), str(copy)]) == 0
    other = X25519PrivateKey.generate()
    wrong = tmp_path / "wrong.pem"
    wrong.write_bytes(other.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    use_home(monkeypatch, club.folder / "new-host")
    capsys.readouterr()
    assert main(["restore", "--decrypt-with", str(wrong), str(copy)]) == 1
    assert "not encrypted to this key" in capsys.readouterr().err
    changed = bytearray(copy.read_bytes())
    changed[len(changed) // 2] ^= 1
    copy.write_bytes(bytes(changed))
    assert main(["restore", "--decrypt-with", str(admin_keys[0]), str(copy)]) == 1
    assert "changed or damaged" in capsys.readouterr().err
    assert json.loads(club.record.read_text())  # the reader's record is untouched by all this


def test_a_backup_naming_a_key_file_pbm_does_not_make_is_refused_and_writes_nothing(club, monkeypatch, capsys):
    copy = club.folder / "club.backup"
    assert main(["backup", str(copy)]) == 0
    with sqlite3.connect(copy) as connection:
        connection.execute("INSERT INTO pbm_backup_keys VALUES ('../outside.txt', 'planted')")
    new_home = club.folder / "new-host"
    use_home(monkeypatch, new_home)
    capsys.readouterr()
    assert main(["restore", str(copy)]) == 1
    assert "names a key file pbm does not make: '../outside.txt'" in capsys.readouterr().err
    assert not (club.folder / "outside.txt").exists() and not (new_home / "secret.key").exists()
    assert [path.name for path in new_home.iterdir() if path.name.startswith(".restore")] == []


def test_keys_come_back_with_a_database_of_either_engine(database_url, tmp_path, monkeypatch, postgres_databases):
    for name in ("PBM_SECRET_KEY", "PBM_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    use_home(monkeypatch, tmp_path / "old-host")
    assert main(["keys", "rotate"]) == 0  # a secret key, and a signing key rotated away and a current one
    copy = tmp_path / "club.backup"
    assert main(["backup", str(copy)]) == 0
    target = f"sqlite:///{tmp_path / 'new.db'}" if database_url.startswith("sqlite") else postgres_databases.create()
    try:
        monkeypatch.setenv("PBM_DATABASE_URL", target)
        use_home(monkeypatch, tmp_path / "new-host")
        assert main(["restore", str(copy)]) == 0
    finally:
        if not target.startswith("sqlite"):
            postgres_databases.drop(target)

    def files(home: Path) -> dict[str, str]:
        return {
            str(path.relative_to(home)): path.read_text()
            for path in sorted([home / "secret.key", *(home / "signing").iterdir()])
        }

    assert files(tmp_path / "new-host") == files(tmp_path / "old-host")
    assert len(files(tmp_path / "new-host")) == 4
