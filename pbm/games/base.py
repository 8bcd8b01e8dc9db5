"""What every game engine shares: the `Game` interface, options, results, errors.

An engine is pure: no I/O, no database, no mail. It turns a state and a move
string into a new state, lists the legal moves in canonical notation, decides the
result and draws the ASCII board. States are treated as immutable values:
`play` returns a new state and never touches the one it was given.

Every game accepts an optional stale-move guard on a move, ``c3#7``: the move is
refused unless it would be move number 7 of the game (moves count from 1). A
player who mails a move against an old board gets a refusal instead of a move
they did not mean. `Game.play` strips and checks the guard before the game's own
rules see the move.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from pbm.facts import UNCONVERTED, Catalogue, Fact, Factual, english, merged
from pbm.games.messages import MESSAGES

if TYPE_CHECKING:
    from pbm.games.fairdice import Roll

RESIGN = "resign"
"""What a game's record holds for a player's resignation, where a move would stand."""
FORFEIT = "forfeit"
"""What a game's record holds where a player forfeited (out of time, or signed off): like a resignation."""
LEAVING = (RESIGN, FORFEIT)
"""The records of a player leaving the game, where a move would stand."""
UNDO = "undo"
"""What a game's record holds where the players agreed to take back the move before it."""


class GameError(Factual, ValueError):
    """A mistake a player can make, as a fact (`fact`); its words are in `pbm.games.messages`
    or in the game's own `Game.messages`."""

    def english_catalogue(self) -> Catalogue:
        return catalogue()


def catalogue() -> Catalogue:
    """The engines' words: the shared catalogue and every installed game's own."""
    from pbm import games  # the registry imports this module

    return merged([MESSAGES, *(game.messages for game in games.all_games())])


class IllegalMove(GameError):
    """The move cannot be played in this position; the message says why."""


class StaleMove(IllegalMove):
    """The move carried a ``#N`` guard that does not match the game's move number."""


class InvalidOptions(GameError):
    """A challenge asked for an unknown option or a value out of range."""


class InvalidPosition(GameError):
    """A position string does not describe a position of this game."""


@dataclass(frozen=True)
class Result:
    """How a game ended: the winning seats (0-based), the kind of ending, and the fact that says how.

    Several winners mean a shared result (a draw or a tie among them).
    """

    winners: list[int]
    code: str
    """The kind of ending, a short stable word a program can test (each game lists its own):
    ``most-cells``, ``tie``, ``merged``. Stored with the result; the words are for people."""
    fact: Fact
    """How it ended, as a fact whose words follow the winners' names, which the caller writes.

    Its words name no seat and start with the verb, so that ``"bob " + words`` and
    ``"alice and carol " + words`` read as sentences: ``won, holding 15 of the 25 cells``,
    ``tied, each holding 12 cells``, ``won by merging to 7``. No capital and no full stop.
    """

    @property
    def reason(self) -> str:
        """The English of `fact` (the engines' API promises ``.reason`` as words); the edge says
        `fact` in its reader's language instead."""
        return english(self.fact, catalogue())


@dataclass(frozen=True)
class MoveReport:
    """What one move did, as facts, for the line of a mail that announces it.

    Like `Result.fact`, each fact's words follow names that the caller writes and name no
    seat themselves.
    """

    fact: Fact
    """What the move did, after the mover's name: ``played b4=a4+b3, capturing 2 dice (a 1 and a 1)``."""
    eliminated: tuple[int, ...] = ()
    """The seats this move took out of the game, in seat order."""
    why: Fact | None = None
    """Why they are out, after their names (``carol`` or ``carol and dave``), when `eliminated`:
    ``is out, holding the fewest cells (7) when the board filled up with a tie for first place``."""
    tally: tuple[int, ...] | None = None
    """Every seat's `Game.tally` at the moment that decided the eliminations, when `eliminated`.

    The eliminated seats' own counts are gone from the state after the move,
    so the caller cannot print everyone's count without this.
    """


