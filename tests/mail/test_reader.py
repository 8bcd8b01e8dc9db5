"""MailReader: mail read in a child process that no mail can stop, starve or outlive."""

import importlib
import json
import os
import signal
import subprocess
import sys
import sysconfig
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pbm.mail.parse import ParsedMail, parse_mail
from pbm.mail.reader import MailReader
from tests.mail import reader_parsers
from tests.mail.builders import OUR_ADDRESS, fixture, message
from tests.support import reader_children

pytestmark = pytest.mark.timeout(120)

SENDER = "alice@example.com"
ORDINARY = fixture("gmail_reply.eml")


def gone(pid: int) -> bool:
    """No such process, or only its exit status is left (a zombie nobody reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until_gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def in_process(raw: bytes):
    return parse_mail(raw, envelope_sender=SENDER, loop_marker=OUR_ADDRESS)


@pytest.fixture
def reader():
    with MailReader(loop_marker=OUR_ADDRESS) as reader:
        yield reader


def test_ordinary_mail_reads_as_in_process(reader):
    reading = reader.read(ORDINARY, envelope_sender=SENDER)
    assert reading.mail == in_process(ORDINARY)
    assert reading.mail.unreadable is None
    assert reading.cost.seconds >= 0 and reading.cost.peak_memory_kb > 0


def test_one_child_reads_mail_after_mail():
    # A child an earlier test in this process is still stopping is not this reader's.
    others = reader_children()
    with MailReader(loop_marker=OUR_ADDRESS) as reader:
        for name in ("gmail_reply.eml", "outlook_reply.eml", "html_only_gmail.eml"):
            assert reader.read(fixture(name), envelope_sender=SENDER).mail == in_process(fixture(name))
        assert len(reader_children() - others) == 1


def test_mail_that_loops_forever_is_unreadable_for_time_and_the_next_is_read():
    with MailReader(loop_marker=OUR_ADDRESS, seconds=0.5, parse=reader_parsers.loops_on_request) as reader:
        reader.read(ORDINARY, envelope_sender=SENDER)
        (first_child,) = reader_children()
        reading = reader.read(message(b"loop forever"), envelope_sender=SENDER)
        assert reading.mail.unreadable == "the message took longer than 0.5 s to read"
        assert reading.cost.seconds > 0
        assert wait_until_gone(first_child)
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)
        assert reader_children() and first_child not in reader_children()


def test_unreadable_mail_keeps_what_its_headers_say():
    with MailReader(loop_marker=OUR_ADDRESS, seconds=0.5, parse=reader_parsers.loops_on_request) as reader:
        mail = reader.read(message(b"loop forever", headers={"Subject": "move"}), envelope_sender=SENDER).mail
    assert (mail.from_address, mail.message_id, mail.subject, mail.body) == (
        "alice@example.com",
        "<m1@example.com>",
        "move",
        "",
    )
    assert mail.auto_reason is None


def test_mail_stuck_where_the_cpu_timer_cannot_reach_is_stopped_by_the_wall_clock():
    with MailReader(loop_marker=OUR_ADDRESS, seconds=0.5, parse=reader_parsers.sleeps_on_request) as reader:
        reading = reader.read(message(b"sleep forever"), envelope_sender=SENDER)
        assert reading.mail.unreadable == "the message took longer than 0.5 s to read"
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)


def test_mail_needing_more_memory_than_allowed_is_unreadable_for_memory():
    # 256 MB fit this machine many times over, but not the child's 128 MB.
    with MailReader(loop_marker=OUR_ADDRESS, memory_mb=128, parse=reader_parsers.hoards_on_request) as reader:
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)
        mail = reader.read(message(b"hoard memory"), envelope_sender=SENDER).mail
        assert mail.unreadable == "the message needed more memory than allowed"
        assert mail.from_address == "alice@example.com"
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)


def test_child_killed_between_reads_is_replaced_unnoticed(reader):
    reader.read(ORDINARY, envelope_sender=SENDER)
    (child,) = reader_children()
    os.kill(child, signal.SIGKILL)
    assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)
    assert child not in reader_children()


def test_child_dying_while_reading_gives_an_unreadable_mail_and_a_new_child():
    with MailReader(loop_marker=OUR_ADDRESS, parse=reader_parsers.dies_on_request) as reader:
        mail = reader.read(message(b"die now"), envelope_sender=SENDER).mail
        assert mail.unreadable == "reading the message stopped unexpectedly"
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)


def test_a_reader_started_ahead_reads_its_first_mail_with_the_child_already_there(reader):
    reader.start()
    (child,) = reader_children()
    reader.start()  # a second start keeps the running child
    assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)
    assert reader_children() == {child}


def test_closing_the_reader_leaves_no_child():
    reader = MailReader(loop_marker=OUR_ADDRESS)
    reader.read(ORDINARY, envelope_sender=SENDER)
    (child,) = reader_children()
    reader.close()
    assert reader_children() == set()
    assert gone(child)


def test_what_the_child_prints_neither_breaks_the_reading_nor_reaches_the_log(capfd):
    with MailReader(loop_marker=OUR_ADDRESS, parse=reader_parsers.chatters) as reader:
        assert reader.read(ORDINARY, envelope_sender=SENDER).mail == in_process(ORDINARY)
    assert "chatter" not in "".join(capfd.readouterr())


def test_closed_reader_refuses_to_read_or_start():
    reader = MailReader(loop_marker=OUR_ADDRESS)
    reader.close()
    with pytest.raises(ValueError):
        reader.read(ORDINARY, envelope_sender=SENDER)
    with pytest.raises(ValueError):
        reader.start()
    assert reader_children() == set()


def test_threads_can_share_one_reader(reader):
    names = ["gmail_reply.eml", "outlook_reply.eml", "apple_mail_reply.eml", "thunderbird_reply.eml"]
    results: dict[str, list] = {name: [] for name in names}

    def read_all(name: str) -> None:
        for _ in range(5):
            results[name].append(reader.read(fixture(name), envelope_sender=SENDER).mail)

    threads = [threading.Thread(target=read_all, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in names:
        assert results[name] == [in_process(fixture(name))] * 5


PARENT = textwrap.dedent(
    """
    import sys
    from pbm.mail.reader import MailReader

    reader = MailReader(loop_marker="pbm@example.org")
    reader.read(b"From: alice@example.com\\r\\n\\r\\nhelp\\r\\n", envelope_sender=None)
    print("read", flush=True)
    sys.stdin.read()
    """
)


def test_child_exits_when_its_parent_dies():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert parent.stdout.readline() == b"read\n"
        (child,) = reader_children(parent.pid)
    finally:
        parent.kill()
        parent.wait()
    assert wait_until_gone(child)


UNGUARDED = textwrap.dedent(
    """
    import json
    import sys
    from pathlib import Path

    from pbm.mail.reader import MailReader

    with Path(sys.argv[1]).open("a") as marker:
        marker.write("main ran\\n")
    reader = MailReader(loop_marker="pbm@example.org")
    mail = reader.read(sys.stdin.buffer.read(), envelope_sender="alice@example.com").mail
    print(json.dumps(mail.to_json()))
    """
)


def test_parent_started_from_an_unguarded_script_reads_mail_and_its_child_runs_none_of_it(tmp_path):
    # Like a `pbm` script without `if __name__ == "__main__":`: its main code runs on import.
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    marker = tmp_path / "main-ran"
    done = subprocess.run([sys.executable, script, marker], input=ORDINARY, capture_output=True, check=True)
    assert ParsedMail.from_json(json.loads(done.stdout)) == in_process(ORDINARY)
    assert marker.read_text() == "main ran\n"


SHOUTING = textwrap.dedent(
    """
    from dataclasses import replace

    from pbm.mail.parse import ParsedMail, parse_mail


    def parse(raw, **arguments):
        mail = parse_mail(raw, **arguments)
        return replace(mail, subject=mail.subject.upper())
    """
)

ISOLATED_PARENT = textwrap.dedent(
    """
    import sys

    sys.path[:0] = sys.argv[1:]
    import shouting
    from pbm.mail.reader import MailReader

    with MailReader(loop_marker="pbm@example.org", parse=shouting.parse) as reader:
        print(reader.read(sys.stdin.buffer.read(), envelope_sender=None).mail.subject)
    """
)


def test_child_finds_pbm_and_its_parse_function_where_the_parent_found_them(tmp_path):
    # The bare interpreter, isolated from the environment, finds pbm, its dependencies
    # and the parse function only on the folders the parent put on sys.path itself.
    (tmp_path / "shouting.py").write_text(SHOUTING)
    interpreter = os.path.realpath(sys.executable)
    folders = [tmp_path, Path(__file__).parents[2], sysconfig.get_paths()["purelib"]]
    done = subprocess.run(
        [interpreter, "-I", "-c", ISOLATED_PARENT, *map(str, folders)],
        input=message(b"help", headers={"Subject": "quiet please"}),
        capture_output=True,
        check=True,
    )
    assert done.stdout == b"QUIET PLEASE\n"


def test_read_raises_oserror_when_no_child_can_start(tmp_path, monkeypatch, capfd):
    # A parse function the parent has imported but the child cannot find: a broken installation.
    (tmp_path / "vanishing.py").write_text(SHOUTING)
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.setitem(sys.modules, "vanishing", importlib.import_module("vanishing"))
    monkeypatch.setattr(sys, "path", [folder for folder in sys.path if folder != str(tmp_path)])
    with MailReader(loop_marker=OUR_ADDRESS, parse=sys.modules["vanishing"].parse) as reader:
        with pytest.raises(OSError):
            reader.read(ORDINARY, envelope_sender=SENDER)
        assert reader_children() == set()
    assert "No module named 'vanishing'" in capfd.readouterr().err


def test_parse_function_the_child_cannot_import_by_name_is_refused_at_once():
    with pytest.raises(ValueError):
        MailReader(loop_marker=OUR_ADDRESS, parse=lambda raw, **arguments: parse_mail(raw, **arguments))


HEAVY_PARENT = textwrap.dedent(
    """
    import sys
    from pbm.mail.reader import MailReader

    ballast = b"x" * (256 * 1024 * 1024)  # written, so resident
    with MailReader(loop_marker="pbm@example.org") as reader:
        print(reader.read(sys.stdin.buffer.read(), envelope_sender=None).cost.peak_memory_kb)
    """
)


def test_peak_memory_is_the_childs_own_and_not_its_parents():
    done = subprocess.run([sys.executable, "-c", HEAVY_PARENT], input=ORDINARY, capture_output=True, check=True)
    assert 0 < int(done.stdout) < 128 * 1024
