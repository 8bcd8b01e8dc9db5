"""`pbm backup` and `pbm restore`: a copy taken while the server plays restores to a database
that serves every game as the copy had it, and a restore refuses what it must not do."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from alembic import command

from pbm.cli import main
from pbm.store.database import Database, alembic_config
from tests.faults.audit import Tables
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Match, challenge, new_player, post, send_and_wait, signup

MATCHES = 3
MOVES_BEFORE = 4
"""Moves each game has before the copy is taken; more are played while it is taken."""
MOVES_DURING = 6


def pbm(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pbm", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


def moves_by_game(tables: Tables) -> dict[tuple[str, int], list[str]]:
    games: dict[tuple[str, int], list[str]] = {}
    for move in tables.moves():
        games.setdefault((move.game_type, move.board), []).append(move.notation)
    return games


def an_empty_database_beside(url: str, folder: Path, postgres_databases) -> str:
    """Where the copy is restored to: a new SQLite file, or a new (migrated, empty) PostgreSQL database."""
    if url.startswith("sqlite"):
        return f"sqlite:///{folder / 'restored.db'}"
    return postgres_databases.create()


def test_a_backup_taken_while_games_are_played_restores_a_database_serving_every_game(
    database_url, tmp_path, postgres_databases
):
    rng = random.Random(34)
    server = ServeProcess(database_url, tmp_path / "live", env=GENEROUS_LIMITS)
    tables = server.tables = Tables(database_url)
    server.start()
    try:
        matches = [Match("cephalopod", [new_player("b", rng), new_player("b", rng)]) for _ in range(MATCHES)]
        for match in matches:
            send_and_wait(server, *(signup(player) for player in match.players))
            send_and_wait(server, challenge("cephalopod", match.players))
            match.board = tables.board_of("cephalopod", match.userids)
            send_and_wait(server, *(match.move_letter(rng)[0] for _ in range(MOVES_BEFORE)))
        before = moves_by_game(tables)

        def keep_playing() -> None:
            for _ in range(MOVES_DURING):
                for match in matches:
                    if not match.over:
                        post(server.smtp_port, match.move_letter(rng)[0])

        playing = threading.Thread(target=keep_playing)
        playing.start()
        copy = tmp_path / "copy"
        backed_up = pbm(server.env, "backup", str(copy), cwd=server.workdir)
        playing.join(300)
        assert backed_up.returncode == 0, backed_up.stderr
        assert f"backed up to {copy}" in backed_up.stdout
        wait_for(lambda: not tables.pending(), 60)
        after = moves_by_game(tables)
    finally:
        server.stop()
        tables.close()

    restored_url = an_empty_database_beside(database_url, tmp_path, postgres_databases)
    restoring = pbm({**server.env, "PBM_DATABASE_URL": restored_url}, "restore", str(copy), cwd=server.workdir)
    assert restoring.returncode == 0, restoring.stderr
    restored_tables = Tables(restored_url)
    try:
        restored = moves_by_game(restored_tables)
    finally:
        restored_tables.close()
    # The copy is one moment between the two: every game, each with what it had by then.
    assert set(restored) == set(before)
    for game, moves in restored.items():
        assert before[game] == moves[: len(before[game])]
        assert after[game][: len(moves)] == moves

    again = ServeProcess(restored_url, tmp_path / "restored", env=GENEROUS_LIMITS)
    again.env["PBM_SECRET_KEY"] = server.secret_key
    again.start()
    try:
        for (game_type, board), moves in restored.items():
            page = httpx.get(f"http://127.0.0.1:{again.http_port}/api/{game_type}/{board}", timeout=30)
            assert page.status_code == 200
            assert [move["notation"] for move in page.json()["moves"]] == moves
    finally:
        again.stop()
        if not restored_url.startswith("sqlite"):
            postgres_databases.drop(restored_url)


# -- what a restore refuses ------------------------------------------------------------


@pytest.fixture
def club_home(tmp_path, monkeypatch, sqlite_template):
    """A data directory whose database holds a player, as a club's does."""
    monkeypatch.delenv("PBM_DATABASE_URL", raising=False)
    monkeypatch.delenv("PBM_CONFIG", raising=False)
    monkeypatch.setenv("PBM_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    live = tmp_path / "home" / "pbm.db"
    live.write_bytes(sqlite_template.read_bytes())
    with sqlite3.connect(live) as connection:
        connection.execute(
            "INSERT INTO players (userid, password_hash, created_at) VALUES ('alice', 'x', '2026-01-01 00:00:00')"
        )
    return tmp_path / "home"


def players_in(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [row[0] for row in connection.execute("SELECT userid FROM players ORDER BY userid")]


def a_copy(club_home: Path, capsys) -> Path:
    assert main(["backup"]) == 0
    capsys.readouterr()
    (copy,) = (club_home / "backups").iterdir()
    return copy


def test_a_restore_refuses_to_replace_a_database_that_holds_data_without_force(club_home, capsys):
    copy = a_copy(club_home, capsys)
    with sqlite3.connect(club_home / "pbm.db") as connection:
        connection.execute("UPDATE players SET userid = 'bob'")
    assert main(["restore", str(copy)]) == 1
    assert "--force" in capsys.readouterr().err
    assert players_in(club_home / "pbm.db") == ["bob"]


def test_a_forced_restore_keeps_a_backup_of_the_database_it_replaces(club_home, capsys):
    copy = a_copy(club_home, capsys)
    with sqlite3.connect(club_home / "pbm.db") as connection:
        connection.execute("UPDATE players SET userid = 'bob'")
    assert main(["restore", "--force", str(copy)]) == 0
    assert players_in(club_home / "pbm.db") == ["alice"]
    kept = [path for path in (club_home / "backups").iterdir() if path != copy]
    assert [players_in(path) for path in kept] == [["bob"]]


def test_a_restore_refuses_a_file_that_is_not_a_database(club_home, tmp_path, capsys):
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    assert main(["restore", "--force", str(junk)]) == 1
    assert "is not an SQLite database" in capsys.readouterr().err
    assert players_in(club_home / "pbm.db") == ["alice"]


def test_a_restore_refuses_a_database_that_is_not_pbms(club_home, tmp_path, capsys):
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE recipes (name TEXT)")
    assert main(["restore", "--force", str(other)]) == 1
    assert "is not a pbm database" in capsys.readouterr().err
    assert players_in(club_home / "pbm.db") == ["alice"]


def test_a_restore_refuses_a_copy_at_a_migration_this_version_does_not_know(club_home, capsys):
    copy = a_copy(club_home, capsys)
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    assert main(["restore", "--force", str(copy)]) == 1
    assert "0099_from_the_future, which this version of pbm does not know" in capsys.readouterr().err
    assert players_in(club_home / "pbm.db") == ["alice"]


def test_a_restore_refuses_a_copy_that_fails_its_integrity_check(club_home, tmp_path, capsys):
    copy = a_copy(club_home, capsys)
    damaged = bytearray(copy.read_bytes())
    page = 4096
    for offset in range(2 * page + 8, len(damaged) - page, page):  # every page's header after the first two
        damaged[offset : offset + 4] = b"\xff\xff\xff\xff"
    copy.write_bytes(bytes(damaged))
    assert main(["restore", "--force", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "integrity check" in err or "cannot be read" in err
    assert players_in(club_home / "pbm.db") == ["alice"]


def test_a_restore_into_a_new_database_needs_no_force_and_migrates_an_older_copy(club_home, tmp_path, capsys):
    older = tmp_path / "older.sqlite3"  # a copy made by an older pbm, at migration 0019
    database = Database(f"sqlite:///{older}")
    command.upgrade(alembic_config(database), "0019")
    database.dispose()
    (club_home / "pbm.db").unlink()
    assert main(["restore", str(older)]) == 0
    assert "migrated it to the newest schema" in capsys.readouterr().out
    Database(f"sqlite:///{club_home / 'pbm.db'}").check_schema()


def test_backups_beyond_the_number_kept_are_deleted_oldest_first(club_home, monkeypatch, capsys):
    monkeypatch.setenv("PBM_BACKUP_KEEP", "2")
    made = []
    for _ in range(4):
        assert main(["backup"]) == 0
        made.append(capsys.readouterr().out.split()[3])
    assert sorted(path.name for path in (club_home / "backups").iterdir()) == sorted(Path(p).name for p in made[-2:])


def test_a_postgresql_backup_without_pg_dump_says_so(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pg_dump to be found
    monkeypatch.setenv("PBM_HOME", str(tmp_path))
    monkeypatch.setenv("PBM_DATABASE_URL", "postgresql+psycopg://pbm:secret@127.0.0.1:1/pbm")
    assert main(["backup"]) == 1
    err = capsys.readouterr().err
    assert "pg_dump is not installed" in err
    assert "secret" not in err
