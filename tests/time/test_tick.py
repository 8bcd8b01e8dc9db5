"""``pbm tick``: the time pass once from the command line, and ``--now``, its rehearsal on the real data."""

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from pbm.cli import main as pbm_main
from pbm.store.models import OutboxMessage, utcnow
from tests.support import Clock
from tests.time.club import TimeClub


@pytest.fixture
def operated(database_url, tmp_path, monkeypatch, make_mailroom) -> TimeClub:
    """A game that began eight real days ago, bob to move, on the database `pbm` is configured with."""
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", "k" * 40)
    monkeypatch.chdir(tmp_path)
    clock = Clock(start=utcnow() - timedelta(days=8))
    club = TimeClub(make_mailroom(clock=clock), clock)
    club.sign_up("alice", "bob")
    club.send("alice", "cephalopod challenge alice bob")
    club.send("alice", "cephalopod move 101 alice alice-pw c3")
    club.replies()
    return club


def outbox_size(club: TimeClub) -> int:
    with club.room.database.reading() as session:
        return session.scalar(select(func.count()).select_from(OutboxMessage))


def test_a_rehearsal_says_what_the_pass_would_do_and_changes_nothing(operated: TimeClub, capsys):
    before = outbox_size(operated)
    later = (utcnow() + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M")
    assert pbm_main(["tick", "--now", later]) == 0
    out = capsys.readouterr().out
    assert f"time pass rehearsed as if at {later.replace('T', ' ')}" in out
    # Bob never moved: his forfeit calls the game off (`help ratings`).
    forfeit = "Cephalopod Board 101 cancelled -- bob forfeited on time (no move in 21 days)."
    assert f"would queue for alice: {forfeit}" in out and f"would queue for bob: {forfeit}" in out
    assert "nothing was changed: this was a rehearsal" in out
    assert outbox_size(operated) == before
    assert operated.moves() == ["c3"]
    assert operated.board().status == "active"


def test_tick_runs_the_pass_once_and_a_second_tick_finds_nothing_due(operated: TimeClub, capsys):
    assert pbm_main(["tick"]) == 0
    out = capsys.readouterr().out
    assert "queued for bob: Nag: Cephalopod Board 101 bob -- Cephalopod board 101 has waited for your move for 8" in out
    assert "delivered" in out
    assert pbm_main(["tick"]) == 0
    assert "nothing was due" in capsys.readouterr().out


def test_a_rehearsal_in_the_past_warns_that_it_shows_only_what_is_overdue(operated: TimeClub, capsys):
    earlier = (utcnow() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")
    assert pbm_main(["tick", "--now", earlier]) == 0
    captured = capsys.readouterr()
    assert f"warning: {earlier.replace('T', ' ')} UTC is in the past" in captured.err
    assert "shows only what is overdue; give a later time to see what is coming" in captured.err


def test_a_timestamp_that_is_not_one_is_refused(operated: TimeClub, capsys):
    with pytest.raises(SystemExit):
        pbm_main(["tick", "--now", "next tuesday"])
    assert "not an ISO 8601 timestamp" in capsys.readouterr().err


def test_a_rehearsal_says_what_it_would_hold_back_and_logs_no_warning_as_if_it_had(
    operated: TimeClub, capsys, monkeypatch, caplog
):
    operated.send("alice", "cephalopod challenge alice bob")
    operated.send("alice", "cephalopod move 102 alice alice-pw c3")
    monkeypatch.setenv("PBM_MAX_MAILS_PER_ADDRESS_PER_HOUR", "1")
    later = (utcnow() + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M")
    assert pbm_main(["tick", "--now", later]) == 0
    out = capsys.readouterr().out
    assert "a board mail would be held back: 1 mails were sent to this address within the hour" in out
    assert "held back" not in caplog.text
