"""The verbs of the language, each defined once: how it is parsed, written, explained, ordered and run.

`ACCOUNT_VERBS` and `GAME_VERBS` are the one table the parser
(`parse_command`), the help mails and the rules page (their usage lines and
help texts), the password masking (`pbm.commands.masking`), the ordering of
mails between workers (`ordering_keys`) and the executor (each verb's handler)
all read. A verb's usage line is also the spec of its arguments
(`pbm.commands.usage`): ``BOARD USERID PASSWORD`` reads a board number, a
userid and a password into the fields of the same names of its noun
(`pbm.commands.language`), says the password is a secret, and orders the
command by the board and the player. A verb's entry holds all its words: its
name and aliases, its usage line, what it does (the help text), and through the
usage line its secrets; `verb_catalogue` gives them to the translators. A new
verb is one entry here, one handler and its test (see `pbm.commands`).

Parsing is pure: no database, no mail.

>>> parse_command("Cephalopod MOVE 101 Alice pw c3")
Move(game='cephalopod', board=101, userid='alice', replied_at=None, move='c3')
>>> sorted(ordering_keys(parse_command("cephalopod limit alice pw 3")))
['player:alice']
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import date
from functools import cached_property
from typing import Any

import pbm.games
from pbm.commands import (
    accounts,
    finding,
    play,
    policy,
    preferences,
    previews,
    queries,
    queueing,
    talk,
    vacations,
    votes,
    watching,
)
from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.commands.language import CommandError
from pbm.commands.usage import Spec, secret_count
from pbm.commands.usage import ordering_keys as argument_keys
from pbm.facts import Catalogue, Fact
from pbm.timekeeping import clocks

Handler = Callable[[Context, Any], list[OutgoingMail]]
Build = Callable[[str, dict[str, Any]], lang.Command]
"""Makes the command of a line from the game's name (empty for account verbs) and the arguments its
usage line read (`usage.Spec.read`), for a verb whose words may mean more than one noun."""
Parse = Callable[[str, list[str]], lang.Command]
"""An irregular verb's own parser: the game's name and the words after the verb. It raises
`Unfit` when the words fit no shape of the usage line, and the verb answers with it."""

MOST_SOUGHT = 20
"""Games one seek may ask for at once."""


class Unfit(Exception):
    """The words after a verb fit no shape of its usage line."""


@dataclass(frozen=True)
class Verb:
    """One verb: its name (one word, or two for ``change password``), its arguments as a usage
    line writes them (the spec they are read by), what it does (its help text), its noun and its
    handler. A verb whose words may mean another noun says how to choose (`build`); an irregular
    one brings its own parser (`parse`)."""

    name: str
    arguments: str
    does: str
    """What the verb does, in English, as ``help`` and the rules page say it: the catalogue's entry
    `help` (``about-<verb>``), which a translation says in its language (`verb_catalogue`)."""
    command: type[lang.Command]
    run: Handler
    build: Build | None = None
    parse: Parse | None = None
    also: tuple[tuple[type[lang.Command], Handler], ...] = ()
    """Other commands a line of this verb may mean, with their handlers (``move 101 bob pw accept``
    is a vote, not a move)."""
    aliases: tuple[str, ...] = ()
    """Other words for the verb, as pbmserv players wrote it (``unsub`` for ``unsubscribe``), or as a
    French speaker obviously would where no other verb could be meant (``aide`` for ``help``)."""
    shared: tuple[str, ...] = ()
    """What applying the verb touches that no argument names, ordered by too: ``seek`` (every
    seeker of the game), ``counter`` (the numbers of the game's new boards)."""
    key: str = ""
    """The verb's name in the codes of its words, when not its own (``game-help`` for a game's
    ``help``, which the account's ``help`` names already)."""

    @property
    def help(self) -> str:
        """The code of what the verb does: ``about-signup``, ``about-change-password``."""
        return "about-" + (self.key or self.name.replace(" ", "-"))

    def usage(self, game: str | None = None) -> str:
        """``signup USERID PASSWORD [ADDRESS...]``, ``cephalopod move BOARD ...`` (with `game`)."""
        return " ".join(word for word in (game, self.name, self.arguments) if word)

    def usage_said(self, game: str | None = None) -> Fact:
        """The usage line for a reader (``say(verb.usage_said(game))``): the command's words as the
        server reads them, the names of its arguments in the reader's language (``cephalopod move
        PARTIE IDENTIFIANT MOTDEPASSE COUP[#N]``). In English, `usage` exactly."""
        command = " ".join(word for word in (game, self.name) if word)
        if not self.arguments:
            return Fact("usage-bare", command=command)
        return Fact("usage-line", command=command, arguments=Fact(self.arguments_code))

    @property
    def arguments_code(self) -> str:
        """The code of the arguments as a usage line names them (`verb_catalogue`): one for each
        shape of arguments, named after the first verb of the table that takes it (``USERID
        PASSWORD`` is ``arguments-signoff``), so that a new verb whose arguments another verb
        takes already needs no translation of them."""
        return _ARGUMENTS_CODES.get(self.arguments) or "arguments-" + self.help.removeprefix("about-")

    @property
    def about(self) -> Fact:
        """What the verb does, to be said (``say(verb.about)``)."""
        return Fact(self.help)

    @property
    def passwords(self) -> int:
        """How many passwords follow the userid: the words masked wherever a line is quoted."""
        return secret_count(self.arguments)

    @property
    def offered(self) -> bool:
        """Whether the help lists the verb: pbmserv's ``pass`` and ``swap`` are answered only with
        why no game here has them."""
        return self.command is not lang.NotAllowed

    @cached_property
    def spec(self) -> Spec:
        """The usage line as a spec (read when first needed: an irregular verb's usage is for people only)."""
        return Spec(self.arguments)

    def read(self, game: str, words: list[str]) -> lang.Command:
        """The command the words after the verb write; `game` is empty for account verbs."""
        try:
            if self.parse is not None:
                return self.parse(game, words)
            arguments = self.spec.read(words)
            if arguments is None:
                raise Unfit
        except Unfit:
            raise lang.usage_error(self.usage_said(game)) from None
        if self.build is not None:
            return self.build(game, arguments)
        return noun(self.command, game, arguments)


def noun(command: type[lang.Command], game: str, arguments: dict[str, Any]) -> lang.Command:
    """`command` of the arguments that are its fields (a literal such as ``all`` need not be one)."""
    names = {field.name for field in fields(command)}
    given = {name: value for name, value in arguments.items() if name in names}
    if issubclass(command, lang.GameCommand):
        given["game"] = game
    return command(**given)


# -- verbs whose words may mean more than one noun ------------------------------------------


def _move_or_proposal(game: str, arguments: dict[str, Any]) -> lang.Command:
    """Where a move would stand, ``propose``, ``draw`` or ``undo`` proposes, ``accept`` or ``reject`` votes."""
    word = arguments["move"].lower()
    if word in lang.OFFER_WORDS:
        return noun(lang.Propose, game, {**arguments, "kind": lang.OFFER_WORDS[word]})
    if word in lang.VOTE_WORDS:
        return noun(lang.Vote, game, {**arguments, "accept": lang.VOTE_WORDS[word]})
    return noun(lang.Move, game, arguments)


def _answer(takes: bool) -> Build:
    """``BOARD USERID PASSWORD``: a vote on what was proposed at a board; ``USERID PASSWORD``: a policy."""

    def build(game: str, arguments: dict[str, Any]) -> lang.Command:
        if "board" in arguments:
            return noun(lang.Vote, game, {**arguments, "accept": takes})
        return noun(lang.TakeChallenges, game, {**arguments, "takes": takes})

    return build


def _limit(game: str, arguments: dict[str, Any]) -> lang.Command:
    """Without a value, the player asks what their limit is."""
    return noun(lang.Limit, game, {**arguments, "asked": "most" not in arguments})


def _games_or_open(game: str, arguments: dict[str, Any]) -> lang.Command:
    return lang.OpenChallenges(game) if "open" in arguments else noun(lang.Games, game, arguments)


def _show_as(game: str, arguments: dict[str, Any]) -> lang.Command:
    return lang.Show(game, (arguments["boards"],), userid=arguments["userid"])


# -- irregular verbs: their own parsers ---------------------------------------------------


def _seek(game: str, args: list[str]) -> lang.Command:
    """``seek USERID PASSWORD [N] [-options]``; without N, how many games the player seeks now."""
    options = [w for w in args if w.startswith("-")]
    words = [w for w in args if not w.startswith("-")]
    if len(words) not in (2, 3) or (len(words) == 2 and options):
        raise Unfit
    userid, password = lang.userid(words[0]), words[1]
    if len(words) == 2:
        return lang.Seek(game, userid, password)
    count = lang.whole_number(words[2])
    if count is None or count > MOST_SOUGHT:
        raise CommandError("not-a-number-of-games", word=words[2], most=MOST_SOUGHT)
    return lang.Seek(game, userid, password, count, lang.options(game, options))


def _vacation(game: str, args: list[str]) -> lang.Command:
    """``vacation USERID PASSWORD [FROM UNTIL | off]``: FROM ``now`` or a day, UNTIL a day or days."""
    if len(args) not in (2, 3, 4):
        raise Unfit
    userid, password, rest = lang.userid(args[0]), args[1], [w.lower() for w in args[2:]]
    if not rest:
        return lang.Vacation(userid, password)
    if rest == ["off"]:
        return lang.Vacation(userid, password, off=True)
    if len(rest) != 2:
        raise Unfit
    starts = None if rest[0] in ("now", "today") else _day(rest[0])
    days = re.fullmatch(r"(\d{1,3})d?", rest[1])
    if days:
        return lang.Vacation(userid, password, starts=starts, days=int(days[1]))
    return lang.Vacation(userid, password, starts=starts, until=_day(rest[1]))


def _day(word: str) -> date:
    try:
        return date.fromisoformat(word)
    except ValueError:
        raise CommandError("not-a-day", word=word) from None


def _queue(game: str, args: list[str]) -> lang.Command:
    """``queue BOARD USERID PASSWORD [MOVE | if MOVES then MOVE; ...; else MOVE | off]``."""
    if len(args) < 3:
        raise Unfit
    board, userid, password, rest = lang.board(args[0]), lang.userid(args[1]), args[2], " ".join(args[3:])
    if not rest:
        return lang.Queue(game, board, userid, password)
    if rest.lower() in lang.QUEUE_CLEAR_WORDS:
        return lang.Queue(game, board, userid, password, clear=True)
    return lang.Queue(game, board, userid, password, lang.queue_lines(rest))


def _preview(game: str, args: list[str]) -> lang.Command:
    """``preview BOARD[#N] MOVE...`` or ``preview new NPLAYERS [-options] MOVE...``."""
    if len(args) < 2:
        raise Unfit
    if args[0].lower() == "new":
        players = lang.whole_number(args[1])
        if players is None:
            raise Unfit
        options = [w for w in args[2:] if w.startswith("-")]
        moves = " ".join(w for w in args[2:] if not w.startswith("-"))
        return lang.Preview(game, moves, players=players, options=lang.options(game, options))
    board, at_move = lang.board_at(args[0])
    return lang.Preview(game, " ".join(args[1:]), board=board, at_move=at_move)


def _challenge(game: str, args: list[str]) -> lang.Command:
    """``challenge [-options] [--time rules] USERID1 USERID2 [...]``, in any order; ``open`` is a free seat."""
    time_words = [w for w in args if clocks.is_time_option(w)]
    options = [w for w in args if w.startswith("-") and not clocks.is_time_option(w)]
    userids = tuple(lang.userid(w) for w in args if not w.startswith("-"))
    if not userids or all(u == lang.OPEN_SEAT for u in userids):
        raise Unfit
    return lang.Challenge(game, userids, lang.options(game, options), lang.time_rules(time_words))


def _show(game: str, args: list[str]) -> lang.Command:
    """``show 101 102#5``, ``show board 101`` (pbmserv's), or ``show USERID [active|next|all]``:
    that player's games, as ``games USERID`` lists them."""
    words = args[1:] if args and args[0].lower() == "board" else args
    if not words:
        raise Unfit
    if not words[0].partition("#")[0].isdecimal() and lang.USERID.match(words[0].lower()):
        return GAME["games"].read(game, words)
    return lang.Show(game, tuple(lang.board_at(w) for w in words))


def _not_allowed(word: str) -> Parse:
    """pbmserv's ``pass`` and ``swap``, whatever follows: answered with why no game here has them."""

    def parse(game: str, args: list[str]) -> lang.Command:
        return lang.NotAllowed(game, word)

    return parse


# -- the table ------------------------------------------------------------------------------

ACCOUNT_VERBS = (
    Verb("help", "[GAME]", "This help, or a game's rules and options.", lang.Help, accounts.help_, aliases=("aide",)),
    Verb(
        "signup",
        "USERID PASSWORD [ADDRESS...]",
        "Sign up. Without an address, the server writes to the one you mail from. Each address gets a"
        " mail to reply to: the server writes nothing else to it until the reply confirms it. A "
        "userid is 2-32 letters a-z, digits, '.', '_' or '-'.",
        lang.Signup,
        accounts.signup,
        also=((lang.ConfirmAddress, accounts.confirm_address),),
        aliases=("inscription",),
    ),
    Verb(
        "change password",
        "USERID OLD NEW",
        "Change your password; every address of yours hears of it.",
        lang.ChangePassword,
        accounts.change_password,
    ),
    Verb(
        "change address",
        "USERID PASSWORD ADDRESS...",
        "Write to these addresses from now on (the first is where boards go); the old ones hear of "
        "it. A new address gets a mail to reply to, and nothing else until the reply confirms it.",
        lang.ChangeAddress,
        accounts.change_address,
    ),
    Verb(
        "add",
        "USERID PASSWORD ADDRESS...",
        "More addresses for the same player: mail from any of them counts as yours (replies to board "
        "mails too); boards still go to the first. Each new address confirms itself by a reply, as at"
        " signup; naming one not yet confirmed asks it again.",
        lang.AddAddress,
        accounts.add_address,
    ),
    Verb(
        "language",
        "USERID PASSWORD LANGUAGE",
        "Every mail to you from now on in this language: en (English) or fr (French).",
        lang.ChooseLanguage,
        accounts.choose_language,
    ),
    Verb(
        "signoff",
        "USERID PASSWORD",
        "Leave the server; the games you still play are forfeited. Finished games and ratings stay in"
        " the records, and nobody else gets the userid.",
        lang.Signoff,
        accounts.signoff,
        aliases=("delete",),
    ),
    Verb(
        "message",
        "USERID PASSWORD TO...",
        "Mail the text below the command to these players; nobody sees anyone's address.",
        lang.Message,
        talk.message,
    ),
    Verb(
        "password reset",
        "USERID",
        "Forgot your password? A mail goes to the player's registered addresses with a reply address "
        "that works once, for a day: reply to it with the new password alone on the first line. "
        "Whoever asks learns nothing.",
        lang.AskPasswordReset,
        accounts.ask_password_reset,
        also=((lang.ResetPassword, accounts.reset_password),),
    ),
    Verb(
        "broadcast",
        "USERID PASSWORD",
        "For the server's administrators: mail the text below the command to every player.",
        lang.Broadcast,
        talk.broadcast,
    ),
    Verb(
        "vacation",
        "USERID PASSWORD [FROM UNTIL | off]",
        "Going away? Book it: FROM is now or a day (2026-12-20), UNTIL your last day away or a number"
        " of days (14d). While you are away your clocks stand still, nobody reminds you and you "
        "cannot forfeit on time; your opponents are told when you leave and come back. 'off' ends it "
        "(and calls off those booked ahead); with neither, where you stand and the days you have "
        "left.",
        lang.Vacation,
        vacations.vacation,
        parse=_vacation,
    ),
    Verb(
        "timezone",
        "USERID PASSWORD [ZONE]",
        "The time zone you live in, by its IANA name (Europe/Paris, America/New_York): dates in your "
        "mails are its local time, and your quiet hours and digests keep its clock, summer time included."
        " Without a zone, which it is.",
        lang.TimeZone,
        preferences.timezone,
    ),
    Verb(
        "quiet",
        "USERID PASSWORD [HH:MM-HH:MM|off]",
        "Hours of your day without mail (22:00-07:00, local time): mail for you that comes then waits "
        "until they end, except the answers to mail you send. 'off': mail at any hour again.",
        lang.QuietHours,
        preferences.quiet,
    ),
    Verb(
        "digest",
        "USERID PASSWORD [HH:MM[,HH:MM...]|off]",
        "One mail at each of these local times (07:30,19:00) instead of a mail for each move: the games"
        " waiting for you, the most urgent first, each with its board, its time left and a reply address"
        " of its own. A game you would forfeit within a day is mailed at once. 'off': a mail for each move"
        " again.",
        lang.Digest,
        preferences.digest,
    ),
    Verb("list", "", "The games this server plays.", lang.ListGames, accounts.list_games, aliases=("liste",)),
    Verb(
        "all show",
        "USERID [active|next|all]",
        "A player's games of every kind: those being played, those waiting for the player, or all.",
        lang.AllGames,
        accounts.all_games,
    ),
    Verb(
        "deadlines",
        "USERID",
        "The games of every kind waiting for the player's move, the one they would forfeit soonest "
        "first, each with the time left and when it runs out, on your clock.",
        lang.Deadlines,
        queries.deadlines,
    ),
)

GAME_VERBS = (
    Verb(
        "help",
        "",
        "The game's rules, its challenge options and its commands.",
        lang.GameHelp,
        accounts.game_help,
        key="game-help",
        aliases=("aide",),
    ),
    Verb(
        "challenge",
        "[-options] USERID1 USERID2 [...]",
        "Start a game. Send it from your own registered address; the first userid named moves first. "
        "The time rules --nagtime=N, --forfeittime=N, --totaltime=N and --clock=START+INCREMENT/CAP "
        "(days, or hours as 12h) set when the player to move is reminded and forfeits (see help "
        "time).",
        lang.Challenge,
        play.challenge,
        parse=_challenge,
        aliases=("chall",),
        shared=("counter",),
    ),
    Verb(
        "join",
        "BOARD USERID PASSWORD",
        "Take a free seat of an open challenge (one that names 'open' for a player); the game starts "
        "when every seat is taken. 'games open' lists them.",
        lang.Join,
        finding.join,
    ),
    Verb(
        "seek",
        "USERID PASSWORD [N] [-options]",
        "Ask for N more games (0: no more): the server pairs you with another seeker, the longest "
        "waiting first and then the nearest rating, and starts the game. Options narrow the games you"
        " take; without any, every game of this type will do. Without N, what you seek now.",
        lang.Seek,
        finding.seek,
        parse=_seek,
        shared=("seek", "counter"),  # pairing touches every seeker of the game, and starts games
    ),
    Verb(
        "move",
        "BOARD USERID PASSWORD MOVE[#N]",
        "#N is optional: the move is refused unless it is move N of the game, so a move sent against "
        "an old board is never misapplied. MOVE may also be: propose (a draw), undo (take back the "
        "last move), accept or reject (the draw or undo the others proposed): every player still in "
        "the game must accept, one reject ends the proposal, and any move withdraws it.",
        lang.Move,
        play.move,
        build=_move_or_proposal,
        also=((lang.Propose, votes.propose), (lang.Vote, votes.vote)),
        aliases=("mvoe",),
    ),
    Verb(
        "queue",
        "BOARD USERID PASSWORD MOVE[#N] | if MOVES then MOVE; ...; else MOVE | off",
        "Have a move played for you when your turn comes, if the others' moves are the ones you name "
        "(see help queue); with no move, what you queued; off forgets it.",
        lang.Queue,
        queueing.queue,
        parse=_queue,
        aliases=("qmove", "moveq", "qboard", "boardq"),
    ),
    Verb(
        "submit",
        "BOARD USERID PASSWORD MOVE",
        "See the board after your move, mailed to you alone: nothing counts until you confirm it.",
        lang.Submit,
        previews.submit,
    ),
    Verb(
        "confirm",
        "BOARD USERID PASSWORD",
        "Play the move you submitted, unless the board changed since (then submit again).",
        lang.Confirm,
        previews.confirm,
    ),
    Verb(
        "preview",
        "BOARD[#N] MOVE... | new NPLAYERS [-options] MOVE...",
        "Play moves on a copy of a board (as it stands, or after move N) or of a new game, and see "
        "the result; nothing is saved.",
        lang.Preview,
        previews.preview,
        parse=_preview,
        aliases=("prev",),
    ),
    Verb(
        "pass",
        "BOARD USERID PASSWORD",
        "No game here allows passing: every turn must be played.",
        lang.NotAllowed,
        play.not_allowed,
        parse=_not_allowed("pass"),
    ),
    Verb(
        "swap",
        "BOARD USERID PASSWORD",
        "No game here has a swap: the first player named in the challenge moves first.",
        lang.NotAllowed,
        play.not_allowed,
        parse=_not_allowed("swap"),
    ),
    Verb(
        "chat",
        "BOARD USERID PASSWORD",
        "Mail the text below the command to the board's players, without moving. A reply to a board "
        "mail whose first line is chat does the same.",
        lang.Chat,
        talk.chat,
    ),
    Verb(
        "accept",
        "USERID PASSWORD | BOARD USERID PASSWORD",
        "Take challenges to this game (the default); with a board, accept what another player proposed there.",
        lang.TakeChallenges,
        policy.take_challenges,
        build=_answer(takes=True),
    ),
    Verb(
        "reject",
        "USERID PASSWORD | BOARD USERID PASSWORD",
        "Refuse every challenge to this game; with a board, reject what another player proposed there.",
        lang.TakeChallenges,
        policy.take_challenges,
        build=_answer(takes=False),
    ),
    Verb(
        "limit",
        "USERID PASSWORD [N|inf]",
        "Play at most N games of this type at once (inf: no limit); without a value, the limit now.",
        lang.Limit,
        policy.limit,
        build=_limit,
    ),
    Verb(
        "subscribe",
        "BOARD USERID PASSWORD | USERID PASSWORD all",
        "Watch a board: its board mails come to you too, as to a player who holds no seat. With all, "
        "every game of this type that starts from now on.",
        lang.Subscribe,
        watching.subscribe,
    ),
    Verb(
        "unsubscribe",
        "BOARD USERID PASSWORD | USERID PASSWORD all",
        "Stop watching.",
        lang.Unsubscribe,
        watching.unsubscribe,
        aliases=("unsub",),
    ),
    Verb(
        "notify",
        "USERID PASSWORD [BOARD...|off]",
        "A mail when these boards end, or when any game of this type ends; off stops it.",
        lang.Notify,
        watching.notify,
    ),
    Verb(
        "show",
        "BOARD[#N] [BOARD...] | USERID [active|next|all]",
        "Mail a board; with #N, the board as it was after move N. With a userid, that player's games.",
        lang.Show,
        queries.show,
        parse=_show,
        aliases=("board",),
    ),
    Verb(
        "showas",
        "BOARD[#N] USERID",
        "As show: these games hide nothing, so every player sees the same board.",
        lang.Show,
        queries.show,
        build=_show_as,
    ),
    Verb(
        "games",
        "[USERID...] [active|next|all] | open",
        '"next" lists the games where it is that player\'s turn; "open", the open challenges anyone may join.',
        lang.Games,
        queries.games,
        build=_games_or_open,
        also=((lang.OpenChallenges, finding.list_open),),
    ),
    Verb(
        "resign",
        "BOARD USERID PASSWORD",
        "Resigning before every player has moved cancels the game. At an open challenge, its "
        "challenger calls it off, and another player gives their seat back.",
        lang.Resign,
        finding.resign,
        aliases=("abandon",),
    ),
    Verb("history", "[USERID...]", "The finished games, newest first.", lang.History, queries.history),
    Verb(
        "standings",
        "",
        "The players' ratings: the established ones, the provisional ones, and those inactive.",
        lang.Standings,
        queries.standings,
        aliases=("ratings",),
    ),
    Verb(
        "record",
        "BOARD",
        "The game's record, attached: every move with the hash chain that links it and the server's"
        " signature (and, once a game with dice is over, its revealed seed). Check it with pbm verify FILE.",
        lang.Record,
        queries.record,
    ),
)

_ARGUMENTS_CODES = {
    verb.arguments: "arguments-" + verb.help.removeprefix("about-") for verb in reversed((*ACCOUNT_VERBS, *GAME_VERBS))
}
"""The code of each shape of arguments: the first verb's that takes it (the reversed table's last)."""
ACCOUNT = {name: verb for verb in ACCOUNT_VERBS for name in (verb.name, *verb.aliases)}
GAME = {name: verb for verb in GAME_VERBS for name in (verb.name, *verb.aliases)}
_FIRST_ACCOUNT_WORDS = {name.split()[0] for name in ACCOUNT}
_OPENING_WORDS = [*dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS), *pbm.games.names()]
"""The words a command may start with, as a near miss of one is answered (``hepl``: did you mean help?)."""
_HANDLERS: dict[type[lang.Command], Handler] = {
    **{verb.command: verb.run for verb in (*ACCOUNT_VERBS, *GAME_VERBS)},
    **{command: run for verb in (*ACCOUNT_VERBS, *GAME_VERBS) for command, run in verb.also},
}
_VERB_OF: dict[type[lang.Command], Verb] = {
    command: verb
    for verb in reversed((*ACCOUNT_VERBS, *GAME_VERBS))
    for command in (verb.command, *(command for command, _ in verb.also))
}
"""The verb each noun belongs to (the first that names it)."""


