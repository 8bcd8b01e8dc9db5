"""Taking an account over with a password reset's token, over real SMTP.

The second audit (issue 28) read a sent reset mail, token and all, from the
outbox table, replied to its address from a stranger's, and the account was
theirs. Here a stranger asks for a reset of a player's password and the mail
goes out. Then the outbox, as whoever reads the database sees it, must hold no
token; and a reply to the reset address from a stranger's address, with the
token read wherever it can be found (the outbox, or else the player's own
mailbox), must change nothing, while the player's own reply still works.
"""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import dataclass

import pytest

from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import GENEROUS_LIMITS, ServeProcess, wait_for
from tests.faults.players import Player, letter, new_player, post_and_wait, signup

STRANGER = "mallory@hostile.example"
RESET_ADDRESS = re.compile(rb"pbm\+(reset-[0-9a-f]+(?:-[a-z2-7]{20})?)@localhost")
"""A reset token that works, as a mail handed over carries it (its MAC since tokens are sealed)."""


@dataclass
class Takeover:
    player: Player
    in_the_outbox: set[bytes]
    """Reset tokens found in the outbox table once the reset mails had gone."""
    stranger_took_it: bool
    owner_reset_it: bool


def tokens_in(raws: list[bytes]) -> set[bytes]:
    return {token for raw in raws for token in RESET_ADDRESS.findall(raw)}


def password_hash(tables: Tables, player: Player) -> str:
    (digest,) = [digest for userid, digest in tables.players() if userid == player.userid]
    return digest


def reply_to_reset(sender: str, token: bytes, new_password: str):
    return letter(
        sender, f"{new_password}\n\n> Password reset", kind="reset-reply", to=f"pbm+{token.decode()}@localhost"
    )


@pytest.fixture(scope="module")
def takeover(tmp_path_factory, sqlite_template, figures) -> Takeover:
    workdir = tmp_path_factory.mktemp("reset")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env=GENEROUS_LIMITS)
    tables = Tables(url)
    server.start()
    try:
        player = new_player("t", random.Random("reset"))
        post_and_wait(server.smtp_port, tables, signup(player))
        post_and_wait(server.smtp_port, tables, letter(STRANGER, f"password reset {player.userid}", kind="ask"))
        assert wait_for(lambda: all(row.status == "sent" for row in tables.outbox()), 30)
        in_the_outbox = tokens_in([row.raw for row in tables.outbox()])
        delivered = [raw for raw in maildir_files(server.outbox) if player.address.encode() in raw]
        (token,) = in_the_outbox or tokens_in(delivered)

        before = password_hash(tables, player)
        post_and_wait(server.smtp_port, tables, reply_to_reset(STRANGER, token, "stolen-pass-1"))
        stranger_took_it = password_hash(tables, player) != before
        post_and_wait(server.smtp_port, tables, reply_to_reset(player.address, token, "own-new-pass-1"))
        owner_reset_it = not stranger_took_it and password_hash(tables, player) != before
    finally:
        server.stop()
        tables.close()
    figures.notes.append(
        f"reset takeover: a sent reset mail left {len(in_the_outbox)} token(s) in the outbox; a stranger's reply "
        f"with the token {'took the account over' if stranger_took_it else 'changed nothing'}"
    )
    return Takeover(player, in_the_outbox, stranger_took_it, owner_reset_it)


def test_a_sent_reset_mail_leaves_no_token_in_the_outbox(takeover):
    assert takeover.in_the_outbox == set()


def test_a_reset_token_in_a_strangers_reply_takes_nothing_over(takeover):
    assert not takeover.stranger_took_it


def test_the_players_own_reply_to_the_reset_still_sets_the_password(takeover):
    assert takeover.owner_reset_it