@dataclass(frozen=True)
class MoveExample:
    """One legal move of a position taken apart, for players who write moves by hand: the
    mails show it with the board, and their templates put it into words."""

    notation: str
    """The move as the game writes it: ``1,0,0->1,-1``."""
    kind: str
    """What sort of turn it is, in the game's own terms (Cubeo: ``add``, ``move``, ``merge``, ``remove``)."""
    target: str
    """The cell it ends on, as the notation writes cells: where a piece goes, is added or is taken from."""
    source: str | None = None
    """The cell the piece starts from, for a turn that takes one somewhere."""
    pips: int | None = None
    """The value the piece it takes shows, where the game's pieces have one."""
    makes: int | None = None
    """What the turn makes of the piece on `target`, where it changes it (a merge's sum)."""
    shortest: str = ""
    """The same move written the shortest way the game accepts it (``0,0->1,-1``), if shorter."""


DIE = "die"
"""A die: it has an owner, shows a value and has a number of sides (and maybe a kind)."""
STONE = "stone"
"""A stone: it has an owner and nothing else."""
MARKER = "marker"
"""A marker: a short label on a cell (a last-move sign, a count), owned or not."""


@dataclass(frozen=True)
class BoardCell:
    """One cell of a board as a picture draws it: where it is and the piece on it, if any.

    `x` grows to the right and `y` upward; `column` and `row` are the labels
    the ASCII board prints on its edges, and `name` is the cell as the move
    notation writes it. An empty cell has `piece` ``None``; a cell that is not
    part of the board at all (the corners of a hexagonal board drawn in a
    rectangle) has `exists` false.
    """

    x: int
    y: int
    column: str
    row: str
    name: str
    owner: int | None = None
    """The seat (0-based) whose piece stands here."""
    value: int | None = None
    """The face a die shows (its pips)."""
    sides: int | None = None
    """How many faces a die has: 6, 8, 10, 12 ..."""
    kind: str | None = None
    """The kind of die, for games with several (Dodeca's ``Tetra``, ``Cube`` ...)."""
    piece: str | None = None
    """What stands here: `DIE`, `STONE`, `MARKER`, or ``None`` on an empty cell."""
    label: str | None = None
    """A marker's text."""
    exists: bool = True


@dataclass(frozen=True)
class Option:
    """A challenge option, given in pbmserv style as ``-name`` or ``-name=value``.

    A flag (`choices` empty) is ``True`` when given and takes no value; a
    numeric option takes one of `choices`, and `default` applies when absent.
    """

    name: str
    help: str
    choices: tuple[int, ...] = ()
    default: int | None = None

    @property
    def is_flag(self) -> bool:
        return not self.choices

    def usage(self) -> str:
        """How the option is written: ``-strict``, ``-dice=6|12``, a run of numbers as ``-size=3..9``.

        >>> Option("size", "", choices=(3, 4, 5, 6)).usage(), Option("dice", "", choices=(6, 12)).usage()
        ('-size=3..6', '-dice=6|12')
        """
        if self.is_flag:
            return f"-{self.name}"
        low, high = self.choices[0], self.choices[-1]
        if len(self.choices) > 2 and self.choices == tuple(range(low, high + 1)):
            return f"-{self.name}={low}..{high}"
        return f"-{self.name}=" + "|".join(str(c) for c in self.choices)


class State(Protocol):
    """The little every state offers whatever its game."""

    @property
    def to_move(self) -> int: ...

    @property
    def ply(self) -> int: ...


S = TypeVar("S", bound=State)

_GUARD = re.compile(r"^(?P<move>.*?)\s*#\s*(?P<number>\S*)\s*$", re.DOTALL)


def split_guard(text: str) -> tuple[str, int | None]:
    """Split ``"c3#7"`` into ``("c3", 7)``; a move without a guard gives ``None``.

    >>> split_guard("c3=b3+c2 #12")
    ('c3=b3+c2', 12)
    >>> split_guard("roll c2")
    ('roll c2', None)
    """
    match = _GUARD.match(text)
    if match is None:
        return text.strip(), None
    number = match.group("number")
    if not number.isdecimal() or int(number) < 1:
        raise IllegalMove("guard-not-a-number", guard=number)
    return match.group("move").strip(), int(number)


