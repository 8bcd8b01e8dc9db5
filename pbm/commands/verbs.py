"""The verbs of the language, each defined once: how it is parsed, written, explained and run.

`ACCOUNT_VERBS` and `GAME_VERBS` are the one table the parser
(`parse_command`), the help mails and the rules page (their usage lines and
help texts), the password masking (`pbm.commands.masking`) and the executor
(each verb's handler) all read. A new verb is one entry here and one handler.

Parsing is pure: no database, no mail.

>>> parse_command("Cephalopod MOVE 101 Alice pw c3")
Move(game='cephalopod', board=101, userid='alice', replied_at=None, move='c3')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

import pbm.games
from pbm import clocks
from pbm.commands import accounts, finding, play, policy, previews, queries, queueing, talk, vacations, votes, watching
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.commands.language import CommandError

Handler = Callable[[Context, Any], list[OutgoingMail]]

MOST_SOUGHT = 20
"""Games one seek may ask for at once."""


@dataclass(frozen=True)
class Verb:
    """One verb: its name (one word, or two for ``change password``), its arguments as a
    usage line writes them, what it does, how many passwords follow its userid, and how
    it is parsed and run (None for the pbmserv verbs not built yet)."""

    name: str
    arguments: str
    help: str
    passwords: int = 0
    command: type[lang.Command] | None = None
    parse: Callable[[str, list[str]], lang.Command] | None = None
    """Reads the words after the verb; the first argument is the game's name (empty for account verbs)."""
    run: Handler | None = None
    also: tuple[tuple[type[lang.Command], Handler], ...] = ()
    """Other commands a line of this verb may mean, with their handlers (``move 101 bob pw accept``
    is a vote, not a move)."""
    aliases: tuple[str, ...] = ()
    """Other words for the verb, as pbmserv players wrote it (``unsub`` for ``unsubscribe``)."""

    def usage(self, game: str | None = None) -> str:
        """``signup USERID PASSWORD [ADDRESS...]``, ``cephalopod move BOARD ...`` (with `game`)."""
        return " ".join(word for word in (game, self.name, self.arguments) if word)

    @property
    def built(self) -> bool:
        return self.run is not None

    @property
    def offered(self) -> bool:
        """Whether the help lists the verb: pbmserv's ``pass`` and ``swap`` are answered only with
        why no game here has them."""
        return self.command is not lang.NotAllowed


# -- parsing each verb's arguments ----------------------------------------------------


def _help(game: str, args: list[str]) -> lang.Command:
    if len(args) > 1:
        raise lang.usage_error(ACCOUNT["help"].usage())
    return lang.Help(args[0].lower() if args else None)


def _list(game: str, args: list[str]) -> lang.Command:
    if args:
        raise lang.usage_error(ACCOUNT["list"].usage())
    return lang.ListGames()


def _signup(game: str, args: list[str]) -> lang.Command:
    if len(args) < 2:
        raise lang.usage_error(ACCOUNT["signup"].usage())
    return lang.Signup(lang.userid(args[0]), args[1], lang.addresses(args[2:]))


def _change_password(game: str, args: list[str]) -> lang.Command:
    if len(args) != 3:
        raise lang.usage_error(ACCOUNT["change password"].usage())
    return lang.ChangePassword(lang.userid(args[0]), args[1], args[2])


def _change_address(game: str, args: list[str]) -> lang.Command:
    if len(args) < 3:
        raise lang.usage_error(ACCOUNT["change address"].usage())
    return lang.ChangeAddress(lang.userid(args[0]), args[1], lang.addresses(args[2:]))


def _signoff(game: str, args: list[str]) -> lang.Command:
    if len(args) != 2:
        raise lang.usage_error(ACCOUNT["signoff"].usage())
    return lang.Signoff(lang.userid(args[0]), args[1])


def _message(game: str, args: list[str]) -> lang.Command:
    if len(args) < 3:
        raise lang.usage_error(ACCOUNT["message"].usage())
    return lang.Message(lang.userid(args[0]), args[1], tuple(lang.userid(w) for w in args[2:]))


def _broadcast(game: str, args: list[str]) -> lang.Command:
    if len(args) != 2:
        raise lang.usage_error(ACCOUNT["broadcast"].usage())
    return lang.Broadcast(lang.userid(args[0]), args[1])


