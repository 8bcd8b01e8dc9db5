"""The README says what the server does in the words the server itself uses, is short enough to
finish, and leads to the rest: the administrator's manual under ``deploy/``, whose settings table
names every variable the server reads."""

import re
from pathlib import Path

from pbm.config import Settings

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MANUAL = sorted((ROOT / "deploy").glob("*.md"))


def test_the_readme_starts_with_the_two_commands_for_a_fresh_machine():
    first_lines = [line.strip() for line in README.splitlines()[:5] if line.strip()]
    assert first_lines[1:3] == ["make run", "make test"]


def test_the_readme_is_short_enough_to_finish():
    assert len(README.splitlines()) < 250


def test_every_link_of_the_readme_and_the_manual_leads_to_a_file_or_folder_of_the_checkout():
    for document in [ROOT / "README.md", *MANUAL]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", document.read_text()):
            assert (document.parent / target).exists(), f"{document.name}: {target}"


def test_the_settings_table_names_every_variable_the_server_reads():
    table = re.findall(r"^\| `(PBM_[A-Z_]+)` \|", (ROOT / "deploy" / "settings.md").read_text(), re.M)
    assert sorted(table) == sorted(f"PBM_{name.upper()}" for name in Settings.model_fields)


def tour_blocks() -> list[str]:
    """The Python of the README's tour, block by block, as a reader copies it."""
    tour = README[README.index("## A tour") : README.index("\n## ", README.index("## A tour") + 1)]
    return [block.partition("```")[0] for block in tour.split("```python\n")[1:]]


def deliver(room, maildir: Path) -> None:
    """Write the mails the room queued into `maildir`, as `make run`'s delivery would."""
    from sqlalchemy import select

    from pbm.store.models import OutboxMessage

    maildir.mkdir(parents=True, exist_ok=True)
    with room.database.reading() as session:
        for row in session.scalars(select(OutboxMessage).where(OutboxMessage.status == "pending")):
            (maildir / f"{row.id}.eml").write_bytes(room.handed_over(row))  # its tokens made whole


def test_the_tour_runs_as_written_and_each_of_its_mails_is_answered(make_mailroom, monkeypatch, tmp_path):
    """The tour's code against the server's processing, its SMTP session replaced by one that hands the
    mail over as the SMTP door would: every mail is answered in its thread, the same command twice too."""
    import smtplib

    room = make_mailroom(confirming=False)  # the tour's own confirm() replies
    monkeypatch.chdir(tmp_path)

    class Door(smtplib.SMTP):
        def __init__(self, host: str, port: int) -> None:
            assert (host, port) == ("127.0.0.1", 2525)
            super().__init__()

        def ehlo_or_helo_if_needed(self) -> None:
            pass  # no session to greet

        def sendmail(self, from_addr, to_addrs, msg, mail_options=(), rcpt_options=()):
            raw = msg if isinstance(msg, bytes) else msg.encode()
            assert room.send(raw, envelope_from=from_addr, to=to_addrs[0]).status == "processed"
            return {}

    monkeypatch.setattr(smtplib, "SMTP", Door)
    tour: dict[str, object] = {}
    signing_up, playing = tour_blocks()
    exec(signing_up, tour)
    deliver(room, tmp_path / "var" / "outbox" / "new")
    exec(playing, tour)
    answers = room.replies()
    assert [m["Subject"] for m in answers][-2:] == ["Cephalopod Board 101 bob"] * 2
    for _ in range(2):
        tour["send"]("alice@example.org", "list")  # type: ignore[operator]
        (answer,) = room.replies()
        assert answer["Subject"] == "Games on the PBeM Server"
    assert all(m["In-Reply-To"] for m in [*answers[:2], answer]), "each answer threads to the mail it answers"
