"""The operator's view from the command line: what is stuck in the inbox and the outbox."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from pbm.cli import main as pbm_main
from pbm.store.models import InboundMessage, InboundStatus, OutboxMessage
from tests.mail.mailroom import Mailroom
from tests.support import mail


@pytest.fixture
def operator(database_url, tmp_path, monkeypatch, make_mailroom) -> Mailroom:
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", "k" * 40)
    monkeypatch.chdir(tmp_path)
    return make_mailroom()


def test_inbox_lists_mail_that_was_not_answered_but_not_what_was(operator, capsys):
    operator.send(mail("alice@example.org", "help"))
    operator.send(mail("alice@example.org", "help", headers={"Auto-Submitted": "auto-replied"}))
    assert pbm_main(["inbox"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "ignored" in line and "not answered: " in line


def test_inbox_counts_duplicates_and_lists_them_on_request(operator, capsys):
    raw = mail("alice@example.org", "help", message_id="<once@client.example>")
    first, copy = operator.send(raw), operator.send(raw)
    assert pbm_main(["inbox"]) == 0
    assert capsys.readouterr().out.splitlines() == ["1 copy recorded as duplicates, not listed: pbm inbox --duplicates"]
    assert pbm_main(["inbox", "--duplicates"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split()[:2] == [str(copy.id), "duplicate"]
    assert f"a copy of inbound message {first.id}" in line


def test_inbox_retry_processes_failed_mail_again_and_only_failed_mail(operator, capsys):
    failed = operator.send(mail("alice@example.org", "help"))
    answered = operator.send(mail("alice@example.org", "help"))
    with operator.database.transaction() as session:
        session.get(InboundMessage, failed.id).status = InboundStatus.FAILED  # as a bug, since fixed, left it
        replies_before = session.scalar(select(func.count()).select_from(OutboxMessage))
    assert pbm_main(["inbox", "--retry", str(failed.id), str(answered.id)]) == 1, "one of the two was not failed"
    out = capsys.readouterr().out.splitlines()
    assert out == [f"requeued 1 of 2: {failed.id} (only failed mail)", "processed 1"]
    with operator.database.reading() as session:
        assert session.get(InboundMessage, failed.id).status == InboundStatus.PROCESSED
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == replies_before + 1, "answered now"
    assert pbm_main(["inbox", "--retry", str(failed.id)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "requeued 0 of 1: none (only failed mail)"


def test_outbox_lists_what_waits_and_with_all_what_went(operator, capsys):
    operator.send(mail("alice@example.org", "help"))
    assert pbm_main(["outbox"]) == 0
    assert "pending" in capsys.readouterr().out
    asyncio.run(operator.server.delivery.deliver_due())  # into the maildir under tmp_path
    assert pbm_main(["outbox"]) == 0
    assert capsys.readouterr().out == ""
    assert pbm_main(["outbox", "--all"]) == 0
    assert "sent" in capsys.readouterr().out


def test_outbox_shows_held_mail_and_when_it_goes(database_url, tmp_path, monkeypatch, make_mailroom, capsys):
    monkeypatch.setenv("PBM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBM_SECRET_KEY", "k" * 40)
    monkeypatch.chdir(tmp_path)
    room = make_mailroom(max_mails_per_address_per_hour=1)
    room.send(mail("alice@example.org", "help"))
    room.send(mail("alice@example.org", "list"))
    assert pbm_main(["outbox"]) == 0
    held = [line for line in capsys.readouterr().out.splitlines() if " held " in line]
    assert len(held) == 1 and "hourly_limit; goes at " in held[0]


def test_outbox_shows_the_whole_reason_a_mail_waits(operator, capsys):
    operator.send(mail("alice@example.org", "help"))
    reason = "421 4.7.0 Try again later (greylisted for 5 minutes; see https://example.org/greylisting)"
    with operator.database.transaction() as session:
        session.execute(update(OutboxMessage).values(last_error=reason))
    assert pbm_main(["outbox"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(reason)


def test_the_dice_record_of_a_game_without_dice_says_there_are_none(operator, capsys):
    operator.send(mail("alice@example.org", "signup alice alice-pw"))
    operator.send(mail("bob@example.net", "signup bob bob-pw"))
    operator.send(mail("alice@example.org", "cephalopod challenge alice bob"))
    operator.send(mail("alice@example.org", "cephalopod resign 101 alice alice-pw"))
    assert pbm_main(["dice-record", "cephalopod", "101"]) == 1
    error = capsys.readouterr().err
    assert "Cephalopod board 101 has no dice record to show: Cephalopod is played without dice" in error
    assert "secret" not in error


@pytest.mark.parametrize("command", [["outbox"], ["outbox", "--all"], ["inbox"], ["inbox", "--duplicates"]])
def test_listing_the_inbox_or_the_outbox_opens_the_database_and_nothing_else(operator, monkeypatch, command):
    operator.send(mail("alice@example.org", "help"))

    def no_server(*args, **kwargs):
        raise AssertionError("a read-only command built the server")

    monkeypatch.setattr("pbm.serving.server.Server.__init__", no_server)
    monkeypatch.setattr("pbm.words.templating.Templates.__init__", no_server)
    assert pbm_main(command) == 0


def test_every_subcommand_has_one_function_and_every_function_a_subcommand():
    from pbm.cli import SUBCOMMANDS, _parser

    commands = next(action for action in _parser()._actions if action.dest == "command")
    assert set(SUBCOMMANDS) == set(commands.choices)


def test_outbox_lists_the_addresses_that_bounced_and_resume_sends_to_one_again(operator, capsys):
    from pbm.store import bounces

    operator.send(mail("alice@example.org", "help"))
    with operator.database.transaction() as session:
        row = session.query(OutboxMessage).first()
        bounces.record(session, row, permanent=True, status="5.1.1", now=row.created_at)
    assert pbm_main(["outbox"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bounced")]
    assert "alice@example.org" in line and "5.1.1" in line and "stopped since" in line
    assert pbm_main(["outbox", "--resume", "Alice@Example.org"]) == 0
    out = capsys.readouterr().out
    assert "Alice@Example.org: resumed, 0 held mail(s) go" in out and "\nbounced" not in out


def test_commands_say_nothing_of_alembic_unless_a_migration_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_")}
    env.update(PBM_HOME=str(tmp_path / "home"), PYTHONPATH=str(Path(__file__).resolve().parents[1]))

    def pbm(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pbm", *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )

    first = pbm("db", "upgrade")
    assert "Running upgrade  -> 0001" in first.stderr
    assert "Context impl" not in first.stderr and "setup plugin" not in first.stderr
    for args in (("db", "upgrade"), ("outbox",), ("inbox",)):
        again = pbm(*args)
        assert (again.returncode, again.stderr) == (0, ""), args
