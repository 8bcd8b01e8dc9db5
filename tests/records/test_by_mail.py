"""By mail, on the server as `pbm serve` builds it: a board mail's receipt, and the record that
``GAME record BOARD`` attaches, verify against the server's own keys (``var/signing``)."""

from __future__ import annotations

import json
import re

from pbm.crypto import chain
from pbm.crypto.keys import SigningKeys, check
from pbm.records import verify
from tests.support import body_of, mail

ALICE, BOB = "alice@example.org", "bob@example.net"


def test_a_game_by_mail_its_receipts_and_its_record(make_mailroom, tmp_path):
    room = make_mailroom()
    room.send(mail(ALICE, "signup alice alice-pw"))
    room.send(mail(BOB, "signup bob bob-pw"))
    room.send(mail(ALICE, "cephalopod challenge alice bob"))
    for sender, line in [(ALICE, "alice alice-pw c3"), (BOB, "bob bob-pw b2"), (ALICE, "alice alice-pw d4")]:
        room.send(mail(sender, f"cephalopod move 101 {line}"))
    receipts = [body_of(m) for m in room.replies() if "Receipt for move 3:" in body_of(m)]
    assert receipts, "the board mails of move 3 carry its receipt"

    room.send(mail(BOB, "cephalopod record 101"))
    (answer,) = [m for m in room.replies() if m.get_content_type() == "multipart/mixed"]
    text, attached = list(answer.iter_parts())
    assert attached.get_filename() == "cephalopod-101.json"
    record = json.loads(attached.get_content())
    keys = SigningKeys.known(tmp_path / "signing")
    assert verify.verify(record, known_keys=keys).genuine

    found = re.search(r"chain ([0-9a-f]{16}), key ([0-9a-f]{16}), signature\n(\S+)", receipts[0])
    assert found is not None
    whole = record["pbm"]["chain"][2]["hash"]
    assert whole.startswith(found[1])
    assert check(keys[found[2]], chain.statement("cephalopod", 101, 3, whole), found[3])
