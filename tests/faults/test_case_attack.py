"""The letter-case attack: one mailbox, written five ways, is still one mailbox to the limits.

Mail systems treat ``Victim@Target.example`` and ``victim@target.example`` as
the same mailbox. An attacker who forges the victim's address as the sender of
mails the server must answer with an error, once in each spelling, must not
multiply the error answers the victim gets
(``PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR``) by the number of spellings.
"""

from __future__ import annotations

import shutil

import pytest

from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import ServeProcess, wait_for
from tests.faults.players import letter, post
from tests.support import read

ERROR_ANSWERS_PER_HOUR = 10
SPELLINGS = ("victim", "Victim", "VICTIM", "vIctim", "viCTim")
MAILS_PER_SPELLING = 12
PROCESSED_SECONDS = 90.0


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    workdir = tmp_path_factory.mktemp("case-attack")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(
        url, workdir, env={"PBM_MAX_ERROR_REPLIES_PER_SENDER_PER_HOUR": str(ERROR_ANSWERS_PER_HOUR)}
    )
    server.tables = Tables(url)
    server.start()
    yield server
    server.stop()
    server.tables.close()


def test_error_answers_to_one_mailbox_stop_at_the_limit_however_its_address_is_spelt(server, figures):
    domains = ("target.example", "Target.Example", "TARGET.EXAMPLE", "target.example", "Target.example")
    mails = [
        letter(f"{local}@{domain}", f"frobnicate the board, please ({n})", kind="case")
        for n in range(MAILS_PER_SPELLING)
        for local, domain in zip(SPELLINGS, domains, strict=True)
    ]
    for mail in mails:
        post(server.smtp_port, mail)

    def processed() -> bool:
        rows = server.tables.inbound_by_message_id()
        return all(m.message_id in rows and rows[m.message_id][0].status != "pending" for m in mails)

    assert wait_for(processed, PROCESSED_SECONDS), "not processed in time"
    wait_for(lambda: all(r.status != "pending" or r.attempts for r in server.tables.outbox()), 10)

    to_victim = [
        raw for raw in maildir_files(server.outbox) if str(read(raw)["To"]).lower() == "victim@target.example"
    ]
    figures.notes.append(
        f"letter-case attack: {len(to_victim)} error answers reached one mailbox from {len(SPELLINGS)} spellings"
        f" of its address (limit {ERROR_ANSWERS_PER_HOUR})"
    )
    assert 1 <= len(to_victim) <= ERROR_ANSWERS_PER_HOUR
