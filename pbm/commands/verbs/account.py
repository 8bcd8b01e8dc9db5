"""The account's verbs: what a line that starts with a verb and no game asks for (``signup``,
``vacation``, ``deadlines`` ...), each one entry (`pbm.commands.verbs.verb.Verb`): its words, its
noun and its handler. The table (`pbm.commands.verbs`) lists them before the games' verbs.
"""

from __future__ import annotations

import re
from datetime import date

from pbm.commands import (
    accounts,
    preferences,
    queries,
    talk,
    vacations,
)
from pbm.commands import language as lang
from pbm.commands.language import CommandError
from pbm.commands.verbs.verb import Unfit, Verb, in_table_order

# -- irregular verbs: their own parsers ---------------------------------------------------


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


# -- the entries ----------------------------------------------------------------------------

VERBS = in_table_order(
    (
        Verb(
            "help", "[GAME]", "This help, or a game's rules and options.", lang.Help, accounts.help_, aliases=("aide",)
        ),
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
)