def one_of(choices: Sequence[str]) -> Fact | str:
    """Choices said as alternatives (``x or y or z``): nested facts, so a language says its "or".

    >>> one_of(["a", "b", "c"])
    Fact('one-or-other', first='a', other=Fact('one-or-other', first='b', other='c'))
    """
    if len(choices) == 1:
        return choices[0]
    return Fact("one-or-other", first=choices[0], other=one_of(choices[1:]))


def check_guard(expected: int | None, ply: int) -> None:
    """Refuse a move guarded ``#expected`` unless it would be move ``ply + 1``."""
    if expected is not None and expected != ply + 1:
        raise StaleMove("stale-move", written_for=expected, at=ply + 1)


class Game(ABC, Generic[S]):
    """One game's rules. Subclasses describe themselves in the class attributes."""

    name: ClassVar[str]
    """The command-language name, lower case: ``cephalopod``."""
    title: ClassVar[str]
    """The name as printed: ``Cephalopod``."""
    designer: ClassVar[str]
    """Who invented the game; every help text and page attributes it."""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    seat_names: ClassVar[tuple[str, ...]]
    """Names of the seats in challenge order (``Paren``, ``Angle``, ...)."""
    options: ClassVar[tuple[Option, ...]] = ()
    tally_unit: ClassVar[str] = ""
    """What `tally` counts, in the singular (``cell``); empty when the game keeps no score."""
    help_text: ClassVar[str]
    """The rules in a player's words, plain text under a title line and a line of ``=``: what
    ``GAME help`` mails and the rules page shows. Options and commands are added to it."""
    messages: ClassVar[Catalogue] = {}
    """The words of the facts this game raises and returns that `pbm.games.messages` does not
    have: a game installed from a package brings its own."""
    notes_heading: ClassVar[str] = "Notes"
    """How a page heads the game's `public_notes` (Dodeca's are about its fair dice)."""

    # -- options -------------------------------------------------------------

    def parse_options(self, words: Iterable[str]) -> dict[str, Any]:
        """Turn challenge words like ``-size=7 -strict`` into an options dict.

        >>> from pbm.games import get
        >>> get("cephalopod").parse_options(["-size=7", "-dice=12"])
        {'size': 7, 'dice': 12}
        """
        parsed: dict[str, Any] = {}
        for word in words:
            if not word.startswith("-") or len(word) < 2:
                raise InvalidOptions("not-an-option", word=word)
            name, has_value, value = word[1:].partition("=")
            option = self._option(name.lower())
            if option.is_flag:
                if has_value:
                    raise InvalidOptions("option-takes-no-value", option=option.name)
                parsed[option.name] = True
            else:
                # No option's range reaches ten digits; thousands would not even turn into an int.
                if not has_value or not value.strip().isdecimal() or len(value.strip()) > 9:
                    raise InvalidOptions("option-needs-a-number", option=option.name, usage=option.usage())
                parsed[option.name] = int(value)
        return self.check_options(parsed)

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate an options dict (as stored or passed to `new`) and return a copy."""
        checked: dict[str, Any] = {}
        for name, value in (options or {}).items():
            option = self._option(name)
            if option.is_flag:
                if value is not True:
                    raise InvalidOptions("option-is-a-flag", option=option.name)
            elif isinstance(value, bool) or value not in option.choices:
                raise InvalidOptions(
                    "option-out-of-range", option=option.name, value=value, choices=", ".join(map(str, option.choices))
                )
            checked[option.name] = value
        return checked

    def option_value(self, options: Mapping[str, Any], name: str) -> Any:
        """The value of option `name`, or its default when the challenge left it out."""
        option = self._option(name)
        return options.get(name, False if option.is_flag else option.default)

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            if self.min_players == self.max_players:
                raise InvalidOptions("players-exactly", game=self.title, wanted=self.min_players, players=players)
            raise InvalidOptions(
                "players-out-of-range", game=self.title, low=self.min_players, high=self.max_players, players=players
            )

    def _option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        if not self.options:
            raise InvalidOptions("no-options-at-all", game=self.title, option=name)
        raise InvalidOptions(
            "no-such-option", game=self.title, option=name, known=", ".join(o.usage() for o in self.options)
        )

    # -- the rules -----------------------------------------------------------

    @abstractmethod
    def new(self, players: int = 2, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> S:
        """The start position for `players` seats; `seed` feeds games with dice."""

    @abstractmethod
    def from_position(self, position: str, options: Mapping[str, Any] | None = None) -> S:
        """Parse the game's position notation (raises `InvalidPosition`)."""

    @abstractmethod
    def to_position(self, state: S) -> str:
        """The position notation of `state`."""

    @abstractmethod
    def legal_moves(self, state: S) -> list[str]:
        """Every legal move once, in canonical notation; empty when the game is over."""

    def play(self, state: S, move: str) -> S:
        """The state after `move`; raises `IllegalMove` and leaves `state` untouched.

        Accepts the game's lenient input forms and an optional ``#N`` guard.
        """
        return self.play_notated(state, move)[1]

    def play_notated(self, state: S, move: str) -> tuple[str, S]:
        """Like `play`, also returning the move's canonical notation for the record."""
        text, expected = split_guard(move)
        if self.result(state) is not None:
            raise IllegalMove("game-over")
        check_guard(expected, state.ply)
        notation = self.parse_move(state, text)
        return notation, self.apply(state, notation)

    @abstractmethod
    def parse_move(self, state: S, text: str) -> str:
        """The canonical notation of the legal move `text` means (no guard).

        Accepts the game's input conveniences; raises `IllegalMove` with a reason
        the player can act on. The store records moves in this canonical form.
        """

    @abstractmethod
    def apply(self, state: S, move: str) -> S:
        """Play a move given in canonical notation, as `parse_move` returns it."""

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """How the game ended, or ``None`` while it goes on."""

    def resign(self, state: S, seat: int) -> S | None:
        """The state after `seat` resigns and the others play on, or ``None``.

        ``None`` (the default) means resigning ends the game and every other
        seat wins; a game for more than two players may instead take the
        resigning seat out and continue.
        """
        return None

    def replay(self, state: S, plays: Iterable[tuple[int, str]]) -> S:
        """The state after `plays` from `state`, as a game's record keeps them.

        Each play is a (seat, move in canonical notation); a move `RESIGN` (or
        `FORFEIT`) is that seat resigning (a resignation that ended the game left the position
        as it was), and `UNDO` takes back the last move still standing.
        """
        before: list[S] = []
        for seat, move in plays:
            if move in LEAVING:
                state = self.resign(state, seat) or state
            elif move == UNDO:
                state = self.undo(before.pop(), state)
            else:
                before.append(state)
                state = self.apply(state, move)
        return state

    @property
    def takes_moves_back(self) -> bool:
        """Whether the players of this game may agree to take a move back (see `undo`)."""
        return type(self).undo is not Game.undo

    def undo(self, before: S, after: S) -> S:
        """The position `before` a move, once the players agreed to take that move back.

        It counts as a ply of its own: the record numbers the undo as a move,
        and ``#N`` guards count it too. A game with hidden state that must not
        be taken back (dice already rolled) keeps that part of `after`. The
        default refuses: a game says it can take moves back by overriding this.
        """
        raise IllegalMove("cannot-take-back", game=self.title)

    # -- telling players what happened --------------------------------------------

    def report(self, before: S, notation: str, after: S) -> MoveReport:
        """What the move `notation` (canonical, as `play_notated` returns it) did, in words.

        `before` and `after` are the states on either side of the move; the
        words come from them and the notation alone. Resignations are not
        moves: the caller words them. The default says only the notation:
        ``played c3``.
        """
        return MoveReport(Fact("played", move=notation))

    def seats_in_play(self, state: S) -> tuple[int, ...]:
        """The seats still in the game, in seat order.

        The default, every seat, suits games for a fixed number of players
        where nobody leaves before the end; others override it.
        """
        return tuple(range(self.max_players))

    def tally(self, state: S) -> tuple[int, ...] | None:
        """A count per seat (every seat, in seat order) of `tally_unit`, or ``None``.

        ``None`` (the default) means the game keeps no score: its rules decide
        the winner by an event, not by counting.
        """
        return None

    @abstractmethod
    def render(self, state: S, viewer: int | None = None) -> str:
        """The ASCII board of the mail replies (`viewer` is the reader's seat, if any)."""

    def drawing(self, state: S, viewer: int | None = None) -> tuple[str, list[Fact]]:
        """`render` in two parts, for a reader of any language: the drawing (notation, the same in
        every language) and the lines below it that are words (Cubeo's dice in hand), as facts.
        A game whose drawing has no words keeps the default: all of `render`, no facts."""
        return self.render(state, viewer=viewer), []

    @abstractmethod
    def cells(self, state: S) -> list[BoardCell]:
        """The cells `render` draws, as data for pictures that are not ASCII (the web page).

        Every cell of the drawn rectangle once, the top row first and each row
        from left to right, empty cells included, so a caller can lay them out
        as a grid without knowing the game. Shows exactly what `render` shows to
        a reader who holds no seat: nothing hidden.
        """

    # -- storage -------------------------------------------------------------

    @abstractmethod
    def dump(self, state: S) -> dict[str, Any]:
        """Everything needed to resume `state` as JSON-safe data, except `secret`."""

    @abstractmethod
    def load(self, data: Mapping[str, Any], secret: bytes | None = None) -> S:
        """The state `dump` described; `secret` is what `secret_of` returned."""

    def resume(self, data: Mapping[str, Any], secret: bytes | None = None) -> S:
        """`load` for data this server stored from a state `play` made, to play on: an engine
        may leave out there the checks whose cost grows with the game (see Dodeca's), so a
        move costs the same at move 300 as at move 3. Data from anywhere else goes through
        `load`. By default the two are one."""
        return self.load(data, secret)

    def secret_of(self, state: S) -> bytes | None:
        """Hidden state that must never be shown before the game ends (dice seeds)."""
        return None

    def with_stand_in_secret(self, state: S) -> S:
        """`state` with its hidden part replaced by a fresh one nobody will use for real, for
        playing what-ifs without showing what the real secret holds (the next rolls). The
        position and everything already shown stay; a game without secrets returns `state`."""
        return state

    def published_rolls(self, state: S) -> Sequence[Roll] | None:
        """The dice the server rolled so far, in order, for the game's dice record (see
        `pbm.games.fairdice`); ``None`` for a game that rolls no dice on the server."""
        return None

    def example_move(self, state: S) -> MoveExample | None:
        """A legal move of `state` taken apart, the same for the same position, for games whose
        notation is hard to write by hand (the mails show it with the board). None, the default,
        for games whose notation speaks for itself, and where nobody can move."""
        return None

    def public_notes(self, state: S, *, game_over: bool = False) -> list[str]:
        """Lines to print with the board in mails and pages (e.g. a dice commitment), in English:
        `public_facts` said. A game may override this one instead, with lines written in English.

        `game_over` says the game has ended by other means than the rules (a
        resignation), so hidden state may now be revealed.
        """
        facts = type(self).public_facts is not Game.public_facts
        return [english(fact, catalogue()) for fact in self.public_facts(state, game_over=game_over)] if facts else []

    def public_facts(self, state: S, *, game_over: bool = False) -> list[Fact]:
        """`public_notes` as facts, each said in its reader's language. A game that writes its notes
        in English (`public_notes`) has them passed on as written."""
        return [Fact(UNCONVERTED, text=note) for note in self.public_notes(state, game_over=game_over)]

    @property
    def attribution(self) -> str:
        """How every help text and page credits the game: ``Cephalopod, a game by Mark Steere``."""
        return f"{self.title}, a game by {self.designer}"

    @property
    def attribution_fact(self) -> Fact:
        """`attribution` as a fact, for a reader of any language."""
        return Fact("game-by", game=self.title, designer=self.designer)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} game {self.name!r}>"
