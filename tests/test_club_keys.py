"""One club, one signing identity: workers on one database, each with a data folder of its own
(as two hosts have), sign with the same key and make reply addresses with the same secret; a
worker with other keys refuses to start, saying what to copy; a rotation reaches every worker.
On SQLite and, with PBM_TEST_DATABASE_URL, PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from pbm.cli import main
from pbm.config import ConfigError, load_settings
from pbm.crypto.keys import SigningKeys
from pbm.serving.server import Server, ServerThread
from pbm.store.models import ClubKey

CLUB_SECRET = "the-club-secret-" + "s" * 30


def worker(database_url: str, home: Path, secret: str = CLUB_SECRET) -> Server:
    settings = load_settings(
        database_url=database_url,
        home=home,
        secret_key=secret,
        smtp_listen="127.0.0.1:0",
        http_listen="127.0.0.1:0",
        outbound=f"maildir:{home / 'outbox'}",
    )
    return Server(settings)


def started(server: Server) -> Server:
    """The worker started and stopped again, as a worker's restart does: what it agreed stays."""
    with ServerThread(server):
        pass
    return server


def test_two_workers_with_their_own_data_folders_sign_with_one_key(database_url, tmp_path):
    first = started(worker(database_url, tmp_path / "host-a"))
    second = started(worker(database_url, tmp_path / "host-b"))
    assert second.signing.key_id == first.signing.key_id
    assert SigningKeys.known(tmp_path / "host-b" / "signing") == SigningKeys.known(tmp_path / "host-a" / "signing")


def test_a_worker_with_another_secret_key_refuses_to_start_saying_what_to_copy(database_url, tmp_path):
    started(worker(database_url, tmp_path / "host-a"))
    stray = worker(database_url, tmp_path / "host-b", secret="another-secret-" + "x" * 30)
    with pytest.raises(ConfigError, match="PBM_SECRET_KEY.*is not the club's.*copy secret.key"):
        started(stray)


def test_a_worker_with_a_signing_key_the_club_does_not_know_refuses_to_start(database_url, tmp_path):
    first = started(worker(database_url, tmp_path / "host-a"))
    own = SigningKeys(tmp_path / "host-b" / "signing")
    stray_key = own.key_id  # made before the worker joined the club
    with pytest.raises(ConfigError, match=f"{stray_key}.*is not the club's.*{first.signing.key_id}"):
        started(worker(database_url, tmp_path / "host-b"))
    assert SigningKeys(tmp_path / "host-b" / "signing").key_id == stray_key, "its folder is left as it was"


def test_a_rotated_key_is_the_one_every_worker_signs_with_and_the_old_one_still_verifies(
    database_url, tmp_path, monkeypatch, capsys
):
    first = started(worker(database_url, tmp_path / "host-a"))
    started(worker(database_url, tmp_path / "host-b"))
    old = first.signing.key_id
    monkeypatch.setenv("PBM_HOME", str(tmp_path / "host-a"))
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", CLUB_SECRET)
    assert main(["keys", "rotate"]) == 0
    new = capsys.readouterr().out.split()[0]
    assert new != old
    again = started(worker(database_url, tmp_path / "host-b"))
    assert again.signing.key_id == new
    assert set(SigningKeys.known(tmp_path / "host-b" / "signing")) == {old, new}


def test_the_database_never_holds_a_private_key_in_clear(database_url, tmp_path):
    server = started(worker(database_url, tmp_path / "host-a"))
    private = (tmp_path / "host-a" / "signing" / "current.key").read_text().strip()
    with server.database.reading() as session:
        rows = session.scalars(select(ClubKey)).all()
    stored = " ".join(f"{row.key_id} {row.public_key} {row.sealed_private}" for row in rows)
    assert {row.kind for row in rows} == {"secret", "signing"}
    assert private not in stored and CLUB_SECRET not in stored
    assert server.signing.private_bytes().hex() == private


def test_a_running_worker_signs_with_the_key_another_host_rotated_to(database_url, tmp_path, monkeypatch, capsys):
    started(worker(database_url, tmp_path / "host-a"))
    running = worker(database_url, tmp_path / "host-b")
    with ServerThread(running):
        old = running.signing.key_id
        monkeypatch.setenv("PBM_HOME", str(tmp_path / "host-a"))
        monkeypatch.setenv("PBM_DATABASE_URL", database_url)
        monkeypatch.setenv("PBM_SECRET_KEY", CLUB_SECRET)
        assert main(["keys", "rotate"]) == 0
        new = capsys.readouterr().out.split()[0]
        running.follow_club_keys()  # what the running worker does every minute
        assert (old, running.signing.key_id) == (old, new)
        assert running.signing.sign(b"a receipt").key_id == new
