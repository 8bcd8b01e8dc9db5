"""A club with a mailbox at a provider, against a real provider: the club's mailbox and the
players' mailboxes in Dovecot, and Debian's Postfix as the submission service (STARTTLS, Dovecot
SASL, plus addressing). Players send through the provider as themselves; their mails are
delivered into the club's INBOX, which `pbm serve` reads over IMAPS; pbm sends its board mails
through the provider's submission service; the players read them from their own mailboxes."""

from __future__ import annotations

import random

import pytest

import pbm.games
from tests import dovecot, submission
from tests.e2e.test_club_mailbox import read_once_and_the_mailbox_emptied
from tests.faults.harness import ServeProcess
from tests.provider import CLUB, PostfixProvider
from tests.support import body_of, mail, reply_to_board

pytestmark = pytest.mark.skipif(
    (dovecot.unavailable() or submission.unavailable()) is not None,
    reason=str(dovecot.unavailable() or submission.unavailable()),
)

ALICE, BOB = "alice@players.test", "bob@players.test"


@pytest.fixture
def provider():
    provider = PostfixProvider([ALICE, BOB])
    provider.start()
    yield provider
    provider.stop()


def test_a_whole_game_is_played_by_mail_through_a_real_provider(provider, database_url, database, tmp_path):
    if not database_url.startswith("sqlite"):
        pytest.skip("the provider is the same on either backend")
    club = ServeProcess(database_url, tmp_path / "serve", env={**provider.settings(), "PBM_CONFIRM_ADDRESSES": "off"})
    club.start()
    try:
        alice, bob = provider.mailbox(ALICE), provider.mailbox(BOB)
        provider.send(ALICE, mail(ALICE, "signup alice alice-pw", to=CLUB))
        provider.send(BOB, mail(BOB, "signup bob bob-pw", to=CLUB))
        assert "Welcome" in alice.wait(1)[0]["Subject"] and "Welcome" in bob.wait(1)[0]["Subject"]
        provider.send(ALICE, mail(ALICE, "cephalopod challenge alice bob", to=CLUB))
        alice.wait(1)
        (bob_board,) = bob.wait(1)

        engine = pbm.games.get("cephalopod")
        state = engine.new(players=2)
        chooser = random.Random(4646)
        mails = 3
        for _ in range(9):
            move = chooser.choice(engine.legal_moves(state))
            if state.to_move == 0:
                provider.send(ALICE, mail(ALICE, f"cephalopod move 101 alice alice-pw {move}#{state.ply + 1}", to=CLUB))
            else:
                reply = reply_to_board(bob_board, BOB, move)
                assert b"To: games+" in reply, "a reply goes to the board's plus address"
                provider.send(BOB, reply)
            mails += 1
            state = engine.play(state, move)
            alice.wait(1)
            (bob_board,) = bob.wait(1)
            assert engine.render(state).rstrip() in body_of(bob_board)
        assert engine.result(state) is None and state.to_move == 1
        provider.send(BOB, reply_to_board(bob_board, BOB, "resign"))
        mails += 1
        assert all("won by alice" in m["Subject"] for m in alice.wait(1) + bob.wait(1))

        # Every mail came once, from the account, through an authenticated submission.
        for player in (alice, bob):
            delivered = [raw for _, raw in player.all_raw()]
            assert all(b"From: " in raw and CLUB.encode() in raw.split(b"\r\n\r\n", 1)[0] for raw in delivered)
        assert "sasl_username=games@club.test" in provider.postfix.log()
        read_once_and_the_mailbox_emptied(provider, database, mails)
        health = club.healthz().json()
        assert health["mailbox"]["state"] == "reading" and health["submission"]["state"] == "sending"
    finally:
        club.stop()
