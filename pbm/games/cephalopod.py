"""Cephalopod, a game by Mark Steere (2006): place dice, capture by adding them up.

The board
---------
A square board, 5x5 unless the challenge says ``-size=N`` (3 to 9). Columns are
letters from the left (``a``, ``b``, ...), rows are numbers from the bottom
(``1``, ``2``, ...), so ``a1`` is the bottom-left cell. The board starts empty.

>>> from pbm.games.cephalopod import GAME
>>> state = GAME.new(players=2)
>>> print(GAME.render(state))
    A   B   C   D   E
5  ... ... ... ... ...  5
4  ... ... ... ... ...  4
3  ... ... ... ... ...  3
2  ... ... ... ... ...  2
1  ... ... ... ... ...  1
    A   B   C   D   E

A turn
------
The players take turns; each turn places one die of one's own on an empty cell.
There is no passing, and dice never move once placed. The first seat, "Paren",
prints its dice as ``(n)`` and moves first; the second, "Angle", prints ``<n>``.

Whether the new die captures depends only on its orthogonal neighbours (up, down,
left, right; not diagonal). A *capture set* is any two or more of those
neighbours, whoever owns them, whose pips add up to 6 or less (12 or less with
``-dice=12``).

- If the chosen cell has a capture set, the placement **must** capture: the
  player picks any one capture set (not necessarily the largest), those dice leave
  the board and the new die shows their sum.
- If it has none, the new die shows 1.

Capturing is compulsory only at the chosen cell: a player is always free to pick
a cell where nothing can be captured. Each (cell, capture set) pair is a separate
move. Here Paren plays the centre of Figure 2 of the rule sheet, next to two ones:

>>> state = GAME.from_position("...../..a1../...b1./...../..... a")
>>> GAME.moves_at(state, "c3")
['c3=c4+d3']
>>> after = GAME.play(state, "c3")
>>> print(GAME.render(after))
    A   B   C   D   E
5  ... ... ... ... ...  5
4  ... ... ... ... ...  4
3  ... ... (2) ... ...  3
2  ... ... ... ... ...  2
1  ... ... ... ... ...  1
    A   B   C   D   E

A five next to a two cannot be captured (5 + 2 = 7), so in Figure 5 Angle's die
on e3, next to Paren's two on d3 and Angle's own five on e2, shows a 1:

>>> state = GAME.from_position("...../..a1../..b3a2./...a1b5/..... b")
>>> GAME.moves_at(state, "e3")
['e3']
>>> GAME.to_position(GAME.play(state, "e3"))
'...../..a1../..b3a2b1/...a1b5/..... a'

Notation
--------
A plain placement is the cell, ``c3``. A capture is the cell, ``=``, and the
captured cells joined by ``+``: ``c3=b3+c2``. The canonical form is lower case
with the captured cells sorted by column, then row. On input the case does not
matter, the captured cells may come in any order, and two shortcuts are
accepted:

- a bare ``c3`` where exactly one capture set exists at c3 means that capture;
- ``c3=4`` (the value the new die will show) where exactly one capture set at
  c3 adds up to 4; ``c3=1`` is the plain placement where nothing can be captured.

>>> state = GAME.from_position("...../..a1../.b2.b3./..a1../..... b")
>>> GAME.parse_move(state, "C3=D3+B3")
'c3=b3+d3'
>>> GAME.parse_move(state, "c3=2")
'c3=c2+c4'
>>> GAME.parse_move(state, "c3=4")
Traceback (most recent call last):
...
pbm.games.base.IllegalMove: c3=4 could be c3=c2+d3 or c3=c4+d3 or c3=b3+c2+c4; say which dice to capture
>>> GAME.parse_move(GAME.from_position("...../...../.a1.a2./...../..... b"), "c3")
'c3=b3+d3'

A move may carry a ``#N`` guard (``c3#7``): it is refused unless it would be
move number N, so a mail written against an old board changes nothing.

The end
-------
The game ends the moment the board is full. The player whose dice occupy the
most cells wins; on the 5x5 board (25 cells) two players cannot tie. On an even
board (4x4, 6x6, 8x8) two players can finish level; that is a tie between them.

More than two players
---------------------
Three to six players may play. Seats follow the challenge order: Paren ``(n)``,
Angle ``<n>``, Square ``[n]``, Curly ``{n}``, Slash ``/n/``, Bar ``|n|``; turns
rotate in seat order over the players still in the game. When the board fills:

- if one player holds strictly the most cells, that player wins;
- otherwise (a tie for first) every player tied for last place is eliminated:
  their dice leave the board and play goes on among the rest, starting with the
  next remaining player after the one who filled the board. A player with no dice
  at all is last; eliminating only such players leaves the board full, so the
  rule applies again at once;
- if every remaining player is tied, nobody can be called last: the game ends as
  a tie among all of them (our ruling; the rule texts do not cover it).

So at 9-9-7 among three players, the seven dice of the last player leave the
board and the two leaders play on; at 6-6-5-4-4 among five, both players with
four are out and three play on.

The supply of dice
------------------
The rule sheet gives each player 24 dice. On 5x5 that supply can never run
out: when a player is to move at least one cell is empty and, after the first
move, the die the previous player just placed is on the board (a die is never
captured by its own placement), so the mover has at most 23 dice out. The
engine therefore does not track the supply. On larger boards it could bind;
our ruling is that every player has as many dice as the board has cells, so
the board, not the box, limits the game.

Position notation
-----------------
``<rows> <to-move>``: the rows from the top down, separated by ``/``; each cell is
``.`` when empty or a seat letter (``a`` for the first seat ... ``f`` for the
sixth) followed by the pips in decimal; then the letter of the seat to move. The
board size is the number of rows. ``a1.b2/.../a3.. b`` is a 3x3 position.
Unless the caller says otherwise, the seats still in play are the letters on the
board plus the seat to move.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

from pbm.facts import Fact
from pbm.games.base import DIE, BoardCell, Game, IllegalMove, InvalidPosition, MoveReport, Option, Result, one_of

SEAT_NAMES = ("Paren", "Angle", "Square", "Curly", "Slash", "Bar")
SEAT_LETTERS = "abcdef"
MARKS = (("(", ")"), ("<", ">"), ("[", "]"), ("{", "}"), ("/", "/"), ("|", "|"))
COLUMNS = "abcdefghi"

EMPTY = -1
"""The owner recorded for an empty cell in `State.owners`."""


class Die(NamedTuple):
    """A die on the board: who owns it and the pips it shows."""

    seat: int
    value: int


@dataclass(frozen=True, slots=True, repr=False)
class State:
    """A Cephalopod position; a value, never changed once made.

    Cells are numbered column by column: ``a1`` is 0, ``a2`` is 1, ..., so on
    5x5 ``b1`` is 5 and ``e5`` is 24. Iterating in that order gives the
    column-then-row order of the notation.
    """

    size: int
    """The board is ``size`` x ``size`` cells."""
    dice: int
    """Faces of the dice: 6, or 12 with ``-dice=12``; captures may add up to this."""
    players: int
    """How many seats the game started with."""
    in_play: tuple[int, ...]
    """The seats still in the game, in seat order (eliminated seats are left out)."""
    to_move: int
    """The seat whose turn it is (0-based)."""
    ply: int
    """How many moves have been played."""
    values: tuple[int, ...]
    """Pips per cell, 0 where the cell is empty."""
    owners: tuple[int, ...]
    """The seat owning each cell, `EMPTY` where the cell is empty."""

    @property
    def options(self) -> dict[str, int]:
        """The challenge options this game is played with, defaults included."""
        return {"size": self.size, "dice": self.dice}

    @property
    def board(self) -> tuple[Die | None, ...]:
        """The die on each cell in cell order, ``None`` where the cell is empty."""
        return tuple(
            Die(owner, value) if value else None for owner, value in zip(self.owners, self.values, strict=True)
        )

    def die_at(self, cell: str) -> Die | None:
        """The die on `cell` (``"c3"``), or ``None`` when the cell is empty."""
        index = _tables(self.size, self.dice).index_of(cell)
        if index is None:
            raise ValueError(f"{cell} is not on the board")
        if not self.values[index]:
            return None
        return Die(self.owners[index], self.values[index])

    def cells_held(self) -> dict[int, int]:
        """How many cells each seat still in play holds."""
        held = dict.fromkeys(self.in_play, 0)
        for owner in self.owners:
            if owner != EMPTY:
                held[owner] += 1
        return held

    def __repr__(self) -> str:
        return (
            f"State({_position(self)!r}, ply={self.ply}, players={self.players},"
            f" in_play={self.in_play}, dice={self.dice})"
        )


class _Tables:
    """Everything about one board size and die that does not depend on the position.

    Neighbours of each cell are listed in ascending cell order, so a subset of
    neighbours is a bit mask whose bits, read from the lowest, name the captured
    cells in canonical order. Capture sets depend only on the neighbours' pips,
    so they are computed once per tuple of pips and remembered; a cell's move
    strings are remembered per family of capture sets, which keeps the memory
    small (a few hundred families per cell) however many pip tuples occur.
    """

    def __init__(self, size: int, dice: int) -> None:
        self.size = size
        self.dice = dice
        self.cells = size * size
        self.names = tuple(f"{COLUMNS[i // size]}{i % size + 1}" for i in range(self.cells))
        self.index = {name: i for i, name in enumerate(self.names)}
        self.neighbours = tuple(self._neighbours_of(i) for i in range(self.cells))
        # Every cell has at least two neighbours, so each getter returns a tuple.
        self.neighbour_values: tuple[Callable[[tuple[int, ...] | list[int]], tuple[int, ...]], ...] = tuple(
            operator.itemgetter(*nb) for nb in self.neighbours
        )
        self.captured = tuple(
            tuple(tuple(nb[bit] for bit in range(len(nb)) if mask >> bit & 1) for mask in range(1 << len(nb)))
            for nb in self.neighbours
        )
        self.texts = tuple(tuple(self._text(i, captured) for captured in self.captured[i]) for i in range(self.cells))
        self.decode: dict[str, tuple[int, int]] = {}
        for i, texts in enumerate(self.texts):
            for mask, text in enumerate(texts):
                if mask == 0 or mask & (mask - 1):  # no capture, or two dice and more
                    self.decode[text] = (i, mask)
        self._masks: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._moves: tuple[dict[tuple[int, ...], tuple[str, ...]], ...] = tuple({} for _ in range(self.cells))
        """Per cell: the move strings for each tuple of capture masks."""
        self.counts: dict[tuple[int, ...], int] = {}

    def _neighbours_of(self, i: int) -> tuple[int, ...]:
        column, row = divmod(i, self.size)
        found = []
        if column > 0:
            found.append(i - self.size)
        if row > 0:
            found.append(i - 1)
        if row < self.size - 1:
            found.append(i + 1)
        if column < self.size - 1:
            found.append(i + self.size)
        return tuple(found)

    def _text(self, i: int, captured: tuple[int, ...]) -> str:
        if not captured:
            return self.names[i]
        return self.names[i] + "=" + "+".join(self.names[j] for j in captured)

    def index_of(self, name: str) -> int | None:
        return self.index.get(name.lower())

    def masks(self, pips: tuple[int, ...]) -> tuple[int, ...]:
        """The capture sets for neighbours showing `pips` (0 = empty), as bit masks.

        Ordered by the number of dice taken, then by the captured cells.
        """
        known = self._masks.get(pips)
        if known is None:
            found = []
            for taken in range(2, len(pips) + 1):
                for bits in itertools.combinations(range(len(pips)), taken):
                    chosen = [pips[bit] for bit in bits]
                    if all(chosen) and sum(chosen) <= self.dice:
                        found.append(sum(1 << bit for bit in bits))
            known = self._masks[pips] = tuple(found)
            self.counts[pips] = max(1, len(found))
        return known

    def moves_at(self, i: int, values: tuple[int, ...] | list[int]) -> tuple[str, ...]:
        """The canonical moves on the empty cell `i`."""
        pips = self.neighbour_values[i](values)
        masks = self._masks.get(pips)
        if masks is None:
            masks = self.masks(pips)
        known = self._moves[i].get(masks)
        if known is None:
            texts = self.texts[i]
            known = self._moves[i][masks] = tuple(texts[m] for m in masks) if masks else (texts[0],)
        return known

    def count(self, pips: tuple[int, ...]) -> int:
        self.masks(pips)
        return self.counts[pips]


@functools.cache
def _tables(size: int, dice: int) -> _Tables:
    return _Tables(size, dice)


def _next_seat(in_play: tuple[int, ...], seat: int) -> int:
    """The seat in play that moves after `seat` (which may just have left play)."""
    for candidate in in_play:
        if candidate > seat:
            return candidate
    return in_play[0]


def _eliminations(held: Mapping[int, int]) -> list[tuple[int, tuple[int, ...]]]:
    """The multi-player tie rule on a full board where each seat in play holds `held` cells.

    Returns the rounds of eliminations, each as the fewest cells held and the
    seats holding them, who go out; none when one player leads alone (the
    winner) or everybody is level (a tie). A round that takes dice off the board ends
    the rule, as the board is no longer full; only a round of players with no
    dice leaves it full, and then the rule applies again to those left. So
    there are at most two rounds, and a second one follows a round at 0.
    """
    rounds: list[tuple[int, tuple[int, ...]]] = []
    left = dict(held)
    while True:
        most, fewest = max(left.values()), min(left.values())
        if list(left.values()).count(most) == 1 or most == fewest:
            return rounds
        out = tuple(seat for seat, count in left.items() if count == fewest)
        rounds.append((fewest, out))
        if fewest:
            return rounds
        for seat in out:
            del left[seat]


def _settle(values: list[int], owners: list[int], in_play: tuple[int, ...]) -> tuple[int, ...]:
    """Apply the multi-player tie rule to a full board; returns the seats left in play.

    Eliminated players' dice are removed from `values` and `owners` in place.
    """
    if 0 in values:
        return in_play
    held = dict.fromkeys(in_play, 0)
    for owner in owners:
        held[owner] += 1
    out = {seat for _, seats in _eliminations(held) for seat in seats}
    for i, owner in enumerate(owners):
        if owner in out:
            values[i] = 0
            owners[i] = EMPTY
    return tuple(seat for seat in in_play if seat not in out)


def _why_out(rounds: list[tuple[int, tuple[int, ...]]]) -> Fact:
    """Why the seats of `rounds` are out, as a fact whose words follow their names."""
    if len(rounds) == 2:
        (_, first), (fewest, second) = rounds
        return Fact(
            "cephalopod-out-in-two-rounds",
            first=Fact("cephalopod-the-players", count=len(first)),
            second=Fact("cephalopod-the-players", count=len(second)),
            fewest=Fact("cephalopod-each", count=len(second), fewest=fewest),
        )
    ((fewest, seats),) = rounds
    if not fewest:
        return Fact("cephalopod-out-holding-none", count=len(seats))
    if len(seats) == 1:
        return Fact("cephalopod-out-holding-fewest", fewest=fewest)
    return Fact("cephalopod-out-tied-for-fewest", fewest=fewest)


def _pips(value: int) -> Fact:
    """A die by its pips with its article: ``a 1``; of the numbers a die can show,
    only eight and eleven take "an" (a code of their own, as another language may differ)."""
    return Fact("cephalopod-die-showing-an" if value in (8, 11) else "cephalopod-die-showing", pips=value)


def _position(state: State) -> str:
    size = state.size
    rows = []
    for row in reversed(range(size)):
        cells = []
        for column in range(size):
            i = column * size + row
            value = state.values[i]
            cells.append(f"{SEAT_LETTERS[state.owners[i]]}{value}" if value else ".")
        rows.append("".join(cells))
    return "/".join(rows) + " " + SEAT_LETTERS[state.to_move]


_MOVE = re.compile(r"(?P<cell>[a-z]\d+)(?:=(?P<rest>.*))?", re.DOTALL)
_CELL = re.compile(r"[a-z]\d+")
_POSITION_CELL = re.compile(r"\.|[a-z]\d*|.")


HELP = """\
Cephalopod, a game by Mark Steere
=================================

