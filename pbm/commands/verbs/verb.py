"""A verb of the command language: one entry that holds all its words, its noun and its handler.

`Verb` is the machinery every entry of the table (`pbm.commands.verbs`) shares: its usage line
read as the spec of its arguments (`pbm.commands.usage`), the facts of its usage and of what it
does, its secrets, and its reading of the words after it. The entries themselves are in
`pbm.commands.verbs.account` and `pbm.commands.verbs.game`.

Reading is pure: no database, no mail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any

from pbm.commands import language as lang
from pbm.commands.context import Context
from pbm.commands.effects import OutgoingMail
from pbm.commands.language import CommandError
from pbm.commands.usage import Spec, secret_count
from pbm.facts import Catalogue, Fact, merged

Handler = Callable[[Context, Any], list[OutgoingMail]]
Build = Callable[[str, dict[str, Any]], lang.Command]
"""Makes the command of a line from the game's name (empty for account verbs) and the arguments its
usage line read (`usage.Spec.read`), for a verb whose words may mean more than one noun."""
Parse = Callable[[str, list[str]], lang.Command]
"""An irregular verb's own parser: the game's name and the words after the verb. It raises
`Unfit` when the words fit no shape of the usage line, and the verb answers with it."""


class Unfit(Exception):
    """The words after a verb fit no shape of its usage line."""


class UsageError(CommandError):
    """Words that fit no shape of a verb's usage line: the error says the usage line.

    Its English needs the verb's own words (the names of its arguments), which are in the verb's
    entry and not in the command layer's catalogue: that catalogue is below the handlers, which
    the table of verbs is above. So the error carries them (`words`, from `Verb.words`)."""

    def __init__(self, fact: Fact | str, /, line: str = "", *, words: Catalogue | None = None, **params: Any) -> None:
        super().__init__(fact, line=line, **params)
        self.words = dict(words or {})

    def english_catalogue(self) -> Catalogue:
        return merged([super().english_catalogue(), self.words])


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
    arguments_key: str = ""
    """The code of the arguments when the first verb of the table that takes the same arguments is
    another: set by the table (`pbm.commands.verbs`), which alone knows the order of the verbs."""

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
        takes already needs no translation of them. The table says which (`arguments_key`)."""
        return self.arguments_key or "arguments-" + self.help.removeprefix("about-")

    @property
    def words(self) -> Catalogue:
        """The English of the verb's own words, under their codes: what it does, and its arguments."""
        return {self.help: self.does, **({self.arguments_code: self.arguments} if self.arguments else {})}

    def usage_error(self, game: str | None = None) -> UsageError:
        """The error of words that fit no shape of the usage line: it says the usage line."""
        return UsageError(Fact("usage", usage=self.usage_said(game)), words=self.words)

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
            raise self.usage_error(game) from None
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


def in_table_order(verbs: tuple[Verb, ...], after: tuple[Verb, ...] = ()) -> tuple[Verb, ...]:
    """`verbs` as the table lists them, after the verbs `after`: each with the code of its arguments,
    the first verb's of the table that takes the same (`Verb.arguments_key`)."""
    first: dict[str, str] = {}
    for verb in (*after, *verbs):
        first.setdefault(verb.arguments, verb.arguments_code)
    return tuple(replace(verb, arguments_key=first[verb.arguments]) for verb in verbs)
