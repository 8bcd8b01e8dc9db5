"""What running a command can come to: the mails it causes, or a refusal that says why.

A command never sends mail itself: it returns `OutgoingMail` effects that the
mail layer renders from templates into the outbox, in the same transaction
as the command's changes. A refusal raises `Refused` with a fact (a code of
`pbm.commands.messages.REFUSALS` and its parameters), and changes nothing (the caller runs each command in a
savepoint).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pbm.commands import messages
from pbm.facts import UNCONVERTED, Catalogue, Fact, Factual, merged
from pbm.store.models import Player
from pbm.views.board import BoardView


@dataclass(frozen=True)
class Attachment:
    """A JSON document pbm built (never anything a received mail carried), attached to a mail."""

    filename: str
    """``<game>-<board>.json``: a registered game's name and a number, nothing a sender wrote."""
    document: dict[str, Any]
    signed_record: bool = False
    """A game record (`pbm.views.record`) the mail layer signs with the server's key as it
    composes the mail, naming the server as its site."""


@dataclass(frozen=True)
class OutgoingMail:
    """One mail a command causes, to one address, rendered from ``templates/mail/<template>.txt``."""

    template: str
    to: str
    context: dict[str, Any] = field(default_factory=dict)
    board_id: int | None = None
    player_id: int | None = None
    """The player the mail is for, when it is for one (not for whoever sent the mail answered): it
    reaches them only at an address they confirmed. With `board_id`, the mail joins their thread
    of that game."""
    at_ply: int | None = None
    """The move number of the board the mail shows, when a reply to it may play the next move:
    the mail's reply token names it, so a reply to an older board is stale."""
    starts_thread: bool = False
    """The game's first mail to this recipient: later mails refer to it."""
    reply_token: str | None = None
    """A reply address of the mail's own, not a board's: a password reset's one-time token, or the
    token of a request to confirm the address the mail goes to. A secret: the outbox keeps the
    mail without it once the mail has gone."""
    addressee: str | None = None
    """The recipient's userid, for a report to the sender (`reports_on`) to name."""
    reports_on: str | None = None
    """This mail tells the sender what became of the mails of this template that the same
    received mail caused: it is composed after the limits were applied to them, with their
    `pbm.mail.outgoing.Reach` in its context as ``reach`` (and the ``limits`` that held any back)."""
    digest_reply: bool = False
    """A digest to `player_id`: its reply address takes a move for each board it lists (``101 c3``)."""
    to_watcher: bool = False
    """A watcher's copy of a board's news: the mail answered did not ask for it, so it is not one
    of that mail's answers (`Limits.replies_per_mail`)."""
    attachment: Attachment | None = None
    """A document the mail carries beside its text (a game's record)."""
    language: str | None = None
    """The language the mail is written in; None until the mail layer looks up its reader's (the
    player's choice, else the club's default) just before composing it."""
    zone: str | None = None
    """The zone (an IANA name) whose wall clock the mail's dates are on: its reader's, looked up
    with their language; None: UTC."""


@dataclass(frozen=True)
class ReplyAs:
    """A player's board in an error mail that, like a board mail, a reply may answer with a move."""

    board_id: int
    player_id: int
    at_ply: int


@dataclass(frozen=True)
class BoardRef:
    """Which board a refusal concerns, for its mail's subject: ``Cephalopod Board 101 Error``."""

    game_type: str
    board: int


class Refused(Factual):
    """The command cannot run; `fact` says why (its words are in `pbm.commands.messages`).

    `view` is the board involved, shown in the error mail; `about` names the
    board when there is no view to show; `reply_as` makes the error mail
    answerable with a move, as a board mail is.
    """

    def __init__(
        self,
        fact: Fact | str,
        /,
        *,
        view: BoardView | None = None,
        about: BoardRef | None = None,
        reply_as: ReplyAs | None = None,
        headline: Fact | str | None = None,
        **params: Any,
    ) -> None:
        super().__init__(fact, **params)
        self.headline = Fact(headline) if isinstance(headline, str) else headline
        """What the error mail's subject says instead of "Error" (``invalid-challenge``: "Invalid challenge")."""
        self.view = view
        self.about = about or (BoardRef(view.game_type, view.board) if view is not None else None)
        self.reply_as = reply_as

    def english_catalogue(self) -> Catalogue:
        # An engine's fact a refusal carries may still be words (`UNCONVERTED`) while engines are converted.
        return merged([{UNCONVERTED: "{text}"}, messages.catalogue()])

    @property
    def message(self) -> str:
        """The refusal in English."""
        return str(self)


@dataclass(frozen=True)
class Sender:
    """Who sent the mail: the From address, the players registered with it, and the host that
    handed the mail to us where known (`pbm.mail.sending_host`)."""

    address: str | None
    players: Sequence[Player] = ()
    host: str | None = None
    unproven: bool = False
    """Whether our own MTA could not vouch for the From (a trusted DMARC result other than
    ``pass``, `pbm.mail.authentication`): it may be forged, so the mail speaks for the host that
    sent it, never for the address's owner."""


@dataclass(frozen=True)
class PasswordCheck:
    """A password was checked: the processor records it even when the command is refused."""

    player_id: int
    sender: str
    """Whose count a wrong password goes to (`pbm.store.players.password_sender`)."""
    right: bool


def listed(items: Sequence[Any], code: str = "comma-list") -> Any:
    """`items` as one parameter, each after the other as `code`'s message puts them: ``a, b, c``
    (``comma-list``) or ``a; b; c`` (``semicolon-list``), where a refusal has always listed them so
    rather than as a sentence joins a list ("a, b and c")."""
    if len(items) <= 1:
        return items[0] if items else ""
    return Fact(code, first=items[0], rest=listed(items[1:], code))
