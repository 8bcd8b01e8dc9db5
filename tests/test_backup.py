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


# -- what a restore must not run over ----------------------------------------------------


@pytest.fixture
def club_url(database_url, tmp_path, monkeypatch):
    """`database_url` as the club's database (a player in it), with PBM_HOME in `tmp_path`."""
    monkeypatch.delenv("PBM_CONFIG", raising=False)
    monkeypatch.setenv("PBM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", "k" * 40)
    database = Database(database_url)
    with database.engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO players (userid, password_hash, created_at) VALUES ('alice', 'x', '2026-01-01 00:00:00')"
        )
    database.dispose()
    return database_url


def userids(url: str) -> list[str]:
    database = Database(url)
    try:
        with database.engine.connect() as connection:
            return [row[0] for row in connection.exec_driver_sql("SELECT userid FROM players ORDER BY userid")]
    finally:
        database.dispose()


def test_a_restore_refuses_to_run_while_a_server_holds_the_database(club_url, tmp_path, capsys):
    from pbm.config import load_settings
    from pbm.serving.server import Server, ServerThread

    copy = tmp_path / "copy"
    assert main(["backup", str(copy)]) == 0
    database = Database(club_url)
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE players SET userid = 'bob'")
    database.dispose()
    settings = load_settings(smtp_listen="127.0.0.1:0", http_listen="127.0.0.1:0")
    with ServerThread(Server(settings)):
        capsys.readouterr()
        assert main(["restore", "--force", str(copy)]) == 1
        assert "a server holds the database" in capsys.readouterr().err
        assert userids(club_url) == ["bob"], "nothing was restored under the running server"
    assert main(["restore", "--force", str(copy)]) == 0, "once it stopped"
    assert userids(club_url) == ["alice"]


def test_a_server_does_not_start_while_a_restore_holds_the_database(club_url):
    from pbm.config import ConfigError, load_settings
    from pbm.serving.server import Server, ServerThread
    from pbm.store.holding import exclusively

    database = Database(club_url)
    try:
        with exclusively(database), pytest.raises(ConfigError, match="a restore of the database is under way"):
            ServerThread(Server(load_settings(smtp_listen="127.0.0.1:0", http_listen="127.0.0.1:0"))).start()
    finally:
        database.dispose()


FOREIGN = {
    "sqlite": [
        "CREATE TRIGGER keep_my_hash AFTER UPDATE ON players BEGIN "
        "UPDATE players SET password_hash = 'attacker' WHERE id = NEW.id; END",
        "CREATE VIEW hashes AS SELECT userid, password_hash FROM players",
    ],
    "postgresql": [
        "CREATE FUNCTION keep_my_hash() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN NEW.password_hash := 'attacker'; RETURN NEW; END $$",
        "CREATE TRIGGER keep_my_hash BEFORE UPDATE ON players FOR EACH ROW EXECUTE FUNCTION keep_my_hash()",
        "CREATE VIEW hashes AS SELECT userid, password_hash FROM players",
    ],
}


def test_a_restore_refuses_a_copy_with_triggers_or_views_pbm_does_not_make(
    club_url, tmp_path, capsys, monkeypatch, postgres_databases
):
    database = Database(club_url)
    backend = "sqlite" if database.is_sqlite else "postgresql"
    with database.engine.begin() as connection:
        for statement in FOREIGN[backend]:
            connection.exec_driver_sql(statement)
    database.dispose()
    copy = tmp_path / "copy"
    assert main(["backup", str(copy)]) == 0
    capsys.readouterr()
    target = an_empty_database_beside(club_url, tmp_path, postgres_databases)
    try:
        monkeypatch.setenv("PBM_DATABASE_URL", target)
        assert main(["restore", str(copy)]) == 1
        err = capsys.readouterr().err
        assert "keep_my_hash" in err and "hashes" in err and "pbm does not make" in err
    finally:
        if not target.startswith("sqlite"):
            postgres_databases.drop(target)


def test_a_forced_restore_drops_the_triggers_and_views_it_would_leave_in_the_database(club_url, tmp_path, capsys):
    """pg_restore --clean drops what the archive holds; a trigger or view added to the live
    database would stay, and act on the restored data (or stop the restore). An SQLite restore
    replaces the whole file."""
    if club_url.startswith("sqlite"):
        pytest.skip("an SQLite restore keeps nothing of the database it replaces")
    copy = tmp_path / "copy"
    assert main(["backup", str(copy)]) == 0
    database = Database(club_url)
    with database.engine.begin() as connection:
        for statement in FOREIGN["postgresql"]:
            connection.exec_driver_sql(statement)
        connection.exec_driver_sql("UPDATE players SET userid = 'bob'")
    assert main(["restore", "--force", str(copy)]) == 0, capsys.readouterr().err
    assert "dropped the trigger keep_my_hash ON players" in capsys.readouterr().out
    with database.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE players SET password_hash = 'new'")
        hashes = [row[0] for row in connection.exec_driver_sql("SELECT password_hash FROM players")]
        views = connection.exec_driver_sql("SELECT viewname FROM pg_views WHERE schemaname = 'public'").all()
    database.dispose()
    assert hashes == ["new"] and views == []
    assert userids(club_url) == ["alice"]