def _password_reset(game: str, args: list[str]) -> lang.Command:
    if len(args) != 1:
        raise lang.usage_error(ACCOUNT["password reset"].usage())
    return lang.AskPasswordReset(lang.userid(args[0]))


def _seek(game: str, args: list[str]) -> lang.Command:
    """``seek USERID PASSWORD [N] [-options]``; without N, how many games the player seeks now."""
    options = [w for w in args if w.startswith("-")]
    words = [w for w in args if not w.startswith("-")]
    if len(words) not in (2, 3) or (len(words) == 2 and options):
        raise lang.usage_error(GAME["seek"].usage(game))
    userid, password = lang.userid(words[0]), words[1]
    if len(words) == 2:
        return lang.Seek(game, userid, password)
    count = lang.whole_number(words[2])
    if count is None or count > MOST_SOUGHT:
        raise CommandError(f"'{words[2]}' is not a number of games: write 0 to {MOST_SOUGHT} (0 stops seeking)")
    return lang.Seek(game, userid, password, count, lang.options(game, options))


def _join(game: str, args: list[str]) -> lang.Command:
    if len(args) != 3:
        raise lang.usage_error(GAME["join"].usage(game))
    return lang.Join(game, lang.board(args[0]), lang.userid(args[1]), args[2])


def _chat(game: str, args: list[str]) -> lang.Command:
    if len(args) != 3:
        raise lang.usage_error(GAME["chat"].usage(game))
    return lang.Chat(game, lang.board(args[0]), lang.userid(args[1]), args[2])


def _watched(args: list[str], usage: str) -> tuple[str, str, int | None]:
    """``BOARD USERID PASSWORD`` or ``USERID PASSWORD all``: (userid, password, board or None for all)."""
    if len(args) == 3 and args[2].lower() == "all":
        return lang.userid(args[0]), args[1], None
    if len(args) == 3:
        return lang.userid(args[1]), args[2], lang.board(args[0])
    raise lang.usage_error(usage)


def _subscribe(game: str, args: list[str]) -> lang.Command:
    userid, password, board = _watched(args, GAME["subscribe"].usage(game))
    return lang.Subscribe(game, userid, password, board)


def _unsubscribe(game: str, args: list[str]) -> lang.Command:
    userid, password, board = _watched(args, GAME["unsubscribe"].usage(game))
    return lang.Unsubscribe(game, userid, password, board)


def _notify(game: str, args: list[str]) -> lang.Command:
    if len(args) < 2:
        raise lang.usage_error(GAME["notify"].usage(game))
    userid, password, rest = lang.userid(args[0]), args[1], args[2:]
    if [word.lower() for word in rest] == ["off"]:
        return lang.Notify(game, userid, password, off=True)
    return lang.Notify(game, userid, password, tuple(lang.board(word) for word in rest))


def _accept(game: str, args: list[str]) -> lang.Command:
    return _answer(game, args, takes=True)


def _reject(game: str, args: list[str]) -> lang.Command:
    return _answer(game, args, takes=False)


def _answer(game: str, args: list[str], *, takes: bool) -> lang.Command:
    """``BOARD USERID PASSWORD``: a vote on what was proposed at a board; ``USERID PASSWORD``: a policy."""
    verb = GAME["accept" if takes else "reject"]
    if len(args) == 3:
        return lang.Vote(game, lang.board(args[0]), lang.userid(args[1]), args[2], takes)
    if len(args) == 2:
        return lang.TakeChallenges(game, lang.userid(args[0]), args[1], takes)
    raise lang.usage_error(verb.usage(game))


def _limit(game: str, args: list[str]) -> lang.Command:
    if len(args) == 2:
        return lang.Limit(game, lang.userid(args[0]), args[1], asked=True)
    if len(args) != 3:
        raise lang.usage_error(GAME["limit"].usage(game))
    value = args[2].lower()
    if value in ("inf", "none", "unlimited"):
        return lang.Limit(game, lang.userid(args[0]), args[1], None)
    limit = lang.whole_number(value)
    if limit is None:
        # Not quoted: a player who wrote a board number first put their password here.
        raise CommandError("The last word is not a limit: write a number of games, or inf for none")
    return lang.Limit(game, lang.userid(args[0]), args[1], limit)


