"""Every way a game can end gives a record that verifies: a property over random games and endings.

A game is played through the handlers (`tests.records.conftest.play_game`'s random legal moves) to
a random ply, then ended one of the ways a game ends at the server: by its rules, by a resignation
(at the very first ply too, which calls the game off), by running out of time, by a draw or an
undo agreed, by a player signing off, or with a bot in a seat; every record the server then
exports, signed, is genuine to `pbm verify`, whatever the game, its players and its options."""

from __future__ import annotations

import itertools
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.commands import deadlines, verbs
from pbm.commands import language as lang
from pbm.commands.effects import Refused, Sender
from pbm.records import verify
from pbm.store import players
from tests.records.conftest import boards_of, options_words, record_of

GAMES = [
    ("cephalopod", 2, {}),
    ("cephalopod", 3, {"size": 5}),
    ("cephalopod", 4, {"size": 4, "dice": 12}),
    ("cubeo", 2, {}),
    ("cubeo", 2, {"strict": True, "dice": 8, "remove": True, "samevalue": True}),
    ("dodeca", 2, {}),
]
ENDINGS = ("rules", "resign", "forfeit", "draw", "undo", "signoff")
_CLUBS = itertools.count()


def run(desk, line, sender):
    return desk.run(verbs.run, line, sender=sender)


def to_move(desk, game, number):
    live = desk.board(game, number)
    return live, (live.row.seats[live.row.to_move].player.userid if live.active else None)


def random_move(desk, game, number, chooser, userids):
    """The seat to move plays a random legal move (a bot's as its decision is run)."""
    live, mover = to_move(desk, game, number)
    move = chooser.choice(live.engine.legal_moves(live.state))
    if mover in userids:
        run(desk, f"{game} move {number} {mover} {mover}-pw {move}", mover)
    else:  # a bot: its decision as `pbm.mail.bot_turns` puts it in the inbox
        ply = live.row.move_count
        desk.run(as_bot, lang.Move(game, number, mover, None, move, replied_at=ply, line=move), sender=None)


def as_bot(ctx, command):
    """`command` run as the inbox runs a bot's decision: from nobody's address, for the bot."""
    ctx.sender = Sender(None, [players.find(ctx.session, command.userid)])
    return verbs.run(ctx, command)


def end(desk, game, number, ending, userids):
    """End the game at `number` as `ending` says, from where it stands (an ending the game does not
    allow there, such as taking back a move before any, is refused and changes nothing)."""
    try:
        _end(desk, game, number, ending, userids)
    except Refused:
        pass


def _end(desk, game, number, ending, userids):
    live, mover = to_move(desk, game, number)
    if mover is None:
        return
    if ending == "resign":
        run(desk, f"{game} resign {number} {mover} {mover}-pw", mover)
    elif ending == "signoff" and mover in userids:
        run(desk, f"signoff {mover} {mover}-pw", mover)
    elif ending == "forfeit":
        desk.clock.advance(days=90)
        desk.run(lambda ctx, _: deadlines.look(ctx, ctx.board(game, number).row), "help", sender=None)
    elif ending in ("draw", "undo") and mover in userids:
        run(desk, f"{game} move {number} {mover} {mover}-pw {'draw' if ending == 'draw' else 'undo'}", mover)
        others = [seat.player.userid for seat in desk.board(game, number).row.seats]
        for userid in [u for u in others if u != mover and u in userids]:
            run(desk, f"{game} move {number} {userid} {userid}-pw accept", userid)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(GAMES),
    ending=st.sampled_from(ENDINGS),
    plies=st.integers(min_value=0, max_value=14),
    bot=st.booleans(),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_every_ending_of_every_game_gives_a_record_that_verifies(desk, keys, game, ending, plies, bot, seed):
    name, players, options = game
    club = next(_CLUBS)  # players of their own: one of them may sign off
    humans = [f"p{club}x{seat}" for seat in range(players - bot)]
    desk.sign_up(*humans)
    userids = [*humans, "bot1"] if bot else humans
    desk.clock.advance(hours=1)
    run(desk, f"{name} challenge {options_words(options)} {' '.join(userids)}", humans[0])
    number = desk.read(lambda s: max(b.board for b in boards_of(s, name)))
    chooser = random.Random(seed)
    for _ in range(plies if ending != "rules" else 400):
        if not desk.board(name, number).active:
            break
        random_move(desk, name, number, chooser, humans)
        desk.clock.advance(minutes=1)
    if ending != "rules":
        end(desk, name, number, ending, humans)
        if ending == "undo" and desk.board(name, number).active:
            random_move(desk, name, number, chooser, humans)
    record = json.loads(json.dumps(record_of(desk, keys, name, number)))
    verdict = verify.verify(record, known_keys=keys.public_keys())
    assert verdict.genuine, (record["header"]["status"], record["header"].get("end"), verdict.problem)
