"""Seeing a move before it counts: ``submit`` and ``confirm``, and ``preview`` of moves on a copy.

``submit`` mails the mover alone the board after the move; ``confirm`` plays it
then, unless the board changed meanwhile (any move at the board makes what was
submitted stale). ``preview`` plays moves on a copy of a board, as it stands or
after move N, or of a new game, and mails the result; nothing is saved.
"""

from __future__ import annotations

from typing import Any

import pbm.games
from pbm.commands import language as lang
from pbm.commands import play, recipients
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.facts import Fact
from pbm.games import Game
from pbm.store import boards, submissions

LONGEST_MOVE_WORDS = 3
"""A move is written in at most this many words (Dodeca's ``roll c2`` takes two)."""


def submit(ctx: Context, command: lang.Submit) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    engine = board.engine
    seat = ctx.seat_in_play(board, player)
    notation, _ = play.checked_move(ctx, board, seat, command.move)
    submissions.submit(ctx.session, board.row, player, notation, ctx.now())
    # Shown from a stand-in secret: the real state after the move would show the real next roll,
    # and a player could submit, look, and never confirm.
    _, shown = engine.play_notated(engine.with_stand_in_secret(board.state), notation)
    first = board.row.move_count + 1
    names = [s.player.userid for s in board.row.seats]
    context = _preview(engine, shown, names, [(first, player.userid, notation)], viewer=seat)
    context |= {"board": board.row.board, "submitted": notation, "userid": player.userid}
    return [recipients.to_sender(ctx, "preview", **context)]


def confirm(ctx: Context, command: lang.Confirm) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    submitted = submissions.take(ctx.session, board.row, player)
    if submitted is None:
        raise Refused("nothing-submitted", userid=player.userid)
    if submitted.at_move != board.row.move_count:
        raise Refused(
            "board-changed-since-submit",
            userid=player.userid,
            move=submitted.move,
            now_at=board.row.move_count + 1,
            view=ctx.view(board),
        )
    return play.play(ctx, board, player, submitted.move)


def preview(ctx: Context, command: lang.Preview) -> list[OutgoingMail]:
    engine = pbm.games.get(command.game)
    if command.board is None:
        try:
            engine.check_players(command.players)
            state = engine.new(players=command.players, options=command.options)
        except pbm.games.InvalidOptions as error:
            raise Refused(error.fact) from None
        userids = list(engine.seat_names[: command.players])
        done = 0
        starts: str | None = userids[state.to_move]  # by the dice, in a game that rolls for it
    else:
        board = ctx.board(command.game, command.board)
        records = boards.moves_of(ctx.session, board.row)
        done = len(records) if command.at_move is None else command.at_move
        if done > len(records):
            raise Refused("fewer-moves", title=engine.title, board=board.row.board, count=len(records), at_move=done)
        state = board.state if board.active and command.at_move is None else board.replayed(records[:done])
        userids = [seat.player.userid for seat in board.row.seats]
        starts = None
        if board.active:
            # Moves on the copy must not roll the game's real next dice (see `Game.with_stand_in_secret`).
            state = engine.with_stand_in_secret(state)
    moves, state = play_words(engine, state, command.moves.split(), userids)
    played = [(done + i, userids[seat], notation) for i, (seat, notation) in enumerate(moves, start=1)]
    context = _preview(engine, state, userids, played)
    context |= {"board": command.board, "submitted": None, "userid": None, "starts": starts}
    return [recipients.to_sender(ctx, "preview", **context)]


def play_words(engine: Game[Any], state: Any, words: list[str], names: list[str]) -> tuple[list[tuple[int, str]], Any]:
    """The moves `words` write, as (seat, notation), and the state after them. Each move is the fewest
    words that make a legal move where the ones before left the game (``roll c2 c2-c6=3`` is two).
    A refusal names the seat to move (`names`): in a new game, the dice may have chosen it."""
    moves: list[tuple[int, str]] = []
    at = 0
    while at < len(words):
        problem: pbm.games.IllegalMove | None = None
        for length in range(1, min(LONGEST_MOVE_WORDS, len(words) - at) + 1):
            try:
                notation, after = engine.play_notated(state, " ".join(words[at : at + length]))
            except pbm.games.IllegalMove as error:
                problem = error
                continue
            moves.append((state.to_move, notation))
            state, at = after, at + length
            break
        else:
            assert problem is not None, "at least one length was tried"
            raise Refused(
                "preview-illegal", reason=problem.fact, word=words[at], userid=names[state.to_move], count=len(moves)
            )
    return moves, state


def _preview(
    engine: Game[Any], state: Any, names: list[str], played: list[tuple[int, str, str]], viewer: int | None = None
) -> dict[str, Any]:
    """What a preview mail shows: the moves played on the copy, and where they leave the game
    (`names` are the seats' players, or for a new game the seats' names)."""
    result = engine.result(state)
    return {
        "title": engine.title,
        "game": engine.name,
        "played": played,
        "board_text": engine.render(state, viewer=viewer),
        "drawing": engine.drawing(state, viewer=viewer),
        "result": Fact("winners-result", winners=[names[seat] for seat in result.winners], result=result.fact)
        if result
        else None,
        "to_move": names[state.to_move] if result is None else None,
        "stand_in_dice": engine.published_rolls(state) is not None,
    }