Cephalopod is played on a 5x5 board that starts empty. Each turn a player
places one die of their own on an empty cell; dice never move and nobody
may pass. When the board is full, whoever holds the most cells wins.

Placing and capturing
    Look at the dice orthogonally next to the chosen cell. Any two or
    more of them whose pips add up to 6 or less can be captured: they
    are taken off the board (back to their owners, whoever owns them)
    and the new die shows their sum. If such a group exists at the cell,
    a capture there is compulsory, but you choose which group. If none
    exists, the new die shows a 1. You are always free to pick a cell
    where no capture is possible instead.

Writing moves
    c3          place on c3 (a capture if exactly one is possible there)
    c3=b3+c2    place on c3, capturing the dice on b3 and c2
    c3=4        the capture at c3 that makes a 4, when only one does
    Columns are letters from a (left), rows numbers from 1 (bottom).

The board
    Paren's dice print as (n), Angle's as <n>; with more players also
    [n] Square, {n} Curly, /n/ Slash and |n| Bar. The first player named
    in the challenge is Paren and moves first.

Three to six players
    Turns go round in the order of the challenge. When the board is full
    and one player holds the most cells, that player wins. If several
    tie for the most, everyone tied for the fewest is out: their dice
    leave the board and play goes on with the next player still in. If
    everyone left is tied, the game is a tie between them all.
