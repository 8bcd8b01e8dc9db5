"""The games' verbs: what a line that starts with a game's name asks for (``cephalopod move
...``, ``cephalopod challenge ...``), each one entry (`pbm.commands.verbs.verb.Verb`): its words,
its noun and its handler, with the readers of the verbs whose words may mean more than one noun
and of the irregular ones. The table (`pbm.commands.verbs`) lists them after the account's.
"""

from __future__ import annotations

from typing import Any

from pbm.commands import (
    accounts,
    finding,
    play,
    policy,
    previews,
    queries,
    queueing,
    talk,
    votes,
    watching,
)
from pbm.commands import language as lang
from pbm.commands.language import CommandError
from pbm.commands.verbs import account
from pbm.commands.verbs.verb import Build, Parse, Unfit, Verb, in_table_order, noun
from pbm.timekeeping import clocks

MOST_SOUGHT = 20
"""Games one seek may ask for at once."""


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
        return _games().read(game, words)
    return lang.Show(game, tuple(lang.board_at(w) for w in words))


def _not_allowed(word: str) -> Parse:
    """pbmserv's ``pass`` and ``swap``, whatever follows: answered with why no game here has them."""

    def parse(game: str, args: list[str]) -> lang.Command:
        return lang.NotAllowed(game, word)

    return parse


def _games() -> Verb:
    """``games``, which ``show USERID`` means."""
    return next(verb for verb in VERBS if verb.name == "games")


# -- the entries ----------------------------------------------------------------------------

VERBS = in_table_order(
    (
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
    ),
    after=account.VERBS,
)