def _vacation(game: str, args: list[str]) -> lang.Command:
    usage = ACCOUNT["vacation"].usage()
    if len(args) not in (2, 3, 4):
        raise lang.usage_error(usage)
    userid, password, rest = lang.userid(args[0]), args[1], [w.lower() for w in args[2:]]
    if not rest:
        return lang.Vacation(userid, password)
    if rest == ["off"]:
        return lang.Vacation(userid, password, off=True)
    if len(rest) != 2:
        raise lang.usage_error(usage)
    starts = None if rest[0] in ("now", "today") else _day(rest[0])
    days = re.fullmatch(r"(\d{1,3})d?", rest[1])
    if days:
        return lang.Vacation(userid, password, starts=starts, days=int(days[1]))
    return lang.Vacation(userid, password, starts=starts, until=_day(rest[1]))


def _day(word: str) -> date:
    try:
        return date.fromisoformat(word)
    except ValueError:
        raise CommandError(f"'{word}' is not a day: write it as 2026-12-20 (or 'now' to start now)") from None


def _add(game: str, args: list[str]) -> lang.Command:
    if len(args) < 3:
        raise lang.usage_error(ACCOUNT["add"].usage())
    return lang.AddAddress(lang.userid(args[0]), args[1], lang.addresses(args[2:]))


def _all_show(game: str, args: list[str]) -> lang.Command:
    which = args[-1].lower() if len(args) == 2 and args[-1].lower() in lang.WHICH_GAMES else "active"
    if len(args) not in (1, 2) or (len(args) == 2 and args[-1].lower() not in lang.WHICH_GAMES):
        raise lang.usage_error(ACCOUNT["all show"].usage())
    return lang.AllGames(lang.userid(args[0]), which)


def _submit(game: str, args: list[str]) -> lang.Command:
    if len(args) < 4:
        raise lang.usage_error(GAME["submit"].usage(game))
    return lang.Submit(game, lang.board(args[0]), lang.userid(args[1]), args[2], " ".join(args[3:]))


def _queue(game: str, args: list[str]) -> lang.Command:
    """``queue BOARD USERID PASSWORD [MOVE | if MOVES then MOVE; ...; else MOVE | off]``."""
    if len(args) < 3:
        raise lang.usage_error(GAME["queue"].usage(game))
    board, userid, password, rest = lang.board(args[0]), lang.userid(args[1]), args[2], " ".join(args[3:])
    if not rest:
        return lang.Queue(game, board, userid, password)
    if rest.lower() in lang.QUEUE_CLEAR_WORDS:
        return lang.Queue(game, board, userid, password, clear=True)
    return lang.Queue(game, board, userid, password, lang.queue_lines(rest))


def _confirm(game: str, args: list[str]) -> lang.Command:
    if len(args) != 3:
        raise lang.usage_error(GAME["confirm"].usage(game))
    return lang.Confirm(game, lang.board(args[0]), lang.userid(args[1]), args[2])


def _preview(game: str, args: list[str]) -> lang.Command:
    """``preview BOARD[#N] MOVE...`` or ``preview new NPLAYERS [-options] MOVE...``."""
    usage = lang.usage_error(GAME["preview"].usage(game))
    if len(args) < 2:
        raise usage
    if args[0].lower() == "new":
        players = lang.whole_number(args[1])
        if players is None:
            raise usage
        options = [w for w in args[2:] if w.startswith("-")]
        moves = " ".join(w for w in args[2:] if not w.startswith("-"))
        return lang.Preview(game, moves, players=players, options=lang.options(game, options))
    board, at_move = lang.board_at(args[0])
    return lang.Preview(game, " ".join(args[1:]), board=board, at_move=at_move)


def _game_help(game: str, args: list[str]) -> lang.Command:
    if args:
        raise lang.usage_error(GAME["help"].usage(game))
    return lang.GameHelp(game)


def _challenge(game: str, args: list[str]) -> lang.Command:
    time_words = [w for w in args if clocks.is_time_option(w)]
    options = [w for w in args if w.startswith("-") and not clocks.is_time_option(w)]
    userids = tuple(lang.userid(w) for w in args if not w.startswith("-"))
    if not userids or all(u == lang.OPEN_SEAT for u in userids):
        raise lang.usage_error(GAME["challenge"].usage(game))
    return lang.Challenge(game, userids, lang.options(game, options), lang.time_rules(time_words))


