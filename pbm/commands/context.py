"""What every command handler works with: one mail's transaction, its sender, the clock, and
the checks and lookups the handlers share (passwords, boards, seats, board mails).

A `Context` lives for one command of one mail. It decides and asks the store
to change; it never adds, flushes or edits rows itself, and commits nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

import pbm.games
from pbm.addresses import same
from pbm.commands import language as lang
from pbm.commands.effects import OutgoingMail, PasswordCheck, Refused, ReplyAs, Sender
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.elo import RatingChange
from pbm.games import Game
from pbm.passwords import Passwords, WeakPassword
from pbm.store import boards, confirmations, offers, players, queues, turns, watchers
from pbm.store.models import Board, BoardStatus, MoveRecord, Player, QueuedMove
from pbm.views import BoardView, OfferNews, TimeView, board_view, queue_text, time_view

ANNOUNCED_ROWS = 4
"""Rows of the move list a mail about a move shows (the rest is a `show` away)."""


class Context:
    def __init__(
        self,
        session: Session,
        passwords: Passwords,
        limits: Limits,
        sender: Sender,
        *,
        comment: str = "",
        now: Callable[[], datetime],
        inbound_id: int | None = None,
        on_password_check: Callable[[PasswordCheck], None] = lambda check: None,
        club: Club = DEFAULT_CLUB,
    ) -> None:
        self.session = session
        self.passwords = passwords
        self.limits = limits
        self.club = club
        self.sender = sender
        self.comment = comment
        """The mail's comment, sent with the boards its command causes."""
        self.now = now
        self.inbound_id = inbound_id
        self.on_password_check = on_password_check
        """Told of every password checked, right or wrong: the caller counts wrong ones even
        when the command is refused (and its changes undone)."""

    # -- who is asking -----------------------------------------------------------

    def authenticate(self, userid: str, password: str) -> Player:
        player = players.find(self.session, userid)
        if player is None or not player.active:
            raise Refused(f"There is no player '{userid}' (sign up with: signup userid password)")
        sender = players.password_sender(self.sender.address, registered=player in self.sender.players)
        waits_until = players.password_wait(self.session, player, sender)
        if waits_until is not None and waits_until > self.now():
            # Not even checked: guessing must not go on while the sender waits.
            raise Refused(_password_wait_refusal(player.userid, waits_until, own=sender != players.OTHER_ADDRESSES))
        right = self.passwords.verify(player.password_hash, password)
        self.on_password_check(PasswordCheck(player.id, sender, right))
        if not right:
            raise Refused(f"Wrong password for {player.userid}")
        return player

    def hash(self, password: str) -> str:
        try:
            return self.passwords.hash(password)
        except WeakPassword as error:
            raise Refused(str(error)) from None

    def unconfirmed(self, named: Sequence[Player]) -> list[Player]:
        """Those of `named` the server may not write to yet: none of their addresses is confirmed
        (nobody, when the club does without confirmations)."""
        if not self.club.confirm_addresses:
            return []
        return [player for player in named if not confirmations.has_confirmed_address(self.session, player)]

    def check_confirmed(self, player: Player) -> None:
        """Refuse what `player` asks for while the server may not write to them: what they start
        would mail others, and its answers could not reach them."""
        if self.unconfirmed([player]):
            raise Refused(
                f"{player.userid} has no confirmed address yet. Reply to the mail the server sent to "
                f"confirm one (or ask for another: add {player.userid} PASSWORD ADDRESS), then send this again"
            )

    def named_players(self, userids: Sequence[str]) -> list[Player]:
        named = players.named(self.session, userids)
        missing = [u for u in userids if u not in named]
        if missing:
            raise Refused(f"No player is signed up as {', '.join(missing)}")
        return [named[u] for u in userids]

    # -- boards --------------------------------------------------------------------

    def board(self, game_type: str, number: int, *, for_update: bool = False) -> Board:
        board = boards.find(self.session, game_type, number, for_update=for_update)
        if board is None:
            raise Refused(f"There is no {pbm.games.get(game_type).title} board {number}")
        return board

    def playing(self, game_type: str, number: int, userid: str, password: str | None) -> tuple[Board, Player]:
        """The board (locked) and the player a move or a resignation is for.

        A command names the player with a password. A reply to a board mail
        (`password` None) names them by the token its address carried, checked
        before it got here, and counts only from an address the player
        registered: a board mail passed on to someone else does not let them play.
        """
        if password is not None:
            player = self.authenticate(userid, password)
            return self.board(game_type, number, for_update=True), player
        board = self.board(game_type, number, for_update=True)
        seated = next((seat.player for seat in board.seats if seat.player.userid == userid), None)
        named = seated or players.find(self.session, userid)
        if named is None or not named.active:
            raise Refused("The player this reply address names no longer plays here")
        player = named
        if player not in self.sender.players:
            raise Refused(
                f"This reply address is {player.userid}'s, and works only from an address {player.userid} "
                f"registered. To play from this address, send the move as a command instead: "
                f"{board.game_type} move {board.board} {player.userid} PASSWORD MOVE",
                view=self.view(board),
            )
        return board, player

    def check_reply_is_current(
        self, board: Board, player: Player, seat: int, command: lang.ReplyableCommand, *, doing: str
    ) -> None:
        """A reply to a board mail acts on the board that mail showed and on no other, as a move
        with a ``#N`` does: refused when the game has moved on since, or when its reply address is
        of the older kind that names no move (then nobody can tell), with the board as it stands
        and a reply address for it. `doing` says what the reply asked (``resign``)."""
        if not command.by_reply or command.replied_at == board.move_count:
            return
        if command.replied_at is None:
            why = (
                "Your reply came to the reply address of an older board mail, which does not say which "
                "move it showed: the game may have moved on since, so nothing was done"
            )
        else:
            why = (
                f"Your reply answers the board after move {command.replied_at}, but the game has moved on "
                f"since: it is at move {board.move_count + 1} now, and nothing was done"
            )
        assert board.to_move is not None, "a board in play has a seat to move"
        if isinstance(command, lang.Move) and board.to_move != seat:
            mover = board.seats[board.to_move].player.userid
            then = f"It is {mover}'s turn: you will be mailed the board when it is yours"
        elif isinstance(command, lang.Move):
            then = "Reply to the newest board mail (this one will do) with your move"
        else:
            then = f"Reply to the newest board mail (this one will do) if you still want to {doing}"
        raise Refused(
            f"{why}. {then}",
            view=self.view(board, viewer=seat),
            reply_as=ReplyAs(board.id, player.id, board.move_count),
        )

    def seat_in_play(self, board: Board, player: Player) -> int:
        """`player`'s seat at a board still being played; refused otherwise."""
        seat = boards.seat_of(board, player)
        title = pbm.games.get(board.game_type).title
        if seat is None:
            raise Refused(f"{player.userid} does not play in {title} board {board.board}")
        if board.status != BoardStatus.ACTIVE:
            view = self.view(board, viewer=seat)
            raise Refused(f"{title} board {board.board} is over. {view.summary}", view=view)
        return seat

    def viewer(self, board: Board) -> int | None:
        """The sender's seat at `board`, if one of their players sits there."""
        return next((seat.seat for seat in board.seats if seat.player in self.sender.players), None)

    # -- what mails show ---------------------------------------------------------

    def view(
        self,
        board: Board,
        state: Any = None,
        *,
        viewer: int | None = None,
        moves: Sequence[MoveRecord] | None = None,
        at_move: int | None = None,
    ) -> BoardView:
        """`board` as `viewer` sees it: as it stands (with the viewer's own queue), or `state` after
        `moves` (then `at_move` says which). Every caller mails it to `viewer`'s player or, by their
        password or registered address, to someone who is that player."""
        engine = pbm.games.get(board.game_type)
        if state is None:
            state = engine.resume(board.state, board.secret)
        moves = boards.moves_of(self.session, board) if moves is None else moves
        offer = offers.pending(self.session, board) if at_move is None else None
        queued = None if viewer is None else queues.of(self.session, board, board.seats[viewer].player)
        own = queue_text(queued.lines) if queued is not None else ()
        return board_view(
            engine,
            board,
            state,
            moves,
            viewer=viewer,
            at_move=at_move,
            offer=offer,
            queued=own,
            time=self.time_of(board),
            events=boards.events_of(self.session, board),
        )

    def time_of(self, board: Board) -> TimeView:
        """`board`'s time rules, clocks and the turn under way, as of now."""
        rules = turns.rules_of(board, self.club.time_control)
        return time_view(board, rules, turns.turn_of(self.session, board, self.now(), self.club.time_control))

    def board_mails(
        self,
        engine: Game[Any],
        board: Board,
        state: Any,
        *,
        author: Player,
        new: bool = False,
        announce: bool = False,
        ratings: Sequence[RatingChange] = (),
        offer_news: OfferNews | None = None,
        comment: str | None = None,
        private_notes: Mapping[int, str] | None = None,
        opening: str | None = None,
        queued: Mapping[int, QueuedMove] | None = None,
    ) -> list[OutgoingMail]:
        """The board, mailed to every seated player (each sees it from their seat, and their own queue).

        `announce`: the mail was caused by the last move, and says first what it did.
        `ratings`: what the game's end did to the players' ratings.
        `offer_news`: what just happened to a draw or undo proposal.
        `comment`: what the author wrote with it (the mail's comment unless given).
        `private_notes`: a line for one player's mail alone, by player id.
        `opening`: how a new game came about, when not by `author`'s challenge.
        `queued`: the queues at the board by player id, when the caller has them.
        """
        active = board.status == BoardStatus.ACTIVE
        if announce and active:
            # The mail shows the last rows of the move list: a move costs the same at move 3 and 300.
            recent = boards.recent_moves(self.session, board, ANNOUNCED_ROWS * len(board.seats) + 1)
            moves, before, widest = recent.moves, recent.earlier, recent.widest
        else:
            moves, before, widest = boards.moves_of(self.session, board), 0, 0
        offer = offers.pending(self.session, board)
        queued = queues.at(self.session, board) if queued is None else queued
        comment = self.comment if comment is None else comment
        news = {
            "comment": comment,
            "author": author,
            "new": new,
            "opening": opening,
            "announce": announce,
            "announced_rows": ANNOUNCED_ROWS,
            "offer_news": offer_news,
        }
        time = self.time_of(board)
        events = boards.events_of(self.session, board)
        mails = []
        for seat in board.seats:
            own = queue_text(queued[seat.player_id].lines) if seat.player_id in queued else ()
            view = board_view(
                engine,
                board,
                state,
                moves,
                viewer=seat.seat,
                offer=offer,
                queued=own,
                time=time,
                events=events,
                moves_before=before,
                widest_move=widest,
            )
            note = (private_notes or {}).get(seat.player_id)
            mails.append(
                OutgoingMail(
                    "board",
                    seat.player.primary_address,
                    {"view": view, "ratings": list(ratings), "private_note": note, **news},
                    board_id=board.id,
                    player_id=seat.player_id,
                    at_ply=board.move_count if active else None,
                    starts_thread=new,
                )
            )
        # The same news for the board's subscribers, without a reply address: they cannot play.
        # Their view is made only when someone needs it: most boards have no one watching.
        watching = watchers.watching(self.session, board)
        told = [] if active else watchers.to_tell_of_the_end(self.session, board)
        if not watching and not told:
            return mails
        unseated = board_view(
            engine, board, state, moves, offer=offer, time=time, events=events, moves_before=before, widest_move=widest
        )
        for watcher in watching:
            context = {"view": unseated, **news}
            mails.append(
                OutgoingMail(
                    "board",
                    watcher.primary_address,
                    context,
                    board_id=board.id,
                    player_id=watcher.id,
                    starts_thread=new,
                    to_watcher=True,
                )
            )
        mails += [
            OutgoingMail("game_over", p.primary_address, {"view": unseated}, player_id=p.id, to_watcher=True)
            for p in told
        ]
        return mails

    def board_for_sender(self, board: Board, view: BoardView) -> OutgoingMail:
        """A board for the sender, who may be one of its players (then the mail invites a reply)."""
        if view.viewer is None:
            return OutgoingMail("board", self.sender.address or "", {"view": view}, board_id=board.id)
        at_ply = view.at_move if view.at_move is not None else board.move_count
        return OutgoingMail(
            "board",
            self.sender.address or "",
            {"view": view},
            board_id=board.id,
            player_id=board.seats[view.viewer].player_id,
            at_ply=at_ply if board.status == BoardStatus.ACTIVE else None,
        )

    def to_sender(self, template: str, **context: Any) -> OutgoingMail:
        return OutgoingMail(template, self.sender.address or "", context)

    def to_player(self, account: Player, template: str, **context: Any) -> list[OutgoingMail]:
        """To every address of `account`, and to the sender if that is another address. The
        sender's copy answers their mail: it reaches them whether or not the address is confirmed."""
        sender = self.sender.address
        mails = [
            OutgoingMail(
                template, a.address, context, player_id=None if sender and same(a.address, sender) else account.id
            )
            for a in account.addresses
        ]
        if sender and not any(same(sender, a.address) for a in account.addresses):
            mails.append(OutgoingMail(template, sender, context))
        return mails


def _password_wait_refusal(userid: str, until: datetime, *, own: bool) -> str:
    """Why a password command waits: too many wrong passwords from the player's own address
    (`own`), or from addresses the player never registered."""
    when = f"{until:%Y-%m-%d %H:%M} UTC"
    if own:
        return (
            f"Too many wrong passwords for {userid} from this address: commands with its password are refused "
            f"from here until {when}. Replying to a board mail still plays a move without the password, and a "
            f"password reset (password reset {userid}) ends the wait"
        )
    return (
        f"Too many wrong passwords for {userid} from addresses it has not registered: commands with its "
        f"password are refused from them until {when}. From the addresses {userid} registered they still work"
    )


def try_again_after(oldest_counted: datetime, window: timedelta) -> str:
    """When the oldest event counted in a sliding `window` leaves it: the time to try again."""
    return f"{oldest_counted + window:%Y-%m-%d %H:%M} UTC"
