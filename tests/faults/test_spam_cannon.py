"""The spam cannon: throwaway players signed up on strangers' addresses must not make the server
mail those strangers, whatever verb they use.

One scenario, run once on a real `pbm serve`, as the audit of issue 28 ran it: an attacker signs
up throwaway players on victims' addresses (forging each victim as the From, so no per-sender
limit binds), then uses every verb that mails other players: one `message` to all of them, a
`message` whose copy goes to a forged From, one signup naming 60 addresses, throwaway watchers of
every new game while two honest players play, throwaway seekers. The honest players confirm
their addresses as anyone would, by replying to their welcome mail. The attacker's mails come
through our own MTA from hosts of its own (a ``Received`` header as Postfix writes it).

What a victim may get is the one confirmation request; nothing else, and never the attacker's
words. The figures (mails reaching victims per throwaway userid, and per hour at the pace of the
run) go to the fault suite's notes.
"""

from __future__ import annotations

import random
import shutil
import time
from dataclasses import dataclass, field

import pytest

from tests.faults.audit import Tables, maildir_files
from tests.faults.harness import ServeProcess
from tests.faults.players import (
    Letter,
    Match,
    Player,
    letter,
    new_player,
    send_and_wait,
    sign_up_confirmed,
)
from tests.support import body_of, read

SPAM = "CHEAP WATCHES AT watches.example"
THROWAWAYS = 8
"""Throwaway players per attack."""
WATCHERS = 40
"""With the two players, past the 40 answers one mail may cause: an honest move must still get no error."""
MOVES = 3
FAR_ADDRESSES = 60
SETTINGS = {"PBM_MAX_SIGNUPS_PER_HOST_PER_DAY": "1000"}
"""The defaults, but for the signups one host may make: here each attack is measured apart."""


def received_from(host: int) -> dict[str, str]:
    """The trace header our own MTA writes on top of a mail it got from `host` (203.0.113.host)."""
    return {
        "Received": f"from attacker{host}.example (attacker{host}.example [203.0.113.{host}]) by mx.localhost "
        "(Postfix) with ESMTP id 4F1A2B3C4D; Thu, 26 Nov 2026 10:00:00 +0000"
    }


def victim(kind: str, index: int) -> str:
    return f"{kind}{index}@victims.example"


@dataclass
class Attack:
    """What the scenario sent, and how long it took."""

    victims: set[str] = field(default_factory=set)
    throwaways: int = 0
    seconds: float = 0.0
    honest_errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory, sqlite_template, figures):
    workdir = tmp_path_factory.mktemp("spam-cannon")
    shutil.copy(sqlite_template, workdir / "pbm.db")
    url = f"sqlite:///{workdir / 'pbm.db'}"
    server = ServeProcess(url, workdir, env=SETTINGS)
    server.tables = Tables(url)
    server.start()
    try:
        attack = _attack(server)
        figures.notes.append(_figures(server, attack))
        yield server, attack
    finally:
        server.stop()
        server.tables.close()


def _throwaway_signups(kind: str, count: int, host: int, rng: random.Random) -> tuple[list[Player], list[Letter]]:
    """`count` throwaway players, each signed up on a victim's address with that victim forged as the From."""
    players = [new_player(kind, rng) for _ in range(count)]
    mails = [
        letter(victim(kind, i), f"signup {p.userid} {p.password} {victim(kind, i)}", kind="throwaway",
               headers=received_from(host))
        for i, p in enumerate(players)
    ]  # fmt: skip
    return players, mails