def _move(game: str, args: list[str]) -> lang.Command:
    if len(args) < 4:
        raise lang.usage_error(GAME["move"].usage(game))
    board, userid, password, move = lang.board(args[0]), lang.userid(args[1]), args[2], " ".join(args[3:])
    word = move.lower()
    if word in lang.OFFER_WORDS:
        return lang.Propose(game, board, userid, password, lang.OFFER_WORDS[word])
    if word in lang.VOTE_WORDS:
        return lang.Vote(game, board, userid, password, lang.VOTE_WORDS[word])
    return lang.Move(game, board, userid, password, move)


def _show(game: str, args: list[str]) -> lang.Command:
    """``show 101 102#5``, ``show board 101`` (pbmserv's), or ``show USERID [active|next|all]``:
    that player's games, as ``games USERID`` lists them."""
    words = args[1:] if args and args[0].lower() == "board" else args
    if not words:
        raise lang.usage_error(GAME["show"].usage(game))
    if not words[0].partition("#")[0].isdecimal() and lang.USERID.match(words[0].lower()):
        return _games(game, words)
    return lang.Show(game, tuple(lang.board_at(w) for w in words))


def _show_as(game: str, args: list[str]) -> lang.Command:
    """``showas BOARD[#N] USERID``: these games hide nothing, so every player sees what show shows."""
    if len(args) != 2:
        raise lang.usage_error(GAME["showas"].usage(game))
    return lang.Show(game, (lang.board_at(args[0]),), as_userid=lang.userid(args[1]))


def _not_allowed(word: str) -> Callable[[str, list[str]], lang.Command]:
    def parse(game: str, args: list[str]) -> lang.Command:
        return lang.NotAllowed(game, word)

    return parse


def _games(game: str, args: list[str]) -> lang.Command:
    if [w.lower() for w in args] == [lang.OPEN_SEAT]:
        return lang.OpenChallenges(game)
    which = "active"
    if args and args[-1].lower() in lang.WHICH_GAMES:
        which = args[-1].lower()
        args = args[:-1]
    return lang.Games(game, tuple(lang.userid(w) for w in args), which)


def _resign(game: str, args: list[str]) -> lang.Command:
    if len(args) != 3:
        raise lang.usage_error(GAME["resign"].usage(game))
    return lang.Resign(game, lang.board(args[0]), lang.userid(args[1]), args[2])


def _history(game: str, args: list[str]) -> lang.Command:
    return lang.History(game, tuple(lang.userid(w) for w in args))


def _standings(game: str, args: list[str]) -> lang.Command:
    if args:
        raise lang.usage_error(GAME["standings"].usage(game))
    return lang.Standings(game)


# -- the table ------------------------------------------------------------------------------

