"""Running a command: the checks, the changes to the store, the replies it causes.

The executor works inside the caller's transaction and commits nothing; the
mail processor runs each command in a savepoint so a refused command leaves no
trace. A command never sends mail itself: it returns `Reply` effects that the
mail layer renders from templates into the outbox, in the same transaction.

A refusal raises `Refused` with a message written for the player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

import pbm.games
from pbm.commands import language as lang
from pbm.commands.plan import ReplyMove, ReplyResign, ReplyShow
from pbm.commands.ratings import is_provisional, rate
from pbm.commands.views import BoardView, RatingChange, board_view, report_data
from pbm.config import Limits
from pbm.games import Game as Engine
from pbm.passwords import Passwords, WeakPassword
from pbm.store import repository as repo
from pbm.store.models import Game, Move, Player, PlayerAddress, Seat, utcnow


@dataclass(frozen=True)
class Reply:
    """One mail a command causes, to one address, rendered from ``templates/mail/<template>.txt``."""

    template: str
    to: str
    context: dict[str, Any] = field(default_factory=dict)
    game_id: int | None = None
    player_id: int | None = None
    """The recipient as a player seated in `game_id`: the mail joins their thread of that game."""
    at_ply: int | None = None
    """The move number of the board the mail shows, when a reply to it may play the next move:
    the mail's reply token names it, so a reply to an older board is stale."""
    starts_thread: bool = False
    """The game's first mail to this recipient: later mails refer to it."""


@dataclass(frozen=True)
class ReplyAs:
    """A player's board in an error mail that, like a board mail, a reply may answer with a move."""

    game_id: int
    player_id: int
    at_ply: int


