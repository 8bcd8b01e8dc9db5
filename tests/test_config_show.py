"""`pbm config show`: every effective setting, where it came from (the environment over the
TOML file over the default), and never a secret."""

from __future__ import annotations

import os
import string
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.cli import main
from pbm.config import ConfigError, load


@pytest.fixture(autouse=True)
def no_pbm_variables(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith("PBM_") or name == "STATE_DIRECTORY":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@contextmanager
def environment(**variables: str):
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def shown(capsys) -> dict[str, tuple[str, str]]:
    """``pbm config show`` as {variable: (value, source)}."""
    assert main(["config", "show"]) == 0
    rows = {}
    for line in capsys.readouterr().out.splitlines()[1:]:
        name, _, rest = line.partition(" ")
        value, _, source = rest.strip().rpartition("  (")
        rows[name] = (value, source.removesuffix(")"))
    return rows


SECRETS = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation, min_size=12, max_size=64)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=SECRETS, password=SECRETS, in_file=st.booleans())
def test_config_show_never_prints_a_secret_key_or_a_database_password(key, password, in_file, tmp_path, capsys):
    url = f"postgresql+psycopg://pbm:{quote(password, safe='')}@db.example.org:5432/pbm?password={quote(password)}"
    if in_file:
        file = tmp_path / "pbm.toml"
        file.write_text(f"secret_key = {_toml(key)}\ndatabase_url = {_toml(url)}\n")
        variables = {"PBM_CONFIG": str(file)}
    else:
        variables = {"PBM_SECRET_KEY": key, "PBM_DATABASE_URL": url}
    with environment(**variables):
        assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    for secret in (key, password, quote(password, safe=""), quote(password)):
        assert secret not in out
    assert "PBM_SECRET_KEY" in out and "(set)" in out
    assert "pbm:********@db.example.org:5432/pbm" in out


def _toml(text: str) -> str:
    """`text` as a TOML literal string, or a basic one with escapes when it holds a quote."""
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_each_setting_says_where_it_came_from_and_the_environment_wins_over_the_file(tmp_path, monkeypatch, capsys):
    file = tmp_path / "pbm.toml"
    file.write_text('address = "club@file.example"\nsmtp_listen = "127.0.0.1:2600"\nadmins = ["alice", "bob"]\n')
    monkeypatch.setenv("PBM_CONFIG", str(file))
    monkeypatch.setenv("PBM_SMTP_LISTEN", "127.0.0.1:2700")
    rows = shown(capsys)
    assert rows["PBM_ADDRESS"] == ("club@file.example", f"file {file}")
    assert rows["PBM_SMTP_LISTEN"] == ("127.0.0.1:2700", "environment")
    assert rows["PBM_ADMINS"] == ("alice,bob", f"file {file}")
    assert rows["PBM_HTTP_LISTEN"] == ("127.0.0.1:8080", "default")


def test_the_data_directory_places_the_database_the_outbox_and_the_file(tmp_path, monkeypatch, capsys):
    home = tmp_path / "state"
    home.mkdir()
    (home / "pbm.toml").write_text("backup_keep = 3\n")
    monkeypatch.setenv("STATE_DIRECTORY", str(home))  # as systemd sets it for StateDirectory=
    rows = shown(capsys)
    assert rows["PBM_HOME"][0] == str(home)
    assert rows["PBM_DATABASE_URL"][0] == f"sqlite:///{home}/pbm.db"
    assert rows["PBM_OUTBOUND"][0] == f"maildir:{home}/outbox"
    assert rows["PBM_BACKUP_KEEP"] == ("3", f"file {home / 'pbm.toml'}")


def test_a_misspelt_key_in_the_file_is_refused_by_name(tmp_path, monkeypatch):
    file = tmp_path / "pbm.toml"
    file.write_text('adress = "club@file.example"\n')
    monkeypatch.setenv("PBM_CONFIG", str(file))
    with pytest.raises(ConfigError, match="no such setting: adress"):
        load()


def test_a_bad_value_in_the_file_is_named_with_the_file(tmp_path, monkeypatch):
    file = tmp_path / "pbm.toml"
    file.write_text('smtp_listen = "nowhere"\n')
    monkeypatch.setenv("PBM_CONFIG", str(file))
    with pytest.raises(ConfigError, match=f"smtp_listen in {file}"):
        load()


def test_metrics_listen_on_a_port_alone_is_loopback(monkeypatch):
    monkeypatch.setenv("PBM_METRICS_LISTEN", "9108")
    listen = load().settings.metrics_listen
    assert (listen.host, listen.port) == ("127.0.0.1", 9108)


def test_no_file_and_no_variables_give_the_defaults_under_var(capsys):
    rows = shown(capsys)
    assert rows["PBM_HOME"] == ("var", "default")
    assert rows["PBM_DATABASE_URL"] == ("sqlite:///var/pbm.db", "default")
    assert rows["PBM_METRICS_LISTEN"] == ("(unset)", "default")
    assert not Path("var").exists()  # showing the settings makes nothing


def test_config_show_writes_spans_and_switches_as_settings_are_written(capsys):
    with environment(PBM_NAGTIME="36h", PBM_RATE_BOT_GAMES="on"):
        rows = shown(capsys)
    assert rows["PBM_NAGTIME"] == ("36h", "environment")
    assert rows["PBM_FORFEITTIME"] == ("21d", "default")
    assert rows["PBM_RATE_BOT_GAMES"] == ("on", "environment")
    assert rows["PBM_CONFIRM_ADDRESSES"] == ("on", "default")
    assert rows["PBM_OPEN_CHALLENGE_HOURS"] == ("168", "default")


def test_what_config_show_prints_reads_back_as_the_same_settings(capsys):
    printed = {name: value for name, (value, _) in shown(capsys).items() if not value.startswith("(")}
    with environment(**printed):
        again = load().settings
    assert again == load().settings