ACCOUNT_VERBS = (
    Verb(
        "help",
        "[GAME]",
        "This help, or a game's rules and options.",
        command=lang.Help,
        parse=_help,
        run=accounts.help_,
    ),
    Verb(
        "signup",
        "USERID PASSWORD [ADDRESS...]",
        "Sign up. Without an address, the server writes to the one you mail from. Each address gets "
        "a mail to reply to: the server writes nothing else to it until the reply confirms it. "
        "A userid is 2-32 letters a-z, digits, '.', '_' or '-'.",
        passwords=1,
        command=lang.Signup,
        parse=_signup,
        run=accounts.signup,
        also=((lang.ConfirmAddress, accounts.confirm_address),),
    ),
    Verb(
        "change password",
        "USERID OLD NEW",
        "Change your password; every address of yours hears of it.",
        passwords=2,
        command=lang.ChangePassword,
        parse=_change_password,
        run=accounts.change_password,
    ),
    Verb(
        "change address",
        "USERID PASSWORD ADDRESS...",
        "Write to these addresses from now on (the first is where boards go); the old ones hear of it. "
        "A new address gets a mail to reply to, and nothing else until the reply confirms it.",
        passwords=1,
        command=lang.ChangeAddress,
        parse=_change_address,
        run=accounts.change_address,
    ),
    Verb(
        "add",
        "USERID PASSWORD ADDRESS...",
        "More addresses for the same player: mail from any of them counts as yours (replies to board "
        "mails too); boards still go to the first. Each new address confirms itself by a reply, as "
        "at signup; naming one not yet confirmed asks it again.",
        passwords=1,
        command=lang.AddAddress,
        parse=_add,
        run=accounts.add_address,
    ),
    Verb(
        "signoff",
        "USERID PASSWORD",
        "Leave the server; the games you still play are forfeited. Finished games and ratings stay in "
        "the records, and nobody else gets the userid.",
        passwords=1,
        command=lang.Signoff,
        parse=_signoff,
        run=accounts.signoff,
        aliases=("delete",),
    ),
    Verb(
        "message",
        "USERID PASSWORD TO...",
        "Mail the text below the command to these players; nobody sees anyone's address.",
        passwords=1,
        command=lang.Message,
        parse=_message,
        run=talk.message,
    ),
    Verb(
        "password reset",
        "USERID",
        "Forgot your password? A mail goes to the player's registered addresses with a reply address "
        "that works once, for a day: reply to it with the new password alone on the first line. "
        "Whoever asks learns nothing.",
        command=lang.AskPasswordReset,
        parse=_password_reset,
        run=accounts.ask_password_reset,
        also=((lang.ResetPassword, accounts.reset_password),),
    ),
    Verb(
        "broadcast",
        "USERID PASSWORD",
        "For the server's administrators: mail the text below the command to every player.",
        passwords=1,
        command=lang.Broadcast,
        parse=_broadcast,
        run=talk.broadcast,
    ),
    Verb(
        "vacation",
        "USERID PASSWORD [FROM UNTIL | off]",
        "Going away? Book it: FROM is now or a day (2026-12-20), UNTIL your last day away or a number "
        "of days (14d). While you are away your clocks stand still, nobody reminds you and you cannot "
        "forfeit on time; your opponents are told when you leave and come back. 'off' ends it (and "
        "calls off those booked ahead); with neither, where you stand and the days you have left.",
        passwords=1,
        command=lang.Vacation,
        parse=_vacation,
        run=vacations.vacation,
    ),
    Verb("list", "", "The games this server plays.", command=lang.ListGames, parse=_list, run=accounts.list_games),
    Verb(
        "all show",
        "USERID [active|next|all]",
        "A player's games of every kind: those being played, those waiting for the player, or all.",
        command=lang.AllGames,
        parse=_all_show,
        run=accounts.all_games,
    ),
)