class Refused(Exception):
    """The command cannot run; the message says why. `view` is the board involved, if any;
    `reply_as` makes the error mail answerable with a move, as a board mail is."""

    def __init__(self, message: str, *, view: BoardView | None = None, reply_as: ReplyAs | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.view = view
        self.reply_as = reply_as


@dataclass(frozen=True)
class Sender:
    """Who sent the mail: the From address and the players registered with it."""

    address: str | None
    players: Sequence[Player] = ()


@dataclass(frozen=True)
class PasswordCheck:
    """A password was checked: the processor records it even when the command is refused."""

    player_id: int
    right: bool


class Executor:
    def __init__(
        self,
        session: Session,
        passwords: Passwords,
        limits: Limits,
        *,
        now: Callable[[], datetime] = utcnow,
        inbound_id: int | None = None,
    ) -> None:
        self.session = session
        self.passwords = passwords
        self.limits = limits
        self.now = now
        self.inbound_id = inbound_id
        self.password_checks: list[PasswordCheck] = []
        """Every password this executor checked, right or wrong, in order."""

    def run(self, command: lang.Command, sender: Sender, comment: str = "") -> list[Reply]:
        match command:
            case lang.Help(topic=topic):
                return self._help(topic, sender)
            case lang.ListGames():
                return [self._to_sender(sender, "list", games=pbm.games.all_games())]
            case lang.Signup():
                return self._signup(command, sender)
            case lang.ChangePassword():
                return self._change_password(command, sender)
            case lang.ChangeAddress():
                return self._change_address(command, sender)
            case lang.Signoff():
                return self._signoff(command, sender)
            case lang.GameHelp(game=game):
                return [self._to_sender(sender, "game_help", game=pbm.games.get(game))]
            case lang.Challenge():
                return self._challenge(command, sender, comment)
            case lang.Move():
                game, player = self._acting(command, sender)
                return self._move(game, player, command.move, comment)
            case ReplyMove(at_ply=at_ply):
                game, player = self._acting(command, sender)
                return self._move(game, player, command.move, comment, replied_to=at_ply)
            case lang.Resign() | ReplyResign():
                game, player = self._acting(command, sender)
                return self._resign(game, player, comment)
            case lang.Show():
                return self._show(command, sender)
            case ReplyShow():
                game, player = self._acting(command, sender)
                return self._show_current(game, player, sender)
            case lang.Games():
                return self._games(command, sender)
            case lang.History():
                return self._history(command, sender)
            case lang.Standings():
                return self._standings(command, sender)
        raise TypeError(f"no handler for {command!r}")  # pragma: no cover - every command has one

    # -- accounts ------------------------------------------------------------

    def _help(self, topic: str | None, sender: Sender) -> list[Reply]:
        if topic is None or topic in ("commands", "help"):
            return [self._to_sender(sender, "help", games=pbm.games.all_games())]
        if topic in pbm.games.names():
            return [self._to_sender(sender, "game_help", game=pbm.games.get(topic))]
        topics = ", ".join(["commands", *pbm.games.names()])
        raise Refused(f"There is no help on '{topic}'; the topics are: {topics}")

    def _signup(self, command: lang.Signup, sender: Sender) -> list[Reply]:
        if repo.find_player(self.session, command.userid) is not None:
            raise Refused(f"The userid '{command.userid}' is taken; choose another one")
        addresses = command.addresses or ((sender.address,) if sender.address else ())
        if not addresses:
            raise Refused(
                "Your mail has no From address; name the address to use: signup userid password address"
            )
        now = self.now()
        if sender.address:
            day = now - timedelta(days=1)
            recent = repo.signups_from(self.session, sender.address, since=day)
            if len(recent) >= self.limits.signups_per_sender_per_day:
                raise Refused(
                    f"Your address has signed up {len(recent)} players in the last 24 hours, as many as one "
                    f"address may; try again after {_when(day, now, recent[0])}"
                )
        password_hash = self._hash(command.secret)
        player = Player(
            userid=command.userid, password_hash=password_hash, created_at=now, signup_sender=sender.address
        )
        player.addresses = [PlayerAddress(address=a, position=i) for i, a in enumerate(addresses)]
        self.session.add(player)
        self.session.flush()
        recipients = dict.fromkeys([*addresses, *([sender.address] if sender.address else [])])
        return [Reply("signup", to, {"player": player, "addresses": addresses}) for to in recipients]

    def _change_password(self, command: lang.ChangePassword, sender: Sender) -> list[Reply]:
        player = self._authenticate(command.userid, command.old)
        player.password_hash = self._hash(command.new)
        return self._to_player(player, sender, "password_changed", player=player)

    def _change_address(self, command: lang.ChangeAddress, sender: Sender) -> list[Reply]:
        player = self._authenticate(command.userid, command.secret)
        old = [a.address for a in player.addresses]
        player.addresses.clear()
        self.session.flush()
        player.addresses.extend(PlayerAddress(address=a, position=i) for i, a in enumerate(command.addresses))
        # Both the old and the new addresses hear of it: a stolen password shows up.
        recipients = dict.fromkeys([*old, *command.addresses])
        context = {"player": player, "old": old, "new": list(command.addresses)}
        return [Reply("address_changed", to, context) for to in recipients]

    def _signoff(self, command: lang.Signoff, sender: Sender) -> list[Reply]:
        player = self._authenticate(command.userid, command.secret)
        active = repo.find_games(self.session, repo.games_query(player_ids=[player.id]))
        if active:
            boards = ", ".join(f"{g.game_type} {g.board}" for g in active)
            raise Refused(f"{player.userid} still plays in {boards}: finish or resign those games first")
        replies = self._to_player(player, sender, "signoff", player=player)
        player.signed_off_at = self.now()
        return replies

    # -- games ---------------------------------------------------------------

    def _challenge(self, command: lang.Challenge, sender: Sender, comment: str) -> list[Reply]:
        engine = pbm.games.get(command.game)
        userids = command.userids
        if len(set(userids)) != len(userids):
            raise Refused("Each player can take only one seat: a userid is named twice")
        try:
            engine.check_players(len(userids))
        except pbm.games.InvalidOptions as error:
            raise Refused(str(error)) from None
        named = repo.players_named(self.session, userids)
        missing = [u for u in userids if u not in named or not named[u].active]
        if missing:
            raise Refused(f"No player is signed up as {', '.join(missing)}")
        challenger = next((p for p in named.values() if p in sender.players), None)
        if challenger is None:
            raise Refused(
                "You can only start a game you play in: the challenge must come from the registered "
                f"address of one of {', '.join(userids)}"
            )
        now = self.now()
        hour = now - timedelta(hours=1)
        recent = repo.challenges_by(self.session, challenger.id, since=hour)
        if len(recent) >= self.limits.challenges_per_sender_per_hour:
            raise Refused(
                f"{challenger.userid} has started {len(recent)} games in the last hour, as many as one player "
                f"may; try again after {_when(hour, now, recent[0])}"
            )
        state = engine.new(players=len(userids), options=command.options)
        game = Game(
            game_type=engine.name,
            board=repo.allocate_board(self.session, engine.name),
            options=dict(command.options),
            status="active",
            state=engine.dump(state),
            secret=engine.secret_of(state),
            move_count=0,
            to_move=state.to_move,
            created_at=now,
            updated_at=now,
            challenger_id=challenger.id,
        )
        game.seats = [Seat(seat=i, player=named[u]) for i, u in enumerate(userids)]
        self.session.add(game)
        self.session.flush()
        return self._board_mails(engine, game, state, [], comment=comment, author=challenger, new=True)

    def _move(
        self, game: Game, player: Player, move: str, comment: str, *, replied_to: int | None = None
    ) -> list[Reply]:
        """Play `move` for `player`; `replied_to` is the move number of the board a reply answered."""
        engine = pbm.games.get(game.game_type)
        seat = self._seat(game, player)
        state = engine.load(game.state, game.secret)
        if replied_to is not None and replied_to != game.move_count:
            raise Refused(
                f"Your reply answers the board after move {replied_to}, but the game has moved on "
                f"since: it is at move {game.move_count + 1} now, and nothing was played. Reply to the "
                "newest board mail (this one will do) with your move",
                view=self._view(engine, game, state, viewer=seat),
                reply_as=ReplyAs(game.id, player.id, game.move_count),
            )
        if game.to_move != seat:
            raise Refused(
                f"It is not your turn: {game.seats[game.to_move].player.userid} is to move",
                view=self._view(engine, game, state, viewer=seat),
            )
        try:
            notation, after = engine.play_notated(state, move)
        except pbm.games.StaleMove as error:
            raise Refused(f"Stale move: {error}", view=self._view(engine, game, state, viewer=seat)) from None
        except pbm.games.IllegalMove as error:
            raise Refused(f"Illegal move: {error}", view=self._view(engine, game, state, viewer=seat)) from None
        now = self.now()
        self._record_move(game, seat, notation, comment, report_data(engine.report(state, notation, after)))
        game.state = engine.dump(after)
        game.to_move = after.to_move
        game.updated_at = now
        result = engine.result(after)
        ratings = self._finish(game, result.winners, result.reason) if result is not None else []
        return self._board_mails(
            engine, game, after, self._moves(game), comment=comment, author=player, announce=True, ratings=ratings
        )

    def _record_move(
        self, game: Game, seat: int, notation: str, comment: str, report: dict[str, Any]
    ) -> None:
        game.move_count += 1
        self.session.add(
            Move(
                game_id=game.id,
                number=game.move_count,
                seat=seat,
                notation=notation,
                comment=comment,
                created_at=self.now(),
                inbound_id=self.inbound_id,
                report=report,
            )
        )

    def _resign(self, game: Game, player: Player, comment: str) -> list[Reply]:
        engine = pbm.games.get(game.game_type)
        seat = self._seat(game, player)
        state = engine.load(game.state, game.secret)
        now = self.now()
        game.updated_at = now
        ratings: list[RatingChange] = []
        if game.move_count < len(game.seats):
            # pbmserv: resigning before everyone has moved calls the game off, unrated.
            game.status = "cancelled"
            game.to_move = None
            game.finished_at = now
            game.end_reason = f"{player.userid} resigned in the first round"
        else:
            after = engine.resign(state, seat)
            if after is None:
                self._record_move(game, seat, "resign", comment, {"text": "resigned"})
                others = [s.seat for s in game.seats if s.seat != seat]
                outcome = "won" if len(others) == 1 else "tied"
                ratings = self._finish(game, others, f"{outcome} when {player.userid} resigned")
            else:
                self._record_move(
                    game, seat, "resign", comment, {"text": "resigned and leaves the game; the others play on"}
                )
                game.state = engine.dump(after)
                game.to_move = after.to_move
                result = engine.result(after)
                if result is not None:
                    ratings = self._finish(game, result.winners, result.reason)
                state = after
        return self._board_mails(
            engine, game, state, self._moves(game), comment=comment, author=player, announce=True, ratings=ratings
        )

    def _finish(self, game: Game, winners: list[int], reason: str) -> list[RatingChange]:
        """End `game` with `winners` and rate it; returns what that did to each player's rating."""
        game.status = "finished"
        game.to_move = None
        game.winners = list(winners)
        game.end_reason = reason
        game.finished_at = game.updated_at
        players = [seat.player for seat in game.seats]
        ratings = repo.ratings_of(self.session, players, game.game_type)
        new = rate([r.rating for r in ratings], set(winners))
        changes = []
        for seat, (rating, value) in enumerate(zip(ratings, new)):
            before = round(rating.rating)
            rating.rating = value
            rating.games += 1
            if seat in winners and len(winners) == 1:
                rating.wins += 1
            elif seat in winners:
                rating.draws += 1
            else:
                rating.losses += 1
            changes.append(RatingChange(players[seat].userid, before, round(value), is_provisional(rating.games)))
        return changes

    def _show(self, command: lang.Show, sender: Sender) -> list[Reply]:
        engine = pbm.games.get(command.game)
        replies = []
        for board, at_move in command.boards:
            game = self._game(command.game, board)
            viewer = next((s.seat for s in game.seats if s.player in sender.players), None)
            moves = self._moves(game)
            if at_move is None:
                view = self._view(
                    engine, game, engine.load(game.state, game.secret), viewer=viewer, moves=moves
                )
            else:
                if at_move > len(moves):
                    raise Refused(f"{engine.title} board {board} has {len(moves)} moves, not {at_move}")
                state = self._replay(engine, game, moves[:at_move])
                view = self._view(engine, game, state, viewer=viewer, moves=moves[:at_move], at_move=at_move)
            replies.append(self._board_for(sender, game, view, viewer))
        return replies

    def _board_for(self, sender: Sender, game: Game, view: BoardView, viewer: int | None) -> Reply:
        """A board for the sender, who may be one of its players (then the mail invites a reply)."""
        if viewer is None:
            return Reply("board", sender.address or "", {"view": view}, game_id=game.id)
        at_ply = view.at_move if view.at_move is not None else game.move_count
        return Reply(
            "board",
            sender.address or "",
            {"view": view},
            game_id=game.id,
            player_id=game.seats[viewer].player_id,
            at_ply=at_ply if game.status == "active" else None,
        )

    def _show_current(self, game: Game, player: Player, sender: Sender) -> list[Reply]:
        """The board as it stands, for a player who replied ``show`` to a board mail."""
        engine = pbm.games.get(game.game_type)
        seat = repo.seat_of(game, player)
        view = self._view(engine, game, engine.load(game.state, game.secret), viewer=seat)
        return [self._board_for(sender, game, view, seat)]

    def _games(self, command: lang.Games, sender: Sender) -> list[Reply]:
        players = self._named_players(command.userids)
        if command.which == "next":
            if not players:
                players = list(sender.players)
            if not players:
                raise Refused("Whose turn? Name a userid: games userid next")
            games: list[Game] = []
            for player in players:
                query = repo.games_query(command.game, to_move_player=player.id)
                games.extend(repo.find_games(self.session, query))
        else:
            statuses = ("active",) if command.which == "active" else ()
            query = repo.games_query(command.game, player_ids=[p.id for p in players], statuses=statuses)
            games = repo.find_games(self.session, query)
        engine = pbm.games.get(command.game)
        return [
            self._to_sender(sender, "games", engine=engine, games=games, which=command.which, players=players)
        ]

    def _history(self, command: lang.History, sender: Sender) -> list[Reply]:
        players = self._named_players(command.userids)
        query = repo.games_query(
            command.game, player_ids=[p.id for p in players], statuses=("finished", "cancelled")
        )
        games = repo.find_games(self.session, query, limit=100, newest_first=True)
        engine = pbm.games.get(command.game)
        return [self._to_sender(sender, "history", engine=engine, games=games, players=players)]

    def _standings(self, command: lang.Standings, sender: Sender) -> list[Reply]:
        engine = pbm.games.get(command.game)
        ratings = repo.standings(self.session, command.game)
        rows = [(r, is_provisional(r.games)) for r in ratings]
        return [self._to_sender(sender, "standings", engine=engine, rows=rows)]

    # -- helpers -------------------------------------------------------------

    def _authenticate(self, userid: str, password: str) -> Player:
        player = repo.find_player(self.session, userid)
        if player is None or not player.active:
            raise Refused(f"There is no player '{userid}' (sign up with: signup userid password)")
        now = self.now()
        if player.password_locked_until is not None and player.password_locked_until > now:
            # Not even checked: guessing must not go on while the player waits.
            raise Refused(
                f"Too many wrong passwords for {player.userid}: commands with its password are refused "
                f"until {player.password_locked_until:%Y-%m-%d %H:%M} UTC. Replying to a board mail "
                "still plays a move without the password"
            )
        right = self.passwords.verify(player.password_hash, password)
        self.password_checks.append(PasswordCheck(player.id, right))
        if not right:
            raise Refused(f"Wrong password for {player.userid}")
        return player

    def _hash(self, password: str) -> str:
        try:
            return self.passwords.hash(password)
        except WeakPassword as error:
            raise Refused(str(error)) from None

    def _game(self, game_type: str, board: int, *, for_update: bool = False) -> Game:
        game = repo.find_game(self.session, game_type, board, for_update=for_update)
        if game is None:
            title = pbm.games.get(game_type).title
            raise Refused(f"There is no {title} board {board}")
        return game

    def _acting(
        self, command: lang.Move | lang.Resign | ReplyMove | ReplyResign | ReplyShow, sender: Sender
    ) -> tuple[Game, Player]:
        """The game (locked) and the player a move or resignation is for.

        A command names them with a password. A reply to a board mail names them
        by the token its address carried (checked before it got here), and
        counts only from an address the player registered: a board mail passed
        on to someone else does not let them play.
        """
        if isinstance(command, (lang.Move, lang.Resign)):
            player = self._authenticate(command.userid, command.secret)
            return self._game(command.game, command.board, for_update=True), player
        game = repo.game_by_id(self.session, command.game_id, for_update=True)
        player = self.session.get(Player, command.player_id)
        if game is None or player is None or not player.active:
            raise Refused("The game or player this reply address names no longer exists")
        if player not in sender.players:
            raise Refused(
                f"This reply address is {player.userid}'s, and works only from an address {player.userid} "
                f"registered. To play from this address, send the move as a command instead: "
                f"{game.game_type} move {game.board} {player.userid} PASSWORD MOVE",
                view=self._view(pbm.games.get(game.game_type), game, self._state(game)),
            )
        return game, player

    def _seat(self, game: Game, player: Player) -> int:
        engine = pbm.games.get(game.game_type)
        seat = repo.seat_of(game, player)
        if seat is None:
            raise Refused(f"{player.userid} does not play in {engine.title} board {game.board}")
        if game.status != "active":
            view = self._view(engine, game, engine.load(game.state, game.secret), viewer=seat)
            raise Refused(f"{engine.title} board {game.board} is over. {view.summary}", view=view)
        return seat

    def _state(self, game: Game) -> Any:
        return pbm.games.get(game.game_type).load(game.state, game.secret)

    def _moves(self, game: Game) -> list[Move]:
        return repo.moves_of(self.session, game)

    def _replay(self, engine: Engine[Any], game: Game, moves: Sequence[Move]) -> Any:
        """The position after `moves`, replayed from the start (only for looking back)."""
        state = engine.new(players=len(game.seats), options=game.options, seed=game.secret)
        for move in moves:
            if move.notation != "resign":
                state = engine.apply(state, move.notation)
            else:
                # A resignation that ended the game left the position as it was.
                state = engine.resign(state, move.seat) or state
        return state

    def _view(
        self,
        engine: Engine[Any],
        game: Game,
        state: Any,
        *,
        viewer: int | None = None,
        moves: Sequence[Move] | None = None,
        at_move: int | None = None,
    ) -> BoardView:
        moves = self._moves(game) if moves is None else moves
        return board_view(engine, game, state, moves, viewer=viewer, at_move=at_move)

    def _board_mails(
        self,
        engine: Engine[Any],
        game: Game,
        state: Any,
        moves: Sequence[Move],
        *,
        comment: str,
        author: Player,
        new: bool = False,
        announce: bool = False,
        ratings: Sequence[RatingChange] = (),
    ) -> list[Reply]:
        """The board, mailed to every seated player (each sees it from their seat).

        `announce`: the mail was caused by the last move, and says first what it did.
        `ratings`: what the game's end did to the players' ratings.
        """
        replies = []
        for seat in game.seats:
            view = board_view(engine, game, state, moves, viewer=seat.seat)
            context = {
                "view": view,
                "comment": comment,
                "author": author,
                "new": new,
                "announce": announce,
                "ratings": list(ratings),
            }
            replies.append(
                Reply(
                    "board",
                    seat.player.primary_address,
                    context,
                    game_id=game.id,
                    player_id=seat.player_id,
                    at_ply=game.move_count if game.status == "active" else None,
                    starts_thread=new,
                )
            )
        return replies

    def _named_players(self, userids: Sequence[str]) -> list[Player]:
        named = repo.players_named(self.session, userids)
        missing = [u for u in userids if u not in named]
        if missing:
            raise Refused(f"No player is signed up as {', '.join(missing)}")
        return [named[u] for u in userids]

    def _to_sender(self, sender: Sender, template: str, **context: Any) -> Reply:
        return Reply(template, sender.address or "", context)

    def _to_player(self, account: Player, sender: Sender, template: str, **context: Any) -> list[Reply]:
        """To every address of `account`, and to the sender if that is another address."""
        addresses = [a.address for a in account.addresses] + ([sender.address] if sender.address else [])
        return [Reply(template, to, context) for to in dict.fromkeys(addresses)]


def _when(window_start: datetime, now: datetime, oldest_counted: datetime) -> str:
    """When the oldest event counted in a window leaves it: the time to try again."""
    again = oldest_counted + (now - window_start)
    return f"{again:%Y-%m-%d %H:%M} UTC"
