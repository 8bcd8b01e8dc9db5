"""Composing board mails: ``python -m benchmarks.compose_mail [--seconds 3]``.

Composes the mail a move sends: a Cephalopod board 20 moves in, seen by the
player to move, with a comment and a Reply-To token, threaded to the game's
first mail. Reports the time per mail of `Composer.compose` (rendering and
writing the bytes) and of `Composer.render` alone, so the difference is what
writing the headers and encoding the body costs. Numbers only.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from types import SimpleNamespace

import pbm.games
from benchmarks.timing import repeat_for
from pbm.commands.effects import OutgoingMail
from pbm.mail.compose import Composer
from pbm.mail.tokens import Addressing, ReplyTokens
from pbm.store.models import BoardStatus
from pbm.views.board import BoardView
from pbm.views.moves import MoveView
from pbm.views.seats import SeatView
from pbm.words.templating import Templates

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
MOVES = 20


def board_reply() -> OutgoingMail:
    """The board mail to the player to move, after `MOVES` moves (each the engine's first legal one)."""
    engine = pbm.games.get("cephalopod")
    state = engine.new(players=2, options={}, seed=1)
    moves = []
    for number in range(1, MOVES + 1):
        notation = engine.legal_moves(state)[0]
        moves.append(MoveView(number, state.to_move, notation, "", NOW))
        state = engine.play(state, notation)
    seats = [SeatView(0, engine.seat_names[0], "alice"), SeatView(1, engine.seat_names[1], "bob")]
    view = BoardView(
        game_type="cephalopod",
        title=engine.title,
        attribution=engine.attribution,
        board=101,
        options="",
        status=BoardStatus.ACTIVE,
        seats=seats,
        moves=moves,
        board_text=engine.render(state, viewer=state.to_move),
        notes=engine.public_notes(state, game_over=False),
        to_move=seats[state.to_move],
        winners=[],
        end_reason="",
        created_at=NOW,
        updated_at=NOW,
        viewer=state.to_move,
    )
    context = {"view": view, "comment": "Your move, and mind the corner.", "author": SimpleNamespace(userid="bob")}
    return OutgoingMail("board", "alice@example.org", context, board_id=1, player_id=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to time each measurement")
    args = parser.parse_args(argv)

    composer = Composer(Templates(), Addressing("pbm@example.org"), ReplyTokens(b"k" * 32), b"t" * 32)
    reply = board_reply()
    context = {**reply.context, "server": "pbm@example.org"}
    rounds, elapsed = repeat_for(args.seconds, lambda: composer.compose(reply, now=NOW))
    composed = elapsed / rounds
    rounds, elapsed = repeat_for(args.seconds, lambda: composer.render(reply.template, context))
    rendered = elapsed / rounds
    print(f"compose one board mail: {composed * 1e6:8.1f} µs")
    print(f"  render alone:         {rendered * 1e6:8.1f} µs")
    print(f"  headers and body:     {(composed - rendered) * 1e6:8.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