def _attack(server: ServeProcess) -> Attack:
    rng = random.Random("spam cannon")
    attack = Attack()
    mallory, alice, bob = (new_player(name, rng) for name in ("mallory", "alice", "bob"))
    sign_up_confirmed(server, mallory, alice, bob)
    started = time.monotonic()

    # Throwaways on victims' addresses, then one message to all of them.
    talkers, mails = _throwaway_signups("talk", THROWAWAYS, 1, rng)
    send_and_wait(server, *mails)
    first = talkers[0]
    to_all = " ".join(p.userid for p in talkers[1:])
    send_and_wait(
        server,
        letter(mallory.address, f"message {first.userid} {first.password} {to_all}\n\n{SPAM}", kind="spam",
               headers=received_from(1)),
    )  # fmt: skip

    # A message whose copy for its author would go to a forged From.
    send_and_wait(
        server,
        letter(victim("forged", 0), f"message {mallory.userid} {mallory.password} {alice.userid}\n\n{SPAM}",
               kind="spam", headers=received_from(2)),
    )  # fmt: skip

    # One signup naming many addresses.
    far = [victim("far", i) for i in range(FAR_ADDRESSES)]
    big = new_player("big", rng)
    send_and_wait(
        server, letter(mallory.address, f"signup {big.userid} {big.password} {' '.join(far)}", kind="far",
                       headers=received_from(3))
    )  # fmt: skip

    # Throwaway watchers of every new game, while two honest players play.
    watchers, mails = _throwaway_signups("watch", WATCHERS, 4, rng)
    send_and_wait(server, *mails)
    subscriptions = [
        letter(mallory.address, f"cephalopod subscribe {w.userid} {w.password} all", kind="watch",
               headers=received_from(4))
        for w in watchers
    ]  # fmt: skip
    send_and_wait(server, *subscriptions)
    (challenged,) = send_and_wait(server, letter(alice.address, f"cephalopod challenge {alice.userid} {bob.userid}",
                                                 kind="honest"))  # fmt: skip
    game = Match("cephalopod", [alice, bob], board=server.tables.board_of("cephalopod", [alice.userid, bob.userid]))
    honest_ids = [challenged]
    for _ in range(MOVES):
        move, _played = game.move_letter(rng)
        honest_ids += send_and_wait(server, move)
    attack.honest_errors = [
        row.recipient for row in server.tables.outbox()
        if row.inbound_id in honest_ids and "Error" in str(read(row.raw)["Subject"])
    ]  # fmt: skip

    # Throwaway seekers.
    seekers, mails = _throwaway_signups("seek", THROWAWAYS, 5, rng)
    send_and_wait(server, *mails)
    seeks = [
        letter(mallory.address, f"cephalopod seek {s.userid} {s.password} 5", kind="seek", headers=received_from(5))
        for s in seekers
    ]
    send_and_wait(server, *seeks)

    attack.seconds = time.monotonic() - started
    attack.throwaways = len(talkers) + 1 + len(watchers) + len(seekers)
    attack.victims = {
        *(victim("talk", i) for i in range(THROWAWAYS)),
        victim("forged", 0),
        *far,
        *(victim("watch", i) for i in range(WATCHERS)),
        *(victim("seek", i) for i in range(THROWAWAYS)),
    }
    return attack


def _mails_to_victims(server: ServeProcess, attack: Attack) -> dict[str, list[str]]:
    """The bodies of the mails delivered to each victim that got any."""
    found: dict[str, list[str]] = {}
    for raw in maildir_files(server.outbox):
        message = read(raw)
        to = message["To"].addresses[0].addr_spec
        if to in attack.victims:
            found.setdefault(to, []).append(body_of(message))
    return found


def _figures(server: ServeProcess, attack: Attack) -> str:
    """What the attack made the server do, for the closing note: mails reaching victims per
    throwaway userid (and per hour, at the pace of the run), by attack."""
    received = _mails_to_victims(server, attack)
    total = sum(len(bodies) for bodies in received.values())
    beyond_one = sum(len(bodies) - 1 for bodies in received.values())
    per_hour = total / attack.throwaways * 3600 / attack.seconds
    by_attack = {
        kind: sum(len(bodies) for to, bodies in received.items() if to.startswith(kind))
        for kind in ("talk", "forged", "far", "watch", "seek")
    }
    seekers = [userid for userid, _ in server.tables.players() if userid.startswith("seek")]
    return (
        f"spam cannon: {attack.throwaways} throwaway userids made the server mail {len(received)} victims "
        f"{total} times, {beyond_one} beyond one mail each ({total / attack.throwaways:.1f} per throwaway userid, "
        f"{per_hour:.0f} an hour per throwaway userid at the pace of the run, {attack.seconds:.0f} s); by attack: "
        + ", ".join(f"{kind} {count}" for kind, count in by_attack.items())
        + f"; games started by throwaway seekers: {server.tables.boards_played_by(seekers)}; "
        f"honest mails answered with an error: {len(attack.honest_errors)}"
    )


def test_a_victim_gets_at_most_the_one_confirmation_request(attacked):
    server, attack = attacked
    over = {to: len(bodies) for to, bodies in _mails_to_victims(server, attack).items() if len(bodies) > 1}
    assert over == {}


def test_no_victim_reads_the_attackers_words(attacked):
    server, attack = attacked
    spammed = [to for to, bodies in _mails_to_victims(server, attack).items() if any(SPAM in b for b in bodies)]
    assert spammed == []


def test_a_signup_naming_many_addresses_mails_none_of_them(attacked):
    server, attack = attacked
    reached = [to for to in _mails_to_victims(server, attack) if to.startswith("far")]
    assert reached == []


def test_throwaway_seekers_start_no_games(attacked):
    server, _ = attacked
    seekers = [userid for userid, _ in server.tables.players() if userid.startswith("seek")]
    assert server.tables.boards_played_by(seekers) == 0


def test_the_honest_players_moves_are_answered_without_an_error(attacked):
    _, attack = attacked
    assert attack.honest_errors == []
