"""Configuration: PBM_* variables, their defaults, and clear refusals."""

from datetime import timedelta
from pathlib import Path

import pytest

from pbm.config import ConfigError, ListenAddress, Outbound, Settings, load_settings, secret_key


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in (
        "DATABASE_URL",
        "SMTP_LISTEN",
        "HTTP_LISTEN",
        "ADDRESS",
        "OUTBOUND",
        "SECRET_KEY",
        "PUBLIC_URL",
        "ADMIN_CONTACT",
    ):
        monkeypatch.delenv(f"PBM_{name}", raising=False)


def test_the_defaults_run_a_complete_server_on_this_machine():
    settings = load_settings()
    assert settings.database_url == "sqlite:///var/pbm.db"
    assert settings.smtp_listen == ListenAddress("127.0.0.1", 2525)
    assert settings.http_listen == ListenAddress("127.0.0.1", 8080)
    assert settings.address == "pbm@localhost"
    assert settings.outbound == Outbound("maildir", path=Path("var/outbox"))


def test_variables_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("PBM_SMTP_LISTEN", "0.0.0.0:25")
    monkeypatch.setenv("PBM_HTTP_LISTEN", "[::1]:8000")
    monkeypatch.setenv("PBM_ADDRESS", "games@Example.ORG")
    monkeypatch.setenv("PBM_OUTBOUND", "smtp://relay.example.org:587")
    monkeypatch.setenv("PBM_DATABASE_URL", "postgresql+psycopg://pbm@db/pbm")
    settings = load_settings()
    assert settings.smtp_listen == ListenAddress("0.0.0.0", 25)
    assert settings.http_listen == ListenAddress("::1", 8000)
    assert settings.address == "games@example.org"
    assert settings.outbound == Outbound("smtp", host="relay.example.org", port=587)
    assert settings.database_url.startswith("postgresql")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("PBM_SMTP_LISTEN", "2525", "PBM_SMTP_LISTEN: expected host:port"),
        ("PBM_HTTP_LISTEN", "localhost:http", "PBM_HTTP_LISTEN: expected host:port"),
        ("PBM_ADDRESS", "pbm+x@localhost", "PBM_ADDRESS: expected a plain address"),
        ("PBM_OUTBOUND", "mbox:/tmp/x", "PBM_OUTBOUND: expected maildir:FOLDER or smtp://HOST:PORT"),
        ("PBM_DATABASE_URL", "mysql://x", "PBM_DATABASE_URL: expected sqlite:///FILE"),
        ("PBM_FIRST_RETRY_SECONDS", "0", "PBM_FIRST_RETRY_SECONDS: Input should be greater than 0"),
        ("PBM_PUBLIC_URL", "games.example.org", "PBM_PUBLIC_URL: expected the pages' address"),
        ("PBM_PUBLIC_URL", "https://admin:hunter2@games.example.org", "PBM_PUBLIC_URL: must not hold a user name"),
        ("PBM_PUBLIC_URL", "https://games.example.org/?token=1", "PBM_PUBLIC_URL: expected a plain path"),
        ("PBM_ADMIN_CONTACT", "the admin", "PBM_ADMIN_CONTACT: expected a plain address"),
        ("PBM_DKIM_SELECTOR", "pbm 2026", "PBM_DKIM_SELECTOR: expected a selector such as pbm2026"),
        ("PBM_OUTBOUND", "maildir:", "PBM_OUTBOUND: maildir: needs a folder"),
        ("PBM_OUTBOUND", "smtp://relay.example.org:port", "PBM_OUTBOUND: bad port in"),
        ("PBM_OUTBOUND", "smtp://:25", "PBM_OUTBOUND: smtp:// needs a host"),
        ("PBM_PUBLIC_URL", "https://games.example.org:0", "PBM_PUBLIC_URL: bad port in"),
        ("PBM_PUBLIC_URL", "https://games.example.org:http", "PBM_PUBLIC_URL: bad port in"),
        ("PBM_TRUSTED_AUTHSERV_ID", "mx example org", "PBM_TRUSTED_AUTHSERV_ID: expected the host name the MTA"),
        ("PBM_REPLY_REQUIRES_DMARC_PASS", "on", "PBM_REPLY_REQUIRES_DMARC_PASS: needs PBM_TRUSTED_AUTHSERV_ID"),
        ("PBM_LANGUAGE", "klingon", "PBM_LANGUAGE: expected one of en, fr"),
        ("PBM_ADMINS", "alice, Bob!", "PBM_ADMINS: not userids: bob!"),
        ("PBM_BOTS_ANSWER_SEEKS", "0h", "PBM_BOTS_ANSWER_SEEKS: expected off, or a span such as 30m"),
    ],
)
def test_a_bad_variable_stops_the_start_naming_it(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


@pytest.mark.parametrize(("value", "confirmed"), [(None, True), ("on", True), ("off", False)])
def test_addresses_are_confirmed_unless_a_club_turns_it_off(monkeypatch, value, confirmed):
    if value is None:
        monkeypatch.delenv("PBM_CONFIRM_ADDRESSES", raising=False)
    else:
        monkeypatch.setenv("PBM_CONFIRM_ADDRESSES", value)
    assert load_settings().club.confirm_addresses is confirmed


def test_forfeiting_before_the_reminder_stops_the_start(monkeypatch):
    monkeypatch.setenv("PBM_NAGTIME", "5d")
    monkeypatch.setenv("PBM_FORFEITTIME", "3d")
    with pytest.raises(ConfigError, match="PBM_FORFEITTIME must be longer than PBM_NAGTIME"):
        load_settings()


def test_a_configuration_file_that_cannot_be_read_stops_the_start_naming_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PBM_CONFIG", str(tmp_path / "nowhere.toml"))
    with pytest.raises(ConfigError, match="cannot read the configuration file .*nowhere.toml: No such file"):
        load_settings()
    broken = tmp_path / "pbm.toml"
    broken.write_text('address = "pbm@example.org\n')
    monkeypatch.setenv("PBM_CONFIG", str(broken))
    with pytest.raises(ConfigError, match="pbm.toml is not valid TOML"):
        load_settings()


def test_a_secret_key_file_too_short_to_be_safe_is_refused_not_used(tmp_path):
    (tmp_path / "secret.key").write_text("short\n")
    with pytest.raises(ConfigError, match="holds a key shorter than 32 characters; delete it"):
        secret_key(Settings(), tmp_path)


def test_the_secret_key_is_made_once_and_kept(tmp_path):
    settings = load_settings()
    first = secret_key(settings, tmp_path)
    assert secret_key(settings, tmp_path) == first
    assert (tmp_path / "secret.key").stat().st_mode & 0o777 == 0o600


def test_a_secret_key_from_the_environment_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("PBM_SECRET_KEY", "from-the-environment-" + "x" * 20)
    assert secret_key(load_settings(), tmp_path).startswith(b"from-the-environment-")
    assert not (tmp_path / "secret.key").exists()


def test_without_a_public_url_or_an_administrator_nothing_is_guessed():
    settings = load_settings()
    assert (settings.public_url, settings.admin_contact) == (None, None)


def test_the_public_url_is_kept_without_its_trailing_slash(monkeypatch):
    monkeypatch.setenv("PBM_PUBLIC_URL", "https://Games.Example.org/pbm/")
    monkeypatch.setenv("PBM_ADMIN_CONTACT", "ops@Example.org")
    settings = load_settings()
    assert settings.public_url == "https://games.example.org/pbm"
    assert settings.admin_contact == "ops@example.org"


@pytest.mark.parametrize(
    ("name", "bare", "spelled", "field", "value"),
    [
        ("PBM_SMTP_IDLE_SECONDS", "90", "90s", "smtp_idle_seconds", 90),
        ("PBM_HTTP_IDLE_SECONDS", "120", "2m", "http_idle_seconds", 120),
        ("PBM_TIME_PASS_SECONDS", "30", "0.5m", "time_pass_seconds", 30),
        ("PBM_FIRST_RETRY_SECONDS", "3600", "1h", "first_retry_seconds", 3600),
        ("PBM_MAIL_READ_SECONDS", "2.5", "2.5s", "mail_read_seconds", 2.5),
        ("PBM_DATABASE_TIMEOUT", "10", "10s", "database_timeout", 10),
        ("PBM_STUCK_AFTER", "900", "15m", "stuck_after", 900),
        ("PBM_OPEN_CHALLENGE_HOURS", "48", "2d", "open_challenge_hours", 48),
        ("PBM_PASSWORD_RESET_HOURS", "0.5", "30m", "password_reset_hours", 0.5),
        ("PBM_VACATION_DAYS", "14", "336h", "vacation_days", 14),
        ("PBM_NAGTIME", "3", "3d", "nagtime", timedelta(days=3)),
        ("PBM_FORFEITTIME", "30", "720h", "forfeittime", timedelta(days=30)),
        ("PBM_BOT_SECONDS", "90", "1.5m", "bot_seconds", 90),
        ("PBM_BOTS_ANSWER_SEEKS", "2", "120m", "bots_answer_seeks", timedelta(hours=2)),
    ],
)
def test_a_span_of_time_takes_one_spelling_and_a_bare_number_keeps_its_unit(
    monkeypatch, name, bare, spelled, field, value
):
    monkeypatch.setenv(name, bare)
    assert getattr(load_settings(), field) == value
    monkeypatch.setenv(name, spelled)
    assert getattr(load_settings(), field) == value
    monkeypatch.setenv(name, spelled.upper())
    assert getattr(load_settings(), field) == value


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("PBM_TIME_PASS_SECONDS", "a minute", "PBM_TIME_PASS_SECONDS: .*expected a number, or one with a unit: 7d"),
        ("PBM_STUCK_AFTER", "10w", "PBM_STUCK_AFTER: .*7d, 12h, 30m or 30s"),
        ("PBM_VACATION_DAYS", "12h", "PBM_VACATION_DAYS: .*fractional part"),
        ("PBM_VACATION_DAYS", "400d", "PBM_VACATION_DAYS: .*less than or equal to 365"),
        ("PBM_NAGTIME", "30m", "PBM_NAGTIME: .*at least an hour"),
        ("PBM_FORFEITTIME", "-3", "PBM_FORFEITTIME: .*expected a number"),
        ("PBM_DATABASE_TIMEOUT", "0s", "PBM_DATABASE_TIMEOUT: Input should be greater than 0"),
        ("PBM_BOT_SECONDS", "0", "PBM_BOT_SECONDS: Input should be greater than 0"),
        ("PBM_BOTS_ANSWER_SEEKS", "soon", "PBM_BOTS_ANSWER_SEEKS: .*expected a number, or one with a unit"),
    ],
)
def test_a_span_that_cannot_be_read_or_is_out_of_range_stops_the_start(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_the_club_takes_its_spans_from_the_settings(monkeypatch):
    monkeypatch.setenv("PBM_OPEN_CHALLENGE_HOURS", "3d")
    monkeypatch.setenv("PBM_PASSWORD_RESET_HOURS", "90m")
    monkeypatch.setenv("PBM_VACATION_DAYS", "2")
    club = load_settings().club
    assert club.open_challenge_expiry == timedelta(days=3)
    assert club.password_reset_expiry == timedelta(minutes=90)
    assert club.vacation_allowance == timedelta(days=2)


def test_bots_play_unrated_and_take_no_seek_unless_the_club_says_so(monkeypatch):
    club = load_settings().club
    assert (club.rate_bot_games, club.bots_answer_seeks) == (False, None)
    monkeypatch.setenv("PBM_RATE_BOT_GAMES", "on")
    monkeypatch.setenv("PBM_BOTS_ANSWER_SEEKS", "30m")
    club = load_settings().club
    assert (club.rate_bot_games, club.bots_answer_seeks) == (True, timedelta(minutes=30))
    monkeypatch.setenv("PBM_BOTS_ANSWER_SEEKS", "off")
    assert load_settings().club.bots_answer_seeks is None


def test_one_players_games_with_bots_are_capped_at_four_unless_the_club_says_otherwise(monkeypatch):
    assert load_settings().club.bot_games_per_player == 4
    monkeypatch.setenv("PBM_BOT_GAMES_PER_PLAYER", "2")
    assert load_settings().club.bot_games_per_player == 2