def account_commands() -> list[str]:
    """The words an account command starts with, as an error mail lists them."""
    return list(dict.fromkeys(verb.name.split()[0] for verb in ACCOUNT_VERBS))


# -- parsing a line -------------------------------------------------------------------------


def parse_command(line: str) -> lang.Command:
    """Parse one line; raises `CommandError` with a message for the player."""
    try:
        words = lang.words_of(line)
        if not words:
            raise CommandError("empty-line")
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
        return verb.read("", words[len(verb.name.split()) :])
    if first == "change":
        password, address = (v.usage_said() for v in ACCOUNT_VERBS if v.name.startswith("change "))
        raise lang.usage_error(Fact("usage-either", first=password, other=address))
    if first in GAME:
        example = f"{pbm.games.names()[0]} {' '.join(words[:2])} ..."  # not the rest: it may hold a password
        raise CommandError("game-name-first", word=words[0], example=example)
    meant = near_miss(first, _OPENING_WORDS)
    if meant is not None:
        raise CommandError("not-a-command-near", word=words[0], meant=meant)
    known = ", ".join([*account_commands(), *pbm.games.names()])
    raise CommandError("not-a-command", word=words[0], known=known)


def _account_verb(lowered: list[str]) -> Verb | None:
    """The account verb a line's first word (or first two words) name."""
    return ACCOUNT.get(" ".join(lowered[:2])) or ACCOUNT.get(lowered[0])


