"""Answering a sender about their own mail: what went wrong, with what they wrote quoted.

An error mail says which command could not be carried out and why, shows
the board when one is involved, and quotes the mail back (a bounded number of
lines, passwords starred; its subject too when that was read for a command)
so the sender can see what the server read.

Except to a stranger (`Answers.stranger`): a From nobody confirmed may be forged, and whatever
an answer quotes, the club's domain would send to whoever owns that address. So an answer to
one quotes nothing of the mail but its first word: the command it refuses when it parsed as
one (a command's words, bounded and starred), else the first word of the line, the others
starred, and how many lines were not quoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pbm.games
from pbm.commands import language as lang
from pbm.commands import masking
from pbm.commands.effects import BoardRef, OutgoingMail, Refused, ReplyAs
from pbm.commands.plan import YOUR_REPLY, Plan
from pbm.facts import UNCONVERTED, Fact, Factual


@dataclass(frozen=True)
class Answers:
    quoted_lines: int
    """How many lines of the original an answer quotes (`Limits.quoted_lines`)."""
    stranger: bool = False
    """Whether the answers go to a From that may be forged: they quote nothing the sender wrote."""

    def error(
        self,
        to: str | None,
        body: str,
        plan: Plan,
        reason: Refused | lang.CommandError | pbm.games.GameError | Fact,
        *,
        command: lang.Command | None = None,
        about: BoardRef | None = None,
        reply_as: ReplyAs | None = None,
    ) -> OutgoingMail:
        """The error mail for `reason`, met by `command` (or by a line of `plan` that is no command).

        `about` names the board the mail concerns when neither the command nor
        the refusal does (an error in a reply to a board mail); `reply_as`, the
        reply address the error may be answered by when the refusal gives none
        (that of the board mail a reply answered: answering the error is
        answering that mail).
        """
        refusal = reason if isinstance(reason, Refused) else None
        reply_as = (refusal.reply_as if refusal is not None else None) or reply_as
        view = refusal.view if refusal is not None else None
        board = (refusal.about if refusal is not None else None) or _board_of(command) or about
        secrets = plan.secrets()
        line = command.line if command is not None else reason.line if isinstance(reason, lang.CommandError) else ""
        shown: str | Fact
        if line == YOUR_REPLY:
            shown = Fact("your-reply")  # a whole reply, said in the reader's language
        elif command is not None:
            shown = masking.mask_passwords(command.line, secrets)
        elif self.stranger:
            shown = _first_word_only(line)
        else:
            # A line that parsed as nothing may hide a password anywhere after its userid.
            shown = masking.mask_passwords(line, secrets, unparsed=True)
        nothing_parsed = not any(isinstance(step, lang.Command) for step in plan.steps)
        context = {
            "reason": _masked(_fact_of(reason), secrets),
            "command": shown,
            "other_commands": max(0, len(plan.steps) - 1),
            "view": view,
            "title": pbm.games.get(board.game_type).title if board is not None else _title_of(command),
            "board_number": board.board if board is not None else None,
            "replyable": reply_as is not None,
            "headline": refusal.headline if refusal is not None else None,
            "subject_read": ""
            if self.stranger
            else masking.mask_passwords(plan.subject, secrets, unparsed=nothing_parsed),
            **self.quotable(body, secrets, unparsed=nothing_parsed),
        }
        if reply_as is None:
            return OutgoingMail("error", to or "", context)
        return OutgoingMail(
            "error", to or "", context, board_id=reply_as.board_id, player_id=reply_as.player_id, at_ply=reply_as.at_ply
        )

    def failure(self, to: str, body: str) -> OutgoingMail:
        """The mail telling a sender that the server failed on their mail."""
        return OutgoingMail("failure", to, self.quotable(body, set()))

    def quotable(self, body: str, secrets: set[str], *, unparsed: bool = False) -> dict[str, Any]:
        """What an answer quotes of a mail: at most `quoted_lines` lines, passwords starred,
        and how many lines were left out (``original``, ``not_quoted`` in the templates)."""
        if self.stranger:
            first = masking.mask_passwords(_first_word(body), secrets)
            return {"original": first, "not_quoted": len(body.splitlines()) - (1 if first else 0)}
        lines = masking.mask_passwords(body, secrets, unparsed=unparsed).splitlines()
        return {"original": "\n".join(lines[: self.quoted_lines]), "not_quoted": max(0, len(lines) - self.quoted_lines)}


FIRST_WORD = 24
"""The most characters of a line's first word an answer to a stranger names."""


def _first_word(line: str) -> str:
    """The first word of `line`, cut short: what an answer to a stranger names of a line that is
    no command (``cheap``, not the advertisement after it)."""
    words = line.split(maxsplit=1)
    return words[0][:FIRST_WORD] if words else ""


def _first_word_only(line: str) -> str:
    """`line` with its first word (cut short) and every other word starred: what an answer to a
    stranger shows of a line that is no command (``cheap ******** ********``)."""
    rest = line.split()[1:]
    return " ".join([_first_word(line), *[masking.MASK] * min(len(rest), FIRST_WORD)])


def _fact_of(reason: Refused | lang.CommandError | pbm.games.GameError | Fact) -> Fact:
    """What the error mail says of `reason`, in its reader's language when it is rendered."""
    if isinstance(reason, Fact):
        return reason
    if isinstance(reason, Factual):
        return reason.fact
    return Fact(UNCONVERTED, text=str(reason))


def _masked(fact: Fact, secrets: set[str]) -> Fact:
    """`fact` with the passwords starred in its words (``'Tr0ub4dor' is not a language``: a password
    in the place of another word), its facts' too."""
    if not secrets:
        return fact
    params = {key: _masked_value(value, secrets) for key, value in fact.params.items()}
    return fact if params == fact.params else Fact(fact.code, **params)


def _masked_value(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        return masking.mask_passwords(value, secrets)
    if isinstance(value, Fact):
        return _masked(value, secrets)
    if isinstance(value, list):
        return [_masked_value(item, secrets) for item in value]
    return value


def _board_of(command: lang.Command | None) -> BoardRef | None:
    return BoardRef(command.game, command.board) if isinstance(command, lang.BoardCommand) else None


def _title_of(command: lang.Command | None) -> str:
    return pbm.games.get(command.game).title if isinstance(command, lang.GameCommand) else ""
