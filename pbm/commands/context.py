"""What every command handler works with: one mail's transaction, its sender, the clock, and
the checks and lookups the handlers share (passwords, boards, seats, the views of a board).

A `Context` lives for one command of one mail. It decides and asks the store
to change; it never adds, flushes or edits rows itself, and commits nothing.
Who is mailed what is `pbm.commands.recipients`'s to say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands.effects import PasswordCheck, Refused, ReplyAs, Sender, listed
from pbm.config import DEFAULT_CLUB, Club, Limits
from pbm.crypto.passwords import MAX_LENGTH, MIN_LENGTH, Passwords, WeakPassword
from pbm.facts import Fact
from pbm.store import confirmations, players, queues
from pbm.store.models import Player
from pbm.views import live
from pbm.views.board import BoardView, queue_text
from pbm.views.live import LiveBoard, Snapshot


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
            raise Refused("no-such-player", userid=userid)
        registered = player in self.sender.players
        unproven_host = (self.sender.host or "") if self.sender.unproven else None
        sender = players.password_sender(self.sender.address, registered=registered, unproven_host=unproven_host)
        waits_until = players.password_wait(self.session, player, sender)
        if waits_until is not None and waits_until > self.now():
            # Not even checked: guessing must not go on while the sender waits.
            # From the player's own address, or from addresses (or a host) the player cannot vouch for.
            own = registered and unproven_host is None
            raise Refused(
                "password-wait-own" if own else "password-wait-others", userid=player.userid, until=waits_until
            )
        right = self.passwords.verify(player.password_hash, password)
        self.on_password_check(PasswordCheck(player.id, sender, right))
        if not right:
            raise Refused("wrong-password", userid=player.userid)
        return player

    def hash(self, password: str) -> str:
        try:
            return self.passwords.hash(password)
        except WeakPassword:
            raise Refused("password-length", shortest=MIN_LENGTH, longest=MAX_LENGTH) from None

    def unconfirmed(self, named: Sequence[Player]) -> list[Player]:
        """Those of `named` the server may not write to yet: none of their addresses is confirmed
        (nobody, when the club does without confirmations). A bot is never written to, and
        needs no address."""
        if not self.club.confirm_addresses:
            return []
        return [
            player
            for player in named
            if not player.is_bot and not confirmations.has_confirmed_address(self.session, player)
        ]

    def check_confirmed(self, player: Player) -> None:
        """Refuse what `player` asks for while the server may not write to them: what they start
        would mail others, and its answers could not reach them."""
        if self.unconfirmed([player]):
            raise Refused("not-confirmed", userid=player.userid)

    def named_players(self, userids: Sequence[str]) -> list[Player]:
        named = players.named(self.session, userids)
        missing = [u for u in userids if u not in named]
        if missing:
            raise Refused("no-player-signed-up", userids=listed(missing))
        return [named[u] for u in userids]

    # -- boards --------------------------------------------------------------------

    def board(self, game_type: str, number: int, *, for_update: bool = False) -> LiveBoard:
        """The board, read for this command (`for_update`: locked, to change it); refused when there is none."""
        board = live.load(self.session, game_type, number, for_update=for_update)
        if board is None:
            raise Refused("no-such-board", title=pbm.games.get(game_type).title, board=number)
        return board

    def playing(self, game_type: str, number: int, userid: str, password: str | None) -> tuple[LiveBoard, Player]:
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
            raise Refused("reply-player-gone")
        player = named
        if player not in self.sender.players:
            raise Refused(
                "reply-from-unregistered",
                userid=player.userid,
                game=board.row.game_type,
                board=board.row.board,
                view=self.view(board),
            )
        return board, player

    def check_reply_is_current(
        self, board: LiveBoard, player: Player, seat: int, command: lang.ReplyableCommand, *, doing: Fact | None
    ) -> None:
        """A reply to a board mail acts on the board that mail showed and on no other, as a move
        with a ``#N`` does: refused when the game has moved on since, or when its reply address is
        of the older kind that names no move (then nobody can tell), with the board as it stands
        and a reply address for it. `doing` says what the reply asked (``doing-resign``; None for a move)."""
        row = board.row
        if not command.by_reply or command.replied_at == row.move_count:
            return
        if command.replied_at is None:
            why = Fact("reply-names-no-move")
        else:
            why = Fact("reply-moved-on", replied_at=command.replied_at, now_at=row.move_count + 1)
        assert row.to_move is not None, "a board in play has a seat to move"
        if isinstance(command, lang.Move) and row.to_move != seat:
            then = Fact("reply-wait-for-turn", userid=board.player_at(row.to_move).userid)
        elif isinstance(command, lang.Move) or doing is None:
            then = Fact("reply-with-move")
        else:
            then = Fact("reply-if-still", doing=doing)
        raise Refused(
            "reply-stale",
            why=why,
            then=then,
            view=self.view(board, viewer=seat),
            reply_as=ReplyAs(row.id, player.id, row.move_count),
        )

    def seat_in_play(self, board: LiveBoard, player: Player) -> int:
        """`player`'s seat at a board still being played; refused otherwise."""
        seat = self.seat_at(board, player)
        if not board.active:
            view = self.view(board, viewer=seat)
            raise Refused("board-over", title=board.title, board=board.row.board, summary=view.summary_fact, view=view)
        return seat

    def seat_at(self, board: LiveBoard, player: Player) -> int:
        """`player`'s seat at `board`, over or not; refused when they have none."""
        seat = board.seat_of(player)
        if seat is None:
            raise Refused("not-playing-at", userid=player.userid, title=board.title, board=board.row.board)
        return seat

    def viewer(self, board: LiveBoard) -> int | None:
        """The sender's seat at `board`, if one of their players sits there."""
        return next((seat.seat for seat in board.seats if seat.player in self.sender.players), None)

    # -- what mails show ---------------------------------------------------------

    def snapshot(self, board: LiveBoard, *, last_moves: int | None = None) -> Snapshot:
        """`board` as it stands now, for every view a command's mails show of it (`live.snapshot`)."""
        return live.snapshot(
            self.session, board, now=self.now(), club_rules=self.club.time_control, last_moves=last_moves
        )

    def view(self, board: LiveBoard, *, viewer: int | None = None) -> BoardView:
        """`board` as it stands, as `viewer` sees it, with the viewer's own queue. Every caller mails
        it to `viewer`'s player or, by their password or registered address, to someone who is that player."""
        return self.snapshot(board).view(viewer, queued=self.queue_of(board, viewer))

    def queue_of(self, board: LiveBoard, viewer: int | None) -> tuple[str, ...]:
        """The lines `viewer`'s player queued at `board`, for their eyes only."""
        if viewer is None:
            return ()
        queued = queues.of(self.session, board.row, board.player_at(viewer))
        return queue_text(queued.lines) if queued is not None else ()
