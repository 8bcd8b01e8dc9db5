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
from pbm.commands import play
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail, Refused
from pbm.games import Game
from pbm.store import boards, submissions
from pbm.store.models import BoardStatus
from pbm.views import joined_names, moves_text
from pbm.words import Words

LONGEST_MOVE_WORDS = 3
"""A move is written in at most this many words (Dodeca's ``roll c2`` takes two)."""


def submit(ctx: Context, command: lang.Submit) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    engine = pbm.games.get(board.game_type)
    seat = ctx.seat_in_play(board, player)
    state = engine.resume(board.state, board.secret)
    notation, _ = play.checked_move(ctx, board, seat, state, command.move)
    submissions.submit(ctx.session, board, player, notation, ctx.now())
    # Shown from a stand-in secret: the real state after the move would show the real next roll,
    # and a player could submit, look, and never confirm.
    _, shown = engine.play_notated(engine.with_stand_in_secret(state), notation)
    first = board.move_count + 1
    names = [s.player.userid for s in board.seats]
    context = _preview(engine, shown, names, [(first, player.userid, notation)], viewer=seat)
    context |= {"board": board.board, "submitted": notation, "userid": player.userid}
    return [ctx.to_sender("preview", **context)]


def confirm(ctx: Context, command: lang.Confirm) -> list[OutgoingMail]:
    board, player = ctx.playing(command.game, command.board, command.userid, command.secret)
    submitted = submissions.take(ctx.session, board, player)
    if submitted is None:
        raise Refused(f"{player.userid} has no move submitted at this board: submit one first")
    if submitted.at_move != board.move_count:
        raise Refused(
            f"The board changed since {player.userid} submitted {submitted.move} (it is at move "
            f"{board.move_count + 1} now), so nothing was played: look at the board and submit again",
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
            raise Refused(str(error)) from None
        userids = list(engine.seat_names[: command.players])
        done = 0
        starts: str | None = userids[state.to_move]  # by the dice, in a game that rolls for it
    else:
        board = ctx.board(command.game, command.board)
        records = boards.moves_of(ctx.session, board)
        done = len(records) if command.at_move is None else command.at_move
        if done > len(records):
            raise Refused(f"{engine.title} board {board.board} has {moves_text(len(records))}, not {done}")
        if board.status == BoardStatus.ACTIVE and command.at_move is None:
            state = engine.resume(board.state, board.secret)
        else:
            start = engine.new(players=len(board.seats), options=board.options, seed=board.secret)
            state = engine.replay(start, [(record.seat, record.notation) for record in records[:done]])
        userids = [seat.player.userid for seat in board.seats]
        starts = None
        if board.status == BoardStatus.ACTIVE:
            # Moves on the copy must not roll the game's real next dice (see `Game.with_stand_in_secret`).
            state = engine.with_stand_in_secret(state)
    moves, state = play_words(engine, state, command.moves.split(), userids)
    played = [(done + i, userids[seat], notation) for i, (seat, notation) in enumerate(moves, start=1)]
    context = _preview(engine, state, userids, played)
    context |= {"board": command.board, "submitted": None, "userid": None, "starts": starts}
    return [ctx.to_sender("preview", **context)]


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
            raise Refused(
                f"Illegal move: {problem} (at '{words[at]}', {names[state.to_move]} to move, "
                f"after {len(moves)} moves previewed)"
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
        "result": joined_names(names[seat] for seat in result.winners) + " " + Words().say(result.fact)
        if result
        else None,
        "to_move": names[state.to_move] if result is None else None,
        "stand_in_dice": engine.published_rolls(state) is not None,
    }