def _per_game(game: str, args: list[str]) -> lang.Command:
    if not args:
        raise CommandError("game-without-verb", game=game)
    verb = GAME.get(args[0].lower())
    if verb is not None:
        return verb.read(game, args[1:])
    near = near_miss(args[0].lower(), GAME)
    if near is not None:
        raise CommandError("not-a-game-command-near", word=args[0], game=game, meant=GAME[near].name)
    verbs = ", ".join(verb.name for verb in GAME_VERBS if verb.offered)
    raise CommandError("not-a-game-command", word=args[0], game=game, verbs=verbs)


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
    if ACCOUNT.get(first) is ACCOUNT["help"]:
        return len(rest) <= 1
    if ACCOUNT.get(first) is ACCOUNT["list"]:
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


def ordering_keys(command: lang.Command) -> set[str]:
    """What applying `command` touches, which mails that touch it too are ordered by: every player
    and board its arguments name (`usage.ordering_keys`), and what its verb shares."""
    keys = set(argument_keys(command))
    verb = _VERB_OF.get(type(command))
    game = command.game if isinstance(command, lang.GameCommand) else ""
    keys.update(f"{shared}:{game}" for shared in (verb.shared if verb is not None else ()))
    return keys


def verb_catalogue() -> Catalogue:
    """The English of every verb's words, read from the table itself, so that a new verb needs no
    entry elsewhere: what it does under ``about-<verb>``, and its arguments as its usage writes them
    under ``arguments-<verb>`` (the usage lines' facts)."""
    every = (*ACCOUNT_VERBS, *GAME_VERBS)
    return {
        **{verb.help: verb.does for verb in every},
        **{verb.arguments_code: verb.arguments for verb in every if verb.arguments},
    }