GAME_VERBS = (
    Verb(
        "help",
        "",
        "The game's rules, its challenge options and its commands.",
        command=lang.GameHelp,
        parse=_game_help,
        run=accounts.game_help,
    ),
    Verb(
        "challenge",
        "[-options] USERID1 USERID2 [...]",
        "Start a game. Send it from your own registered address; the first userid named moves first. "
        "The time rules --nagtime=N, --forfeittime=N, --totaltime=N and --clock=START+INCREMENT/CAP "
        "(days, or hours as 12h) set when the player to move is reminded and forfeits (see help time).",
        command=lang.Challenge,
        parse=_challenge,
        run=play.challenge,
        aliases=("chall",),
    ),
    Verb(
        "join",
        "BOARD USERID PASSWORD",
        "Take a free seat of an open challenge (one that names 'open' for a player); the game starts "
        "when every seat is taken. 'games open' lists them.",
        passwords=1,
        command=lang.Join,
        parse=_join,
        run=finding.join,
    ),
    Verb(
        "seek",
        "USERID PASSWORD [N] [-options]",
        "Ask for N more games (0: no more): the server pairs you with another seeker, the longest "
        "waiting first and then the nearest rating, and starts the game. Options narrow the games you "
        "take; without any, every game of this type will do. Without N, what you seek now.",
        passwords=1,
        command=lang.Seek,
        parse=_seek,
        run=finding.seek,
    ),
    Verb(
        "move",
        "BOARD USERID PASSWORD MOVE[#N]",
        "#N is optional: the move is refused unless it is move N of the game, so a move sent against "
        "an old board is never misapplied. MOVE may also be: propose (a draw), undo (take back the "
        "last move), accept or reject (the draw or undo the others proposed): every player still in "
        "the game must accept, one reject ends the proposal, and any move withdraws it.",
        passwords=1,
        command=lang.Move,
        parse=_move,
        run=play.move,
        also=((lang.Propose, votes.propose), (lang.Vote, votes.vote)),
        aliases=("mvoe",),
    ),
    Verb(
        "queue",
        "BOARD USERID PASSWORD MOVE[#N] | if MOVES then MOVE; ...; else MOVE | off",
        "Have a move played for you when your turn comes, if the others' moves are the ones you name "
        "(see help queue); with no move, what you queued; off forgets it.",
        passwords=1,
        command=lang.Queue,
        parse=_queue,
        run=queueing.queue,
        aliases=("qmove", "moveq", "qboard", "boardq"),
    ),
    Verb(
        "submit",
        "BOARD USERID PASSWORD MOVE",
        "See the board after your move, mailed to you alone: nothing counts until you confirm it.",
        passwords=1,
        command=lang.Submit,
        parse=_submit,
        run=previews.submit,
    ),
    Verb(
        "confirm",
        "BOARD USERID PASSWORD",
        "Play the move you submitted, unless the board changed since (then submit again).",
        passwords=1,
        command=lang.Confirm,
        parse=_confirm,
        run=previews.confirm,
    ),
    Verb(
        "preview",
        "BOARD[#N] MOVE... | new NPLAYERS [-options] MOVE...",
        "Play moves on a copy of a board (as it stands, or after move N) or of a new game, and see the "
        "result; nothing is saved.",
        command=lang.Preview,
        parse=_preview,
        run=previews.preview,
        aliases=("prev",),
    ),
    Verb(
        "pass",
        "BOARD USERID PASSWORD",
        "No game here allows passing: every turn must be played.",
        passwords=1,
        command=lang.NotAllowed,
        parse=_not_allowed("pass"),
        run=play.not_allowed,
    ),
    Verb(
        "swap",
        "BOARD USERID PASSWORD",
        "No game here has a swap: the first player named in the challenge moves first.",
        passwords=1,
        command=lang.NotAllowed,
        parse=_not_allowed("swap"),
        run=play.not_allowed,
    ),
    Verb(
        "chat",
        "BOARD USERID PASSWORD",
        "Mail the text below the command to the board's players, without moving. A reply to a board "
        "mail whose first line is chat does the same.",
        passwords=1,
        command=lang.Chat,
        parse=_chat,
        run=talk.chat,
    ),
    Verb(
        "accept",
        "USERID PASSWORD | BOARD USERID PASSWORD",
        "Take challenges to this game (the default); with a board, accept what another player proposed there.",
        passwords=1,
        command=lang.TakeChallenges,
        parse=_accept,
        run=policy.take_challenges,
    ),
    Verb(
        "reject",
        "USERID PASSWORD | BOARD USERID PASSWORD",
        "Refuse every challenge to this game; with a board, reject what another player proposed there.",
        passwords=1,
        command=lang.TakeChallenges,
        parse=_reject,
        run=policy.take_challenges,
    ),
    Verb(
        "limit",
        "USERID PASSWORD [N|inf]",
        "Play at most N games of this type at once (inf: no limit); without a value, the limit now.",
        passwords=1,
        command=lang.Limit,
        parse=_limit,
        run=policy.limit,
    ),
    Verb(
        "subscribe",
        "BOARD USERID PASSWORD | USERID PASSWORD all",
        "Watch a board: its board mails come to you too, as to a player who holds no seat. With all, "
        "every game of this type that starts from now on.",
        passwords=1,
        command=lang.Subscribe,
        parse=_subscribe,
        run=watching.subscribe,
    ),
    Verb(
        "unsubscribe",
        "BOARD USERID PASSWORD | USERID PASSWORD all",
        "Stop watching.",
        passwords=1,
        command=lang.Unsubscribe,
        parse=_unsubscribe,
        run=watching.unsubscribe,
        aliases=("unsub",),
    ),
    Verb(
        "notify",
        "USERID PASSWORD [BOARD...|off]",
        "A mail when these boards end, or when any game of this type ends; off stops it.",
        passwords=1,
        command=lang.Notify,
        parse=_notify,
        run=watching.notify,
    ),
    Verb(
        "show",
        "BOARD[#N] [BOARD...] | USERID [active|next|all]",
        "Mail a board; with #N, the board as it was after move N. With a userid, that player's games.",
        command=lang.Show,
        parse=_show,
        run=queries.show,
        aliases=("board",),
    ),
    Verb(
        "showas",
        "BOARD[#N] USERID",
        "As show: these games hide nothing, so every player sees the same board.",
        command=lang.Show,
        parse=_show_as,
        run=queries.show,
    ),
    Verb(
        "games",
        "[USERID...] [active|next|all] | open",
        '"next" lists the games where it is that player\'s turn; "open", the open challenges anyone may join.',
        command=lang.Games,
        parse=_games,
        run=queries.games,
        also=((lang.OpenChallenges, finding.list_open),),
    ),
    Verb(
        "resign",
        "BOARD USERID PASSWORD",
        "Resigning before every player has moved cancels the game. At an open challenge, its challenger "
        "calls it off, and another player gives their seat back.",
        passwords=1,
        command=lang.Resign,
        parse=_resign,
        run=finding.resign,
    ),
    Verb(
        "history",
        "[USERID...]",
        "The finished games, newest first.",
        command=lang.History,
        parse=_history,
        run=queries.history,
    ),
    Verb(
        "standings",
        "",
        "The players' ratings: the established ones, the provisional ones, and those inactive.",
        command=lang.Standings,
        parse=_standings,
        run=queries.standings,
        aliases=("ratings",),
    ),
)

