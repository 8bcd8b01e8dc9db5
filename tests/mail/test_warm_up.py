"""A server keeps start-up work out of the first mails' wait.

The engines are found through entry points, and imported only when first asked
for: some 40 ms that the first mail after a restart (and every mail queued behind
it) would otherwise wait. The garbage collector's start-up pass takes some 75 ms.
Both are done before the listeners open. What a process has imported or frozen
can only be seen in an interpreter of its own, so each test runs one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIRST_MAILS = """
import json, sys
from pathlib import Path
import pbm.cli
from pbm.config import Settings
from pbm.crypto.passwords import fast_passwords
from pbm.serving.server import Server
from pbm.store.inbox import save_inbound

import re
from sqlalchemy import select
from pbm.store.models import InboundMessage, OutboxMessage

var = Path(sys.argv[1])
settings = Settings(database_url=f"sqlite:///{var}/pbm.db", secret_key="k" * 40, outbound=f"maildir:{var}/outbox")
server = Server(settings, passwords=fast_passwords(), var_dir=var)
server.database.upgrade()
server.warm_up()
ASKING = re.compile(rb"^To: (\\S+)$.*^Reply-To: PBeM Server <(pbm\\+confirm-[0-9a-z-]+@localhost)>$", re.M | re.S)
imported = set(sys.modules)

def deliver(number, sender, body, to="pbm@localhost"):
    head = f"From: {sender}\\r\\nTo: {to}\\r\\nSubject: pbm\\r\\nMessage-ID: <{number}@first.test>\\r\\n"
    raw = f"{head}\\r\\n{body}\\r\\n".encode()
    stored = save_inbound(server.database, raw, envelope_from=sender, envelope_to=[to])
    server.processor.process_pending()
    return stored.id

for number, (sender, body) in enumerate(json.loads(sys.argv[2])):
    inbound_id = deliver(number, sender, body)
    with server.database.reading() as session:
        query = select(OutboxMessage.raw, OutboxMessage.recipient, OutboxMessage.player_id)
        answers = session.execute(query.where(OutboxMessage.inbound_id == inbound_id)).all()
        asked = [ASKING.search(server.delivery.unseal(*answer)) for answer in answers]  # as handed over
    for match in filter(None, asked):
        deliver(f"confirm.{number}", match[1].decode(), "confirm", to=match[2].decode())  # the owner confirms
newly_imported = sorted(set(sys.modules) - imported)
from email import message_from_bytes
with server.database.reading() as session:
    statuses = list(session.scalars(select(InboundMessage.status).order_by(InboundMessage.id)))
    subjects = [str(message_from_bytes(raw)["Subject"]) for raw in session.scalars(select(OutboxMessage.raw))]
server.close()
print(json.dumps({"imported": newly_imported, "statuses": statuses, "subjects": subjects}))
"""

ALICE, BOB = "alice@example.org", "bob@example.net"


def test_the_first_mails_after_warm_up_import_nothing(tmp_path: Path):
    mails = [
        (ALICE, "signup alice alice-pw"),
        (BOB, "signup bob bob-pw"),
        (ALICE, "cephalopod challenge alice bob"),
        (ALICE, "cephalopod move 101 alice alice-pw c3"),
        (BOB, "cephalopod show 101"),
        (BOB, "dodeca challenge bob alice"),
        (BOB, "cubeo challenge bob alice"),
    ]
    first = subprocess.run(
        [sys.executable, "-c", FIRST_MAILS, str(tmp_path), json.dumps(mails)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    outcome = json.loads(first.stdout.splitlines()[-1])
    assert outcome["statuses"] == ["processed"] * (len(mails) + 2)  # the mails, and the two confirmations
    assert outcome["subjects"].count("Cephalopod Board 101 bob") == 3, "the move went to both, the board to bob"
    new_boards = {subject.rsplit(" ", 1)[0] for subject in outcome["subjects"] if subject.startswith("New ")}
    assert new_boards == {"New Cephalopod Board 101", "New Dodeca Board 101", "New Cubeo Board 101"}
    assert outcome["imported"] == []


LISTENING = """
import asyncio, gc, os, signal, sys
from pathlib import Path
from pbm.config import Settings
from pbm.serving.server import Server

var = Path(sys.argv[1])
settings = Settings(
    database_url=f"sqlite:///{var}/pbm.db", secret_key="k" * 40, outbound=f"maildir:{var}/outbox",
    smtp_listen="127.0.0.1:0", http_listen="127.0.0.1:0",
)
server = Server(settings, var_dir=var)
server.database.upgrade()
start = server.start

async def start_then_stop(**options):
    print(gc.get_freeze_count(), flush=True)
    await start(**options)
    os.kill(os.getpid(), signal.SIGTERM)

server.start = start_then_stop
asyncio.run(server.run())
server.close()
"""


def test_the_collectors_start_up_pass_is_over_before_the_listeners_open(tmp_path: Path):
    listening = subprocess.run(
        [sys.executable, "-c", LISTENING, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True
    )
    frozen_when_listening = int(listening.stdout.split()[0])
    assert frozen_when_listening > 10_000, "what start-up made is frozen before the first mail can arrive"
