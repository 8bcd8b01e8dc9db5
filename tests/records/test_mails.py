"""The mails of records: every board mail carries a signed receipt that the game's record
proves, and ``GAME record BOARD`` mails the record itself, attached, signed as it leaves."""

from __future__ import annotations

import email
import email.policy
import json
import re

import pytest

from pbm.commands import play, queries
from pbm.crypto import chain
from pbm.crypto.keys import check
from pbm.mail.compose import Composer, with_preface
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.records import verify
from pbm.words.templating import Templates
from tests.records.conftest import play_game, record_of

RECEIPT = re.compile(
    r"^Receipt for move (?P<ply>\d+): chain (?P<chain>[0-9a-f]{16}), key (?P<key>[0-9a-f]{16}), signature\n"
    r"(?P<sig>[A-Za-z0-9_-]{86})$",
    re.M,
)


@pytest.fixture
def composer(keys):
    return Composer(
        Templates(signing=keys), Addressing("pbm@games.test"), ReplyTokens(b"k" * 32), b"t" * 32, signing=keys
    )


def parsed(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def test_every_board_mail_of_a_move_carries_a_receipt_the_record_proves(desk, keys, composer):
    number = play_game(desk, "cephalopod", 2, {}, seed=11, moves=4)
    mails = desk.run(
        play.move, f"cephalopod move {number} alice alice-pw " + _a_legal_move(desk, number), sender="alice"
    )
    record = record_of(desk, keys, "cephalopod", number)
    board_mails = [m for m in mails if m.template == "board"]
    assert board_mails
    for mail in board_mails:
        body = parsed(composer.compose(mail, now=desk.clock()).raw).get_content()
        (found,) = RECEIPT.finditer(body)
        ply = int(found["ply"])
        assert ply == 5 == record["pbm"]["ply"]
        whole = record["pbm"]["chain"][ply - 1]["hash"]
        assert whole.startswith(found["chain"]) and found["key"] == keys.key_id
        statement = chain.statement("cephalopod", number, ply, whole)
        assert check(keys.public_keys()[found["key"]], statement, found["sig"])


def _a_legal_move(desk, number):
    live = desk.board("cephalopod", number)
    assert live.row.seats[live.row.to_move].player.userid == "alice"
    return live.engine.legal_moves(live.state)[0]


def test_the_record_verb_mails_the_sender_the_record_attached_and_signed(desk, keys, composer):
    number = play_game(desk, "dodeca", 2, {}, seed=12, resign_at=5)
    (mail,) = desk.run(queries.record, f"dodeca record {number}", sender="carol")
    assert mail.to == "carol@example.org" and mail.template == "record"
    message = parsed(composer.compose(mail, now=desk.clock()).raw)
    assert message.get_content_type() == "multipart/mixed"
    text, attached = list(message.iter_parts())
    assert "The record of Dodeca board" in text.get_content()
    assert f"pbm verify dodeca-{number}.json" in text.get_content()
    assert attached.get_filename() == f"dodeca-{number}.json"
    record = json.loads(attached.get_content())
    assert record["header"]["site"]["name"] == "games.test"
    assert record["pbm"]["signature"]["key_id"] == keys.key_id
    verdict = verify.verify(record, known_keys=keys.public_keys())
    assert verdict.genuine and [f.code for f in verdict.checked] == ["record-genuine", "record-dice-genuine"]


def test_the_record_of_a_board_that_is_not_there_is_refused(desk):
    assert desk.code(queries.record, "cephalopod record 999", sender="carol") == "no-such-board"


def test_a_record_mail_held_back_keeps_its_attachment_under_the_preface(desk, keys, composer):
    number = play_game(desk, "cephalopod", 2, {}, seed=13, moves=3)
    (mail,) = desk.run(queries.record, f"cephalopod record {number}", sender="carol")
    raw = with_preface(composer.compose(mail, now=desk.clock()).raw, "Held back: an hour's limit.")
    text, attached = list(parsed(raw).iter_parts())
    assert text.get_content().startswith("Held back: an hour's limit.\n\nThe record of Cephalopod board")
    assert verify.verify(json.loads(attached.get_content())).genuine