ACCOUNT = {name: verb for verb in ACCOUNT_VERBS for name in (verb.name, *verb.aliases)}
GAME = {name: verb for verb in GAME_VERBS for name in (verb.name, *verb.aliases)}
_FIRST_ACCOUNT_WORDS = {name.split()[0] for name in ACCOUNT}
_OPENING_WORDS = [*dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS), *pbm.games.names()]
"""The words a command may start with, as a near miss of one is answered (``hepl``: did you mean help?)."""
_HANDLERS: dict[type[lang.Command], Handler] = {
    **{verb.command: verb.run for verb in (*ACCOUNT_VERBS, *GAME_VERBS) if verb.command and verb.run},
    **{command: run for verb in (*ACCOUNT_VERBS, *GAME_VERBS) for command, run in verb.also},
}


def account_commands() -> list[str]:
    """The words an account command starts with, as an error mail lists them."""
    return list(dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS))


# -- parsing a line -------------------------------------------------------------------------


def parse_command(line: str) -> lang.Command:
    """Parse one line; raises `CommandError` with a message for the player."""
    try:
        words = lang.words_of(line)
        if not words:
            raise CommandError("The line is empty")
        first = words[0].lower()
        if first in pbm.games.names():
            command = _per_game(first, words[1:])
        else:
            command = _account(words)
        return _with_line(command, line)
    except CommandError as error:
        error.line = line
        raise


def _with_line(command: lang.Command, line: str) -> lang.Command:
    object.__setattr__(command, "line", line)  # frozen: the line is set once, here
    return command


def _account(words: list[str]) -> lang.Command:
    first = words[0].lower()
    verb = _account_verb([w.lower() for w in words])
    if verb is not None:
        assert verb.parse is not None
        return verb.parse("", words[len(verb.name.split()) :])
    if first == "change":
        usages = "  |  ".join(v.usage() for v in ACCOUNT_VERBS if v.name.startswith("change "))
        raise lang.usage_error(usages)
    if first in GAME:
        example = f"{pbm.games.names()[0]} {' '.join(words[:2])} ..."  # not the rest: it may hold a password
        raise CommandError(f"'{words[0]}' needs the name of the game first, e.g. {example}")
    meant = near_miss(first, _OPENING_WORDS)
    if meant is not None:
        raise CommandError(f"'{words[0]}' is not a command; did you mean {meant}?")
    known = ", ".join([*account_commands(), *pbm.games.names()])
    raise CommandError(f"'{words[0]}' is not a command; a command starts with one of: {known}")


def _account_verb(lowered: list[str]) -> Verb | None:
    """The account verb a line's first word (or first two words) name."""
    return ACCOUNT.get(" ".join(lowered[:2])) or ACCOUNT.get(lowered[0])