"""
"""The rules in a player's words: what ``cephalopod help`` mails and the rules page shows."""


class Cephalopod(Game[State]):
    """The rules of Cephalopod; see the module documentation for the game itself."""

    name: ClassVar[str] = "cephalopod"
    title: ClassVar[str] = "Cephalopod"
    designer: ClassVar[str] = "Mark Steere"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    seat_names: ClassVar[tuple[str, ...]] = SEAT_NAMES
    tally_unit: ClassVar[str] = "cell"
    help_text: ClassVar[str] = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option("size", "play on an N x N board instead of 5 x 5", choices=tuple(range(3, 10)), default=5),
        Option("dice", "twelve-sided dice: captures may add up to 12", choices=(6, 12), default=6),
    )

    # -- positions -------------------------------------------------------------

    def new(self, players: int = 2, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> State:
        """The empty board; Paren (seat 0) to move. Cephalopod has no chance: `seed` is unused.

        >>> GAME.new(players=3, options={"size": 3})
        State('.../.../... a', ply=0, players=3, in_play=(0, 1, 2), dice=6)
        """
        self.check_players(players)
        checked = self.check_options(options)
        size = self.option_value(checked, "size")
        dice = self.option_value(checked, "dice")
        cells = size * size
        return State(
            size=size,
            dice=dice,
            players=players,
            in_play=tuple(range(players)),
            to_move=0,
            ply=0,
            values=(0,) * cells,
            owners=(EMPTY,) * cells,
        )

    def from_position(
        self,
        position: str,
        options: Mapping[str, Any] | None = None,
        *,
        players: int | None = None,
        seats: Iterable[int] | None = None,
        ply: int = 0,
    ) -> State:
        """Read the position notation (see the module documentation).

        `players` is the number of seats the game started with (by default the
        highest seat letter seen, and at least 2); `seats` are the seats still in
        play (by default the letters on the board plus the seat to move); `ply`
        is the number of moves played before it, which the notation does not
        record (0 unless given).

        >>> GAME.from_position("a1.b2/.../a3.. b", players=3, seats=[0, 1, 2])
        State('a1.b2/.../a3.. b', ply=0, players=3, in_play=(0, 1, 2), dice=6)
        >>> GAME.from_position("a1.b2/.../a3. b")
        Traceback (most recent call last):
        ...
        pbm.games.base.InvalidPosition: row 1 has 2 cells, but the board has 3 rows and so 3 columns
        """
        checked = self.check_options(options)
        parts = position.split()
        if len(parts) != 2:
            raise InvalidPosition("cephalopod-not-a-position", position=position)
        rows, mover = parts
        lines = rows.split("/")
        size = len(lines)
        if not 3 <= size <= 9:
            raise InvalidPosition("cephalopod-rows-out-of-range", rows=size)
        if checked.get("size", size) != size:
            raise InvalidPosition("cephalopod-rows-not-size", rows=size, size=checked["size"])
        dice = self.option_value(checked, "dice")
        cells = size * size
        values = [0] * cells
        owners = [EMPTY] * cells
        for number, line in zip(range(size, 0, -1), lines, strict=True):
            tokens = _POSITION_CELL.findall(line)
            if len(tokens) != size:
                raise InvalidPosition("cephalopod-row-length", row=number, cells=len(tokens), size=size)
            for column, token in enumerate(tokens):
                if token == ".":
                    continue
                cell = f"{COLUMNS[column]}{number}"
                if token[0] not in SEAT_LETTERS or not token[1:].isdecimal():
                    raise InvalidPosition("cephalopod-not-a-cell", token=token, cell=cell)
                value = int(token[1:])
                if not 1 <= value <= dice:
                    raise InvalidPosition("cephalopod-pips-out-of-range", token=token, cell=cell, dice=dice)
                i = column * size + number - 1
                values[i] = value
                owners[i] = SEAT_LETTERS.index(token[0])
        if len(mover) != 1 or mover not in SEAT_LETTERS:
            raise InvalidPosition("cephalopod-not-a-seat-letter", mover=mover)
        to_move = SEAT_LETTERS.index(mover)
        present = set(owners) - {EMPTY}
        if seats is not None:
            seats = list(seats)
            if not all(isinstance(seat, int) and not isinstance(seat, bool) for seat in seats):
                raise InvalidPosition("cephalopod-seats-not-numbers", seats=repr(seats))
        if players is None:
            players = max(2, to_move + 1, *(seat + 1 for seat in present), *(seat + 1 for seat in seats or ()))
        elif isinstance(players, bool) or not isinstance(players, int):
            raise InvalidPosition("cephalopod-players-not-a-number", players=repr(players))
        if not self.min_players <= players <= self.max_players:
            raise InvalidPosition(
                "players-out-of-range", game=self.title, low=self.min_players, high=self.max_players, players=players
            )
        in_play = tuple(sorted(set(seats) if seats is not None else present | {to_move}))
        for seat in (*in_play, *present, to_move):
            if not 0 <= seat < players:
                raise InvalidPosition("cephalopod-no-such-seat", seat=seat, players=players)
        if len(in_play) < 2:
            if not in_play:
                raise InvalidPosition("cephalopod-nobody-in-play")
            raise InvalidPosition("cephalopod-too-few-in-play", seats=[SEAT_NAMES[seat] for seat in in_play])
        if to_move not in in_play:
            raise InvalidPosition("cephalopod-mover-not-in-play", seat=SEAT_NAMES[to_move])
        stray = sorted(present - set(in_play))
        if stray:
            raise InvalidPosition("cephalopod-dice-not-in-play", seats=[SEAT_NAMES[seat] for seat in stray])
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise InvalidPosition("cephalopod-bad-move-count", ply=repr(ply))
        if 0 not in values and _settle(values[:], owners[:], in_play) != in_play:
            raise InvalidPosition("cephalopod-full-board-tie")
        return State(size, dice, players, in_play, to_move, ply, tuple(values), tuple(owners))

    def to_position(self, state: State) -> str:
        """The position notation; the seats in play, players and ply are not part of it.

        >>> GAME.to_position(GAME.play(GAME.new(options={"size": 3}), "a1"))
        '.../.../a1.. b'
        """
        return _position(state)

    # -- moves -----------------------------------------------------------------

    def legal_moves(self, state: State) -> list[str]:
        """Every legal move in canonical notation: by cell (a1, a2, ..., b1, ...),
        then smaller capture sets first.

        >>> GAME.legal_moves(GAME.from_position("a1../.../b1.. a"))
        ['a2=a1+a3', 'b1', 'b2', 'b3', 'c1', 'c2', 'c3']
        """
        tables = _tables(state.size, state.dice)
        values = state.values
        moves: list[str] = []
        for i, value in enumerate(values):
            if not value:
                moves += tables.moves_at(i, values)
        return moves

    def moves_at(self, state: State, cell: str) -> list[str]:
        """The legal moves on one cell (none when it is occupied).

        >>> GAME.moves_at(GAME.from_position("a1../.../b1.. a"), "A2")
        ['a2=a1+a3']
        """
        tables = _tables(state.size, state.dice)
        i = tables.index_of(cell)
        if i is None:
            raise IllegalMove(self._off_board(tables, cell))
        if state.values[i]:
            return []
        return list(tables.moves_at(i, state.values))

    def parse_move(self, state: State, text: str) -> str:
        tables = _tables(state.size, state.dice)
        compact = "".join(text.split()).lower()
        if not compact:
            raise IllegalMove("cephalopod-no-move")
        match = _MOVE.fullmatch(compact)
        if match is None:
            raise IllegalMove("cephalopod-not-a-move", text=text.strip())
        name, rest = match.group("cell"), match.group("rest")
        i = tables.index_of(name)
        if i is None:
            raise IllegalMove(self._off_board(tables, name))
        if state.values[i]:
            raise IllegalMove("cephalopod-occupied", cell=name)
        moves = tables.moves_at(i, state.values)
        captures = [] if moves == (name,) else list(moves)
        options = ", ".join(moves)

        if rest is None:
            if len(moves) == 1:
                return moves[0]
            raise IllegalMove("cephalopod-capture-compulsory", cell=name, moves=options)

        if rest.isdecimal():
            total = int(rest)
            if not captures:
                if total == 1:
                    return name
                raise IllegalMove("cephalopod-nothing-to-capture", cell=name)
            making = [move for move in captures if self._sum(tables, state, move) == total]
            if len(making) == 1:
                return making[0]
            if not making:
                raise IllegalMove("cephalopod-no-capture-makes", cell=name, total=total, moves=options)
            raise IllegalMove("cephalopod-ambiguous-total", cell=name, total=total, choices=one_of(making))

        names = rest.split("+")
        if not all(_CELL.fullmatch(n) for n in names):
            raise IllegalMove("cephalopod-bad-capture", text=text.strip(), cell=name)
        indices = []
        for n in names:
            j = tables.index_of(n)
            if j is None:
                raise IllegalMove(self._off_board(tables, n))
            if j not in tables.neighbours[i]:
                raise IllegalMove("cephalopod-not-next-to", captured=n, cell=name, moves=options)
            if j in indices:
                raise IllegalMove("cephalopod-named-twice", captured=n, cell=name, moves=options)
            if not state.values[j]:
                raise IllegalMove("cephalopod-capture-empty", captured=n, cell=name, moves=options)
            indices.append(j)
        if len(indices) < 2:
            raise IllegalMove("cephalopod-capture-too-few", cell=name, moves=options)
        total = sum(state.values[j] for j in indices)
        if total > state.dice:
            listed = "+".join(tables.names[j] for j in sorted(indices))
            raise IllegalMove(
                "cephalopod-capture-too-much", captured=listed, total=total, dice=state.dice, cell=name, moves=options
            )
        neighbours = tables.neighbours[i]
        return tables.texts[i][sum(1 << neighbours.index(j) for j in indices)]

    def apply(self, state: State, move: str) -> State:
        """Play a move in canonical notation (as `parse_move` and `legal_moves` give it).

        The move is still checked, cheaply, so a corrupt record cannot produce an
        impossible position.
        """
        tables = _tables(state.size, state.dice)
        try:
            i, mask = tables.decode[move]
        except KeyError:
            raise IllegalMove("cephalopod-not-canonical", move=move) from None
        old = state.values
        if old[i]:
            raise IllegalMove("cephalopod-occupied", cell=tables.names[i])
        masks = tables.masks(tables.neighbour_values[i](old))
        if (mask not in masks) if mask else masks:
            raise IllegalMove(
                "cephalopod-not-legal-here", move=move, cell=tables.names[i], moves=", ".join(tables.moves_at(i, old))
            )
        values = list(old)
        owners = list(state.owners)
        total = 0
        for j in tables.captured[i][mask]:
            total += values[j]
            values[j] = 0
            owners[j] = EMPTY
        values[i] = total or 1
        owners[i] = state.to_move
        in_play = state.in_play
        if not mask and 0 not in values:
            in_play = _settle(values, owners, in_play)
        return State(
            state.size,
            state.dice,
            state.players,
            in_play,
            _next_seat(in_play, state.to_move),
            state.ply + 1,
            tuple(values),
            tuple(owners),
        )

    def result(self, state: State) -> Result | None:
        """``None`` until the board is full; then the leader, or everyone tied.

        The codes: ``most-cells`` (one leader on a full board), ``tie`` (everyone
        left tied), ``last-player`` (the others were eliminated or resigned). The
        fact's words follow the winners' names (see `Result.fact`):

        >>> GAME.result(GAME.from_position("a1a1b1/b1a1b1/a1b1a1 b"))
        Result(winners=[0], code='most-cells', fact=Fact('cephalopod-most-cells', held=5, cells=9))
        >>> tie = GAME.result(GAME.from_position("a1a1b1/b1c1c1/a1b1c1 c"))
        >>> tie.winners, tie.fact, tie.reason
        ([0, 1, 2], Fact('cephalopod-tie', held=3), 'tied, each holding 3 cells')
        """
        if len(state.in_play) == 1:
            return Result(list(state.in_play), "last-player", Fact("cephalopod-last-player"))
        if 0 in state.values:
            return None
        held = state.cells_held()
        most = max(held.values())
        leaders = [seat for seat, count in held.items() if count == most]
        if len(leaders) == 1:
            return Result(leaders, "most-cells", Fact("cephalopod-most-cells", held=most, cells=len(state.values)))
        return Result(leaders, "tie", Fact("cephalopod-tie", held=most))

    def undo(self, before: State, after: State) -> State:
        """The position before the move taken back; the undo counts as a ply.

        >>> before = GAME.new(players=2)
        >>> after = GAME.play(before, "c3")
        >>> undone = GAME.undo(before, after)
        >>> GAME.to_position(undone) == GAME.to_position(before), undone.ply
        (True, 2)
        """
        return replace(before, ply=after.ply + 1)

    def resign(self, state: State, seat: int) -> State | None:
        """With more than two players, a resigning player leaves as if eliminated.

        Their dice come off the board and the turns pass them by; the others
        play on, and when only one is left, that one wins. A two-player game
        simply ends (``None``: the opponent wins with the board as it stands).

        >>> three = GAME.from_position("a1b1c1/.../... a", players=3)
        >>> after = GAME.resign(three, 2)
        >>> GAME.to_position(after), after.in_play
        ('a1b1./.../... a', (0, 1))
        """
        if state.players == 2:
            return None
        if seat not in state.in_play:
            raise IllegalMove("cephalopod-seat-gone", seat=SEAT_NAMES[seat])
        owners = tuple(EMPTY if owner == seat else owner for owner in state.owners)
        values = tuple(0 if owner == seat else value for owner, value in zip(state.owners, state.values))
        in_play = tuple(s for s in state.in_play if s != seat)
        to_move = _next_seat(in_play, seat) if state.to_move == seat else state.to_move
        return State(state.size, state.dice, state.players, in_play, to_move, state.ply + 1, values, owners)

    # -- telling players what happened -------------------------------------------

    def report(self, before: State, notation: str, after: State) -> MoveReport:
        """What a move did: the dice it captured, or that it filled the board and who that put out.

        >>> before = GAME.from_position("...../...../.a1.a2./...../..... b")
        >>> from pbm.facts import english
        >>> from pbm.games.base import catalogue
        >>> report = GAME.report(before, "c3=b3+d3", GAME.apply(before, "c3=b3+d3"))
        >>> report.fact.code, report.fact["dice"], report.eliminated
        ('cephalopod-captured', [Fact('cephalopod-die-showing', pips=1), Fact('cephalopod-die-showing', pips=2)], ())
        >>> english(report.fact, catalogue())
        'played c3=b3+d3, capturing 2 dice (a 1 and a 2)'

        A placement that fills the board may eliminate players; `tally` then
        gives every seat's cells on the full board (here 9-9-7 among three):

        >>> before = GAME.from_position("a6a6a6a6a6/a6a6a6b6b6/b6b6b6b6b6/b6b6c6c6c6/c6c6c6c6. a")
        >>> report = GAME.report(before, "e1", GAME.apply(before, "e1"))
        >>> report.fact, report.eliminated, report.tally
        (Fact('cephalopod-filled', move='e1'), (2,), (9, 9, 7))
        >>> english(report.why, catalogue())
        'is out, holding the fewest cells (7) when the board filled up with a tie for first place'
        """
        tables = _tables(before.size, before.dice)
        try:
            i, mask = tables.decode[notation]
        except KeyError:
            raise IllegalMove("cephalopod-not-canonical", move=notation) from None
        captured = [before.values[j] for j in tables.captured[i][mask]]
        if captured:
            dice = [_pips(value) for value in captured]
            return MoveReport(Fact("cephalopod-captured", move=notation, count=len(captured), dice=dice))
        if before.values.count(0) != 1:
            return MoveReport(Fact("played", move=notation))
        text = Fact("cephalopod-filled", move=notation)
        full = before.cells_held()
        full[before.to_move] += 1
        eliminated = tuple(seat for seat in before.in_play if seat not in after.in_play)
        if not eliminated:
            return MoveReport(text)
        tally = tuple(full.get(seat, 0) for seat in range(before.players))
        return MoveReport(text, eliminated, _why_out(_eliminations(full)), tally)

    def seats_in_play(self, state: State) -> tuple[int, ...]:
        """The seats not eliminated (nor resigned from a game of three or more).

        >>> GAME.seats_in_play(GAME.from_position("a1b1./c1../... a", players=4, seats=[0, 1, 2]))
        (0, 1, 2)
        """
        return state.in_play

    def tally(self, state: State) -> tuple[int, ...]:
        """The cells each seat holds, every seat of the game in seat order (0 once out).

        The count that decides the game: the most cells win when the board fills.

        >>> GAME.tally(GAME.from_position("a1b1./c1../b2.. a", players=4))
        (1, 2, 1, 0)
        """
        held = state.cells_held()
        return tuple(held.get(seat, 0) for seat in range(state.players))

    # -- drawing ---------------------------------------------------------------

    def render(self, state: State, viewer: int | None = None) -> str:
        """The board as the mails show it: the top row first, labelled all round.

        Cephalopod hides nothing, so every viewer sees the same board. With
        ``-dice=12`` each cell is four characters wide so that ``(12)`` fits:

        >>> state = GAME.from_position("b12a3./.../a1.. b", {"dice": 12})
        >>> print(GAME.render(state))
             A    B    C
        3  <12> ( 3) ....  3
        2  .... .... ....  2
        1  ( 1) .... ....  1
             A    B    C
        """
        size = state.size
        width = 3 if state.dice < 10 else 4
        letters = COLUMNS[:size].upper()
        edge = " " * (3 + width // 2) + (" " * width).join(letters)
        lines = [edge]
        for row in reversed(range(size)):
            cells = []
            for column in range(size):
                i = column * size + row
                value = state.values[i]
                if value:
                    left, right = MARKS[state.owners[i]]
                    cells.append(f"{left}{value:>{width - 2}}{right}")
                else:
                    cells.append("." * width)
            lines.append(f"{row + 1}  {' '.join(cells)}  {row + 1}")
        lines.append(edge)
        return "\n".join(lines)

    def cells(self, state: State) -> list[BoardCell]:
        """The board cell by cell, top row first, as `render` draws it.

        >>> state = GAME.from_position("b2../.../a1.. a")
        >>> [(c.name, c.owner, c.value) for c in GAME.cells(state) if c.value]
        [('a3', 1, 2), ('a1', 0, 1)]
        >>> cell = GAME.cells(state)[0]
        >>> cell.x, cell.y, cell.column, cell.row, cell.name, cell.piece, cell.owner, cell.value, cell.sides
        (0, 2, 'A', '3', 'a3', 'die', 1, 2, 6)
        """
        size = state.size
        cells = []
        for row in reversed(range(size)):
            for column in range(size):
                i = column * size + row
                name = f"{COLUMNS[column]}{row + 1}"
                cell = BoardCell(column, row, COLUMNS[column].upper(), str(row + 1), name)
                if state.values[i]:
                    cell = replace(cell, piece=DIE, owner=state.owners[i], value=state.values[i], sides=state.dice)
                cells.append(cell)
        return cells

    # -- storage ---------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        """JSON-safe data from which `load` rebuilds `state` exactly.

        >>> GAME.dump(GAME.new(players=3, options={"size": 3}))
        {'position': '.../.../... a', 'players': 3, 'in_play': [0, 1, 2], 'ply': 0, 'options': {'size': 3, 'dice': 6}}
        """
        return {
            "position": _position(state),
            "players": state.players,
            "in_play": list(state.in_play),
            "ply": state.ply,
            "options": state.options,
        }

    def load(self, data: Mapping[str, Any], secret: bytes | None = None) -> State:
        try:
            position, players, in_play, ply, options = (
                data[key] for key in ("position", "players", "in_play", "ply", "options")
            )
        except (KeyError, TypeError):
            raise InvalidPosition("cephalopod-stored-data") from None
        return self.from_position(position, options, players=players, seats=in_play, ply=ply)

    # -- analysis --------------------------------------------------------------

    def perft(self, state: State, depth: int) -> int:
        """The number of move sequences of length `depth` from `state`.

        The same count as walking `legal_moves` and `apply`, made faster by
        placing and lifting dice in one mutable board and counting the moves of
        the last ply without listing them.

        >>> [GAME.perft(GAME.new(), depth) for depth in (1, 2, 3)]
        [25, 600, 13800]
        """
        if depth == 0:
            return 1
        if 0 not in state.values:
            return 0
        tables = _tables(state.size, state.dice)
        values = list(state.values)
        owners = list(state.owners)
        neighbour_values = tables.neighbour_values
        masks_of = tables.masks
        counts = tables.counts
        captured = tables.captured
        cells = range(tables.cells)
        following = {seat: _next_seat(state.in_play, seat) for seat in state.in_play}

        def count_moves() -> int:
            total = 0
            for i in cells:
                if not values[i]:
                    pips = neighbour_values[i](values)
                    total += counts.get(pips) or tables.count(pips)
            return total

        def walk(seat: int, empty: int, ply: int, depth: int) -> int:
            if depth == 1:
                return count_moves()
            total = 0
            for i in cells:
                if values[i]:
                    continue
                masks = masks_of(neighbour_values[i](values))
                if not masks:
                    if empty == 1:
                        # This die fills the board: the end-of-game rules take over.
                        before = State(
                            state.size,
                            state.dice,
                            state.players,
                            state.in_play,
                            seat,
                            ply,
                            tuple(values),
                            tuple(owners),
                        )
                        total += self.perft(self.apply(before, tables.texts[i][0]), depth - 1)
                        continue
                    values[i] = 1
                    owners[i] = seat
                    total += walk(following[seat], empty - 1, ply + 1, depth - 1)
                    values[i] = 0
                    owners[i] = EMPTY
                    continue
                for mask in masks:
                    taken = captured[i][mask]
                    saved = [(j, values[j], owners[j]) for j in taken]
                    pips = 0
                    for j in taken:
                        pips += values[j]
                        values[j] = 0
                        owners[j] = EMPTY
                    values[i] = pips
                    owners[i] = seat
                    total += walk(following[seat], empty - 1 + len(taken), ply + 1, depth - 1)
                    values[i] = 0
                    owners[i] = EMPTY
                    for j, value, owner in saved:
                        values[j] = value
                        owners[j] = owner
            return total

        return walk(state.to_move, values.count(0), state.ply, depth)

    # -- wording -----------------------------------------------------------------

    @staticmethod
    def _sum(tables: _Tables, state: State, move: str) -> int:
        i, mask = tables.decode[move]
        return sum(state.values[j] for j in tables.captured[i][mask])

    @staticmethod
    def _off_board(tables: _Tables, cell: str) -> Fact:
        return Fact("cephalopod-off-board", cell=cell.lower(), last=tables.names[-1])


GAME = Cephalopod()