def _per_game(game: str, args: list[str]) -> lang.Command:
    if not args:
        raise CommandError(f"What should {game} do? Try: {game} help")
    verb = GAME.get(args[0].lower())
    if verb is not None:
        assert verb.parse is not None
        return verb.parse(game, args[1:])
    near = near_miss(args[0].lower(), GAME)
    if near is not None:
        raise CommandError(f"'{args[0]}' is not a {game} command; did you mean {GAME[near].name}?")
    verbs = ", ".join(verb.name for verb in GAME_VERBS if verb.offered)
    raise CommandError(f"'{args[0]}' is not a {game} command; the {game} commands are: {verbs}")


def is_command_line(line: str) -> bool:
    """Whether a line of a mail is meant as a command (and so is answered, even when wrong).

    It is when it starts with a verb or a game name, or with a near miss of a
    game name followed by one of its verbs (``cephalopd move ...``), or with a
    game's verb and a board number but no game (``move 103 ...``): those are
    answered with what to write instead. A line that starts like a command but
    cannot be one is text, so that a comment may begin with a game's name:
    a game name followed by a word that is neither one of its verbs nor a near
    miss of one (``cephalopod mov 108 ...`` is one) unless a board number
    follows it (``cephalopod frobnicate 101 ...``), as in ``Cephalopod is
    hard``; ``help`` followed by more than one word, ``list`` followed by anything.

    >>> [is_command_line(line) for line in ("cephalopod show 101", "Cephalopod is hard, right?", "help me understand")]
    [True, False, False]
    >>> [is_command_line(line) for line in ("cephalopod mov 108 ivan pw a1", "cephalopod frob 101 ivan pw")]
    [True, True]
    >>> [is_command_line(line) for line in ("cephalopd move 101 alice pw c3", "move 101 alice pw c3", "Move on!")]
    [True, True, False]
    """
    words = [word.lower() for word in lang.words_of(line)]
    if not words:
        return False
    first, rest = words[0], words[1:]
    if first == "help":
        return len(rest) <= 1
    if first == "list":
        return not rest
    if first in _FIRST_ACCOUNT_WORDS:
        return True
    second = rest[0] if rest else ""
    if first in pbm.games.names():
        return not rest or second in GAME or near_miss(second, GAME) is not None or _is_board(rest[1:2])
    if first in GAME:
        return _is_board(rest[:1])
    return second in GAME and near_miss(first, pbm.games.names()) is not None


def _is_board(words: list[str]) -> bool:
    """Whether `words` is one word that is a board number (``101``, ``101#5``)."""
    return len(words) == 1 and words[0].partition("#")[0].isdecimal()


def looks_like_a_command(line: str) -> bool:
    """Whether a line that is no command line was still meant as one: it starts with a game's name
    (``Cephalopod rules``), or with a near miss of a word a command starts with (``hepl``).

    A mail without a command is answered about the first such line, rather than with
    a list of the commands that contradicts it or misses the typo.

    >>> [looks_like_a_command(line) for line in ("hepl", "Cephalopod rules", "Hello, Zoe", "Move on!")]
    [True, True, False, False]
    """
    words = [word.lower() for word in lang.words_of(line)]
    if not words or is_command_line(line):
        return False
    first = words[0]
    if first in pbm.games.names():
        return True
    return first not in _FIRST_ACCOUNT_WORDS and first not in GAME and near_miss(first, _OPENING_WORDS) is not None


def near_miss(word: str, known: Iterable[str]) -> str | None:
    """The one known word `word` is a likely typo of, if any (``cephalopd`` -> ``cephalopod``).

    Only a word of letters is a typo of a name (``cephalopod,`` is prose), and a word of three
    letters only as the start of one (``mov`` for ``move``): prose is full of short words one
    letter away from a verb (``how``, ``hat``).
    """
    if len(word) < 3 or not word.isalpha():
        return None
    candidates = [name for name in known if len(word) > 3 or name.startswith(word)]
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.75)
    return close[0] if close else None


def run(ctx: Context, command: lang.Command) -> list[OutgoingMail]:
    """Run `command` by its verb's handler, in `ctx`'s transaction (the caller's savepoint)."""
    return _HANDLERS[type(command)](ctx, command)
