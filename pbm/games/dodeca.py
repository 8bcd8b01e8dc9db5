"""Dodeca: a chess-like battle of dice, where a die moves as far as the face it shows.

From the Warpspawn games pages; the server's rulings are in shared/rules/dodeca.md.

The board is 10x10, columns a-j, rows 1-10. Each side has 20 dice: 10 Tetras
(d4), 4 Cubes (d6), 4 Octos (d8) and 2 Dodecas (d10: ten faces despite the
name). South sets up on rows 1-2, North on rows 10-9; the Tetras fill the
second row, and the back row holds, from a to j, d6 d6 d8 d8 d10 d10 d8 d8 d6 d6.

Every die is rolled before it is placed, so no two games start alike. The
rolls are the server's and provably fair (see `pbm.games.fairdice`): the
game's rolls are numbered, and the 40 setup rolls are numbers 0-39, made for
the squares in this order: a1, b1, ... j1, a2 ... j2 (South), then a9 ... j9,
a10 ... j10 (North). Then each side rolls a d10 to see who moves first: roll 40
is South's, roll 41 North's, the higher starts, and a tie rolls again (rolls 42
and 43, and so on). Either side may start.

>>> game = Dodeca()
>>> state = game.new(seed=bytes(32))
>>> print(game.render(state))
     a     b     c     d     e     f     g     h     i     j
10 <C4>  <C4>  <O5>  <O6>  <D5>  <D10> <O6>  <O4>  <C1>  <C2>   10
 9 <T4>  <T1>  <T3>  <T3>  <T1>  <T4>  <T2>  <T3>  <T1>  <T3>    9
 8  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    8
 7  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    7
 6  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    6
 5  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    5
 4  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    4
 3  ...   ...   ...   ...   ...   ...   ...   ...   ...   ...    3
 2 (T4)  (T2)  (T3)  (T1)  (T1)  (T4)  (T2)  (T2)  (T4)  (T2)    2
 1 (C4)  (C2)  (O7)  (O4)  (D1)  (D4)  (O7)  (O2)  (C1)  (C6)    1
     a     b     c     d     e     f     g     h     i     j
T = Tetra d4, C = Cube d6, O = Octo d8, D = Dodeca d10
>>> game.seat_names[state.to_move]
'South'

Each square takes five characters, or six on a board where a Dodeca shows 10
(as North's on f10 does here), so that ``(D10)`` keeps a space from its
neighbour and the columns stay in line.

A turn is exactly one of two things.

1. **Move** one of your dice exactly as many squares as its face shows, in a
   straight line, never jumping over a die and never onto a friendly one:

   ======  ==============  ================
   die     moves           captures
   ======  ==============  ================
   Tetra   orthogonally    diagonally
   Cube    diagonally      orthogonally
   Octo    diagonally      diagonally
   Dodeca  orthogonally    orthogonally
   ======  ==============  ================

   A move ends on an empty square along a move direction, a capture on an
   enemy die along a capture direction; the captured die leaves the game.
   Then the die is turned one face up or down, as the mover chooses, staying
   on the die (a 1 becomes a 2, the top face goes down). Notation: from, to
   and the new face, ``c2-c5=2``, or ``c2xd3=4`` for a capture. On input ``-``
   and ``x`` mean the same, case does not matter, and ``=face`` may be left
   out when only one face is possible. The longest line on the board is 9
   squares, so a Dodeca showing 10 cannot move until it is rerolled.

2. **Reroll** one of your dice where it stands: ``roll c2``. The new face is a
   fair roll and may come up the same. You may not reroll on two of your turns
   in a row, unless none of your dice can move.

Whoever captures the second enemy Dodeca wins at once. A turn is always
possible (a reroll at worst), so there is no stalemate.

A position is written ``<rows> <to-move> <rerolled>``: the rows from 10 down
to 1 separated by ``/``, each cell ``.`` or seat letter (``a`` South, ``b``
North) + type letter (``t``, ``c``, ``o``, ``d``) + face; then whose turn it is
(``a`` or ``b``) and the seats whose last turn was a reroll (or ``-``). Here
South's Tetra on c2 shows 3 and North's Tetra on c3 stands in its way; North's
Octo on f5 is open to capture:

>>> empty = ".........."
>>> rows = [".........bd4", empty, empty, empty, empty, ".....bo2....",
...         empty, "..bt1.......", "..at3.......", "ad1........."]
>>> state = game.from_position("/".join(rows) + " a -", seed=bytes(32))
>>> game.legal_moves(state)
['a1-a2=2', 'a1-b1=2', 'c2-f2=2', 'c2-f2=4', 'c2xf5=2', 'c2xf5=4', 'roll a1', 'roll c2']
>>> game.play(state, "C2-c5")
Traceback (most recent call last):
...
pbm.games.base.IllegalMove: c5 is blocked by the die at c3
>>> try:
...     game.play(state, "c2-d3")
... except IllegalMove as refusal:
...     print(refusal)
a Tetra moves orthogonally and captures diagonally, so it cannot move diagonally to the empty square d3
>>> after = game.play(state, "c2-f5=4")
>>> game.to_position(after).split()[0].split("/")[5]
'.....at4....'
>>> after.to_move, after.ply
(1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from pbm.facts import Fact
from pbm.games.base import DIE, BoardCell, Game, IllegalMove, InvalidPosition, MoveReport, Result, one_of
from pbm.games.fairdice import (
    Roll,
    check_seed,
    commitment_note,
    new_seed,
    next_roll,
    reveal_notes,
    roll,
)

SIZE = 10
COLUMNS = "abcdefghij"
SEATS = ("South", "North")
SEAT_FACTS = (Fact("dodeca-south"), Fact("dodeca-north"))
"""The sides as a fact names them, so that each reader's language says them (Sud, Nord)."""
SEAT_LETTERS = "ab"

Direction = tuple[int, int]
ORTHOGONAL: tuple[Direction, ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL: tuple[Direction, ...] = ((1, 1), (1, -1), (-1, -1), (-1, 1))


@dataclass(frozen=True)
class Kind:
    """A type of die: its letter, name, number of faces and how it moves and captures."""

    letter: str
    name: str
    sides: int
    moves: tuple[Direction, ...]
    captures: tuple[Direction, ...]
    count: int
    """How many of them a set holds."""

    @property
    def rule(self) -> Fact:
        """The rule as a fact: ``a Tetra moves orthogonally and captures diagonally``."""
        die = Fact("dodeca-an-kind" if self.name[0] in "AEIOU" else "dodeca-a-kind", kind=self.name)
        if self.moves == self.captures:
            return Fact("dodeca-rule-one-way", die=die, way=_way(self.moves))
        return Fact("dodeca-rule", die=die, moves=_way(self.moves), captures=_way(self.captures))

    def __repr__(self) -> str:
        return self.name.upper()

    def __reduce__(self) -> tuple[Callable[[str], Kind], tuple[str]]:
        # The rules tell kinds apart by identity (``die.kind is DODECA``): a pickled die (the bots'
        # process receives positions so) must come back holding the one kind of its letter, not a copy.
        return _kind_of_letter, (self.letter,)


def _kind_of_letter(letter: str) -> Kind:
    return KINDS[letter]


def _way(directions: tuple[Direction, ...]) -> Fact:
    return Fact("dodeca-orthogonally" if directions == ORTHOGONAL else "dodeca-diagonally")


TETRA = Kind("t", "Tetra", 4, ORTHOGONAL, DIAGONAL, 10)
CUBE = Kind("c", "Cube", 6, DIAGONAL, ORTHOGONAL, 4)
OCTO = Kind("o", "Octo", 8, DIAGONAL, DIAGONAL, 4)
DODECA = Kind("d", "Dodeca", 10, ORTHOGONAL, ORTHOGONAL, 2)
KINDS = {kind.letter: kind for kind in (TETRA, CUBE, OCTO, DODECA)}

BACK_ROW = (CUBE, CUBE, OCTO, OCTO, DODECA, DODECA, OCTO, OCTO, CUBE, CUBE)
SETUP = ((0, BACK_ROW), (1, (TETRA,) * SIZE), (8, (TETRA,) * SIZE), (9, BACK_ROW))
"""(row index, dice from column a to j) in the order the setup rolls are made."""
OPENING_ROLLS = 42
"""Rolls a new game makes before its first move: the 40 of the setup and the first roll-off.
(A game set up from a position has none; its first 42 rolls are then simply its first.)"""


class Die(NamedTuple):
    """A die on the board: its owner's seat, its kind and the face it shows."""

    seat: int
    kind: Kind
    face: int


Board = tuple[Die | None, ...]
"""100 squares, a1 first, then b1 ... j1, a2 ...: square index = 10 * (row - 1) + column."""


def square_name(square: int) -> str:
    """The name of a square index.

    >>> square_name(0), square_name(11), square_name(99)
    ('a1', 'b2', 'j10')
    """
    return f"{COLUMNS[square % SIZE]}{square // SIZE + 1}"


def _square(text: str) -> int:
    match = re.fullmatch(r"([a-z])(\d+)", text)
    if match is None:
        raise IllegalMove("dodeca-not-a-square", text=text)
    column, row = COLUMNS.find(match.group(1)), int(match.group(2))
    if column < 0 or not 1 <= row <= SIZE:
        raise IllegalMove("dodeca-off-board", text=text)
    return (row - 1) * SIZE + column


@dataclass(frozen=True)
class State:
    """A Dodeca position with the game's dice: treat it as a value, `Dodeca.play` makes new ones.

    `rerolled[seat]` says whether that seat's last turn was a reroll; `rolls`
    is every roll of the game so far, so each move's rolled face is known.
    `seed` is the game's secret dice seed: it is left out of the repr and of
    everything a player sees until the game is over.
    """

    board: Board
    to_move: int
    ply: int
    rerolled: tuple[bool, bool]
    rolls: tuple[Roll, ...]
    seed: bytes = field(repr=False)

    @property
    def next_roll(self) -> int:
        """The number the game's next roll will have."""
        return len(self.rolls)

    def die_at(self, square: str) -> Die | None:
        """The die on a square given by name (``"c2"``), or ``None``."""
        return self.board[_square(square.lower())]

    def __repr__(self) -> str:
        return f"State({GAME.to_position(self)!r}, ply={self.ply}, rolls={len(self.rolls)})"


@dataclass(frozen=True)
class _Action:
    """A checked turn: a move or capture (`target` set) or a reroll (`target` None)."""

    origin: int
    target: int | None = None
    face: int | None = None
    capture: bool = False

    @property
    def notation(self) -> str:
        if self.target is None:
            return f"roll {square_name(self.origin)}"
        sign = "x" if self.capture else "-"
        return f"{square_name(self.origin)}{sign}{square_name(self.target)}={self.face}"


_MOVE = re.compile(r"(?P<origin>\S+?)\s*[-x]\s*(?P<target>[a-z]\d*)\s*(?:=\s*(?P<face>\S+))?")
_ROLL = re.compile(r"(?:re)?roll(?:\s+(?P<square>\S+))?")


HELP = """\
Dodeca, from the Warpspawn games pages
======================================

A chess-like game on a 10x10 board where the pieces are dice. Each side has
ten Tetras (d4), four Cubes (d6), four Octos (d8) and two Dodecas (d10).
South sets up on rows 1-2 and North on rows 9-10: the Tetras on the second
row, and on the back row from column a to j: Cube, Cube, Octo, Octo,
Dodeca, Dodeca, Octo, Octo, Cube, Cube. Every die is rolled as it is set
up, and a d10 each decides who starts (ties roll again).

A turn is one of
    Move    one of your dice exactly as many squares as it shows, in a
            straight line, over empty squares only:
                Tetra   moves orthogonally, captures diagonally
                Cube    moves diagonally,   captures orthogonally
                Octo    moves and captures diagonally
                Dodeca  moves and captures orthogonally
            A capture ends on an enemy die, which leaves the game. After
            moving or capturing, turn the die one face up or down, as you
            choose (a 1 must become 2; the top face must go down).
    Reroll  one of your dice where it stands. You may not reroll on two
            turns in a row unless none of your dice can move.

Winning
    Capture both enemy Dodecas.

Writing moves
    c2-c6=3     move c2 to c6 and turn it to 3
    c2xd3=5     capture on d3 and turn to 5 (- and x are interchangeable)
    roll c2     reroll the die on c2
    "=face" may be left out when only one new face is possible.

Fair dice
    The server rolls every die. Before the first move each game publishes
    a commitment: the SHA-256 of its secret seed. When the game ends the
    seed is revealed; roll number i is HMAC-SHA256(seed, "roll:i") mapped
    onto the die without bias, so anyone can recompute every roll of the
    game (pbm verify-dice, or a few lines of Python).

Taking a move back
    When both players agree to take a move back (undo), the dice return to
    where they stood, but a roll is never taken back: the next roll is the
    next one of the game, so a reroll cannot be undone to roll again. The
    undone move stays in the record, and the record still checks out.
"""
"""The rules in a player's words: what ``dodeca help`` mails and the rules page shows."""


class Dodeca(Game[State]):
    """The rules of Dodeca; `GAME` is the instance the registry serves."""

    name = "dodeca"
    title = "Dodeca"
    designer = "Warpspawn"
    attribution = "Dodeca, from the Warpspawn games pages"  # the rule text names its source, not a person
    attribution_fact = Fact("dodeca-attribution", game="Dodeca", source="Warpspawn")
    min_players = 2
    max_players = 2
    seat_names = SEATS
    help_text = HELP
    notes_heading = "Fair dice"
    options = ()

    # -- starting a game ---------------------------------------------------------

    def new(self, players: int = 2, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> State:
        """A new game: 40 setup rolls, then the roll-off for who starts (see the module docs)."""
        self.check_players(players)
        self.check_options(options)
        seed = new_seed() if seed is None else check_seed(seed)
        board: list[Die | None] = [None] * (SIZE * SIZE)
        log: list[Roll] = []
        for row, kinds in SETUP:
            seat = 0 if row < SIZE // 2 else 1
            for column, kind in enumerate(kinds):
                square = row * SIZE + column
                what = f"setup {square_name(square)}: {SEATS[seat]} {kind.name}"
                log.append(next_roll(seed, log, kind.sides, 0, what))
                board[square] = Die(seat, kind, log[-1].face)
        while True:
            log.append(next_roll(seed, log, DODECA.sides, 0, "roll-off: South's d10"))
            log.append(next_roll(seed, log, DODECA.sides, 0, "roll-off: North's d10"))
            south, north = log[-2].face, log[-1].face
            if south != north:
                break
        first = 0 if south > north else 1
        return State(tuple(board), first, 0, (False, False), tuple(log), seed)

    def from_position(
        self, position: str, options: Mapping[str, Any] | None = None, seed: bytes | None = None
    ) -> State:
        """The state a position string describes; its rolls come from `seed` (or a fresh one).

        A position knows nothing of the game's past, so the state starts at ply
        0 with an empty roll log: its first reroll is roll number 0 of `seed`.
        """
        self.check_options(options)
        seed = new_seed() if seed is None else check_seed(seed)
        parts = position.split()
        if len(parts) != 3:
            raise InvalidPosition("dodeca-not-a-position", position=position)
        rows, to_move, rerolled = parts
        board = _parse_rows(rows)
        if to_move not in SEAT_LETTERS:
            raise InvalidPosition("dodeca-not-a-side", side=to_move)
        if rerolled != "-" and (set(rerolled) - set(SEAT_LETTERS) or len(set(rerolled)) != len(rerolled)):
            raise InvalidPosition("dodeca-not-rerolled-seats", rerolled=rerolled)
        flags = (SEAT_LETTERS[0] in rerolled, SEAT_LETTERS[1] in rerolled)
        return State(board, SEAT_LETTERS.index(to_move), 0, flags, (), seed)

    def to_position(self, state: State) -> str:
        """The position notation of `state` (no seed, no history)."""
        rows = []
        for row in reversed(range(SIZE)):
            cells = state.board[row * SIZE : (row + 1) * SIZE]
            rows.append("".join("." if d is None else f"{SEAT_LETTERS[d.seat]}{d.kind.letter}{d.face}" for d in cells))
        rerolled = "".join(letter for letter, flag in zip(SEAT_LETTERS, state.rerolled) if flag) or "-"
        return f"{'/'.join(rows)} {SEAT_LETTERS[state.to_move]} {rerolled}"

    # -- the rules -----------------------------------------------------------------

    def legal_moves(self, state: State) -> list[str]:
        """Every legal turn: moves and captures of the dice from a1 on, then the rerolls allowed."""
        if self.result(state) is not None:
            return []
        moves = [action.notation for action in _moves(state)]
        if not moves or not state.rerolled[state.to_move]:
            moves.extend(f"roll {square_name(square)}" for square in _own_squares(state))
        return moves

    def parse_move(self, state: State, text: str) -> str:
        """The canonical form of the turn `text` means, or `IllegalMove` saying what is wrong.

        >>> game = Dodeca()
        >>> state = game.new(seed=bytes(32))   # South to move
        >>> game.parse_move(state, "A2 x A6")  # the Tetra shows 4; its only new face is 3
        'a2-a6=3'
        """
        return self._interpret(state, text).notation

    def apply(self, state: State, move: str) -> State:
        """Play a turn given exactly in canonical notation (as `parse_move` returns it)."""
        action = self._interpret(state, move)
        if action.notation != move:
            raise IllegalMove("dodeca-not-canonical", move=move, canonical=action.notation)
        board = list(state.board)
        die = board[action.origin]
        assert die is not None
        seat = state.to_move
        rolls = state.rolls
        if action.target is None:
            what = f"move {state.ply + 1}: {action.notation} ({SEATS[seat]} {die.kind.name})"
            rolled = next_roll(state.seed, rolls, die.kind.sides, state.ply + 1, what)
            board[action.origin] = die._replace(face=rolled.face)
            rolls = rolls + (rolled,)
        else:
            assert action.face is not None
            board[action.origin] = None
            board[action.target] = die._replace(face=action.face)
        rerolled = list(state.rerolled)
        rerolled[seat] = action.target is None
        return State(tuple(board), 1 - seat, state.ply + 1, (rerolled[0], rerolled[1]), rolls, state.seed)

    def undo(self, before: State, after: State) -> State:
        """The position before the move taken back, with every roll made since kept.

        A roll is never taken back: the next roll of the game is the next
        number of the fair-dice record whatever was undone, so the record stays
        verifiable and a player cannot undo a reroll to roll again for a better
        face. The undo counts as a ply.
        """
        return replace(before, ply=after.ply + 1, rolls=after.rolls)

    def result(self, state: State) -> Result | None:
        """The winner once a side has no Dodeca left (code ``dodecas-captured``), else ``None``."""
        has_dodeca = [False, False]
        for die in state.board:
            if die is not None and die.kind is DODECA:
                has_dodeca[die.seat] = True
        for loser in (0, 1):
            if not has_dodeca[loser]:
                return Result([1 - loser], "dodecas-captured", Fact("dodeca-dodecas-captured"))
        return None

    def report(self, before: State, notation: str, after: State) -> MoveReport:
        """What a turn did: which die moved or captured what and the face it shows, or what a reroll rolled.

        >>> state = GAME.from_position(
        ...     ".........bd4/" + "........../" * 7 + "..at3......./ad1......... a -", seed=bytes(32)
        ... )
        >>> GAME.report(state, "c2-c5=2", GAME.apply(state, "c2-c5=2")).fact
        Fact('dodeca-moved', move='c2-c5=2', kind='Tetra', square='c5', face=2)
        >>> GAME.report(state, "roll c2", GAME.apply(state, "roll c2")).fact
        Fact('dodeca-rolled', move='roll c2', kind='Tetra', face=4, before=3)
        """
        action = self._interpret(before, notation)
        if action.notation != notation:
            raise IllegalMove("dodeca-not-canonical", move=notation, canonical=action.notation)
        die = before.board[action.origin]
        assert die is not None
        if action.target is None:
            rolled = after.board[action.origin]
            assert rolled is not None
            if rolled.face == die.face:
                return MoveReport(Fact("dodeca-rolled-again", move=notation, kind=die.kind.name, face=rolled.face))
            return MoveReport(
                Fact("dodeca-rolled", move=notation, kind=die.kind.name, face=rolled.face, before=die.face)
            )
        square = square_name(action.target)
        if not action.capture:
            return MoveReport(Fact("dodeca-moved", move=notation, kind=die.kind.name, square=square, face=action.face))
        taken = before.board[action.target]
        assert taken is not None
        captured = {"move": notation, "kind": die.kind.name, "taken": taken.kind.name, "square": square}
        if taken.kind is not DODECA:
            return MoveReport(Fact("dodeca-captured", **captured, face=action.face))
        # A side has two Dodecas: say whether the other one is still on the board.
        left = any(d is not None and d.seat == taken.seat and d.kind is DODECA for d in after.board)
        code = "dodeca-captured-one-dodeca-left" if left else "dodeca-captured-no-dodeca-left"
        return MoveReport(Fact(code, **captured, face=action.face))

    def _interpret(self, state: State, text: str) -> _Action:
        if self.result(state) is not None:
            raise IllegalMove("game-over")
        words = " ".join(text.lower().split())
        if match := _ROLL.fullmatch(words):
            if match.group("square") is None:
                raise IllegalMove("dodeca-reroll-which")
            return _check_roll(state, _square(match.group("square")))
        if match := _MOVE.fullmatch(words):
            return _check_move(state, match.group("origin"), match.group("target"), match.group("face"))
        raise IllegalMove("dodeca-not-a-move", text=text.strip())

    # -- drawing and notes ---------------------------------------------------------

    def render(self, state: State, viewer: int | None = None) -> str:
        """The board, row 10 first, labelled on all four sides, with the key below.

        Everything on a Dodeca board is public, so every reader (`viewer`)
        sees the same board.
        """
        # A die showing 10 fills five characters, so such boards get a sixth as the gap.
        width = 6 if any(die is not None and die.face >= 10 for die in state.board) else 5
        letters = "   " + "".join(f"  {column}".ljust(width) for column in COLUMNS)
        lines = [letters.rstrip()]
        for row in reversed(range(SIZE)):
            cells = "".join(_cell(state.board[row * SIZE + column]).ljust(width) for column in range(SIZE))
            lines.append(f"{row + 1:>2} {cells} {row + 1:>2}")
        lines.append(letters.rstrip())
        lines.append("T = Tetra d4, C = Cube d6, O = Octo d8, D = Dodeca d10")
        return "\n".join(lines)

    def cells(self, state: State) -> list[BoardCell]:
        """The 100 squares, row 10 first, each with its die's kind, sides and face.

        >>> cells = Dodeca().cells(Dodeca().new(seed=bytes(32)))
        >>> cell = cells[0]
        >>> cell.name, cell.piece, cell.kind, cell.owner, cell.value, cell.sides
        ('a10', 'die', 'Cube', 1, 4, 6)
        >>> sum(cell.owner is None for cell in cells)
        60
        """
        cells = []
        for row in reversed(range(SIZE)):
            for column in range(SIZE):
                square = row * SIZE + column
                cell = BoardCell(column, row, COLUMNS[column], str(row + 1), square_name(square))
                die = state.board[square]
                if die is not None:
                    cell = replace(
                        cell, piece=DIE, owner=die.seat, value=die.face, sides=die.kind.sides, kind=die.kind.name
                    )
                cells.append(cell)
        return cells

    def published_rolls(self, state: State) -> tuple[Roll, ...]:
        """Every roll of the game so far, in roll order: the dice record `pbm verify-dice` checks."""
        return state.rolls

    def public_facts(self, state: State, *, game_over: bool = False) -> list[Fact]:
        """The dice commitment, who won the roll-off (first board), a reroll reminder; the seed at the end."""
        notes = [commitment_note(state.seed)]
        rolloff = [r.face for r in state.rolls if r.what.startswith("roll-off")]
        if state.ply == 0 and rolloff:
            pairs: Fact | None = None
            # Each pair of rolls after the one before ("South 3, North 3; South 5, North 2"): a tie rolls again.
            for south, north in reversed(list(zip(rolloff[::2], rolloff[1::2]))):
                pair = Fact("dodeca-roll-off-pair", south=south, north=north)
                pairs = pair if pairs is None else Fact("dodeca-roll-off-then", first=pair, then=pairs)
            notes.append(Fact("dodeca-who-starts", pairs=pairs, seat=SEAT_FACTS[state.to_move]))
        if game_over or self.result(state) is not None:
            notes.extend(reveal_notes(state.seed))
        elif state.rerolled[state.to_move]:
            notes.append(Fact("dodeca-may-reroll-only-if-stuck", seat=SEAT_FACTS[state.to_move]))
        return notes

    # -- storage -------------------------------------------------------------------

    def secret_of(self, state: State) -> bytes:
        """The dice seed: the store keeps it apart and shows it only once the game is over."""
        return state.seed

    def with_stand_in_secret(self, state: State) -> State:
        """`state` rolling its next dice from a fresh seed: rolls made so far stay as they were.

        >>> game = Dodeca()
        >>> real = game.new(seed=bytes(32))
        >>> what_if = game.with_stand_in_secret(real)
        >>> what_if.seed != real.seed and what_if.rolls == real.rolls
        True
        """
        return replace(state, seed=new_seed())

    def dump(self, state: State) -> dict[str, Any]:
        """The state as JSON-safe data, without the seed (`secret_of`)."""
        return {
            "position": self.to_position(state),
            "ply": state.ply,
            "rolls": [{"sides": r.sides, "face": r.face, "move": r.move, "what": r.what} for r in state.rolls],
        }

    def load(self, data: Mapping[str, Any], secret: bytes | None = None) -> State:
        """The state `dump` described; `secret` is the seed, and every stored roll must match it."""
        state = self._stored(data, secret)
        self._check_rolls(state.rolls, state.seed)
        return state

    def resume(self, data: Mapping[str, Any], secret: bytes | None = None) -> State:
        """`load` for a game this server stored, checking the opening rolls (the setup and the
        roll-off) and the newest against the seed rather than every roll: as sure a guard
        against a wrong seed, at the same cost at move 300 as at move 3. The full check is
        `load`'s, and the players' own once the seed is published."""
        state = self._stored(data, secret)
        rolls = state.rolls
        self._check_rolls(rolls[:OPENING_ROLLS] + rolls[OPENING_ROLLS:][-1:], state.seed)
        return state

    def _stored(self, data: Mapping[str, Any], secret: bytes | None) -> State:
        if secret is None:
            raise ValueError("a Dodeca game cannot be loaded without its dice seed (what secret_of returned)")
        state = self.from_position(data["position"], seed=secret)
        rolls = tuple(
            Roll(index, int(r["sides"]), int(r["face"]), int(r["move"]), str(r["what"]))
            for index, r in enumerate(data["rolls"])
        )
        return replace(state, ply=int(data["ply"]), rolls=rolls)

    @staticmethod
    def _check_rolls(rolls: tuple[Roll, ...], seed: bytes) -> None:
        for r in rolls:
            if roll(seed, r.index, r.sides) != r.face:
                raise ValueError(f"stored roll {r.index} ({r.what}) does not match the seed: wrong seed for this game?")


GAME = Dodeca()


# -- move generation and checking -----------------------------------------------------


def _own_squares(state: State) -> Iterator[int]:
    for square, die in enumerate(state.board):
        if die is not None and die.seat == state.to_move:
            yield square


def _new_faces(die: Die) -> list[int]:
    """The faces a die may turn to after moving: one up or one down, staying on the die."""
    return [face for face in (die.face - 1, die.face + 1) if 1 <= face <= die.kind.sides]


def _moves(state: State) -> Iterator[_Action]:
    """Every move and capture of the side to move, dice in board order (not rerolls)."""
    board = state.board
    for square in _own_squares(state):
        die = board[square]
        assert die is not None
        column, row = square % SIZE, square // SIZE
        distance = die.face
        faces = _new_faces(die)
        for dx, dy in _directions(die.kind):
            end_column, end_row = column + dx * distance, row + dy * distance
            if not (0 <= end_column < SIZE and 0 <= end_row < SIZE):
                continue
            step = dy * SIZE + dx
            if any(board[square + step * k] is not None for k in range(1, distance)):
                continue
            target = end_row * SIZE + end_column
            occupant = board[target]
            if occupant is None:
                if (dx, dy) not in die.kind.moves:
                    continue
                capture = False
            elif occupant.seat != die.seat and (dx, dy) in die.kind.captures:
                capture = True
            else:
                continue
            for face in faces:
                yield _Action(square, target, face, capture)


def _directions(kind: Kind) -> tuple[Direction, ...]:
    return kind.moves if kind.moves == kind.captures else kind.moves + kind.captures


def _no_die_of_yours(state: State, square: int) -> IllegalMove:
    die = state.board[square]
    name = square_name(square)
    if die is None:
        return IllegalMove("dodeca-empty-square", square=name)
    return IllegalMove("dodeca-die-of-another", square=name, kind=die.kind.name, seat=SEAT_FACTS[die.seat])


def _check_roll(state: State, square: int) -> _Action:
    die = state.board[square]
    if die is None or die.seat != state.to_move:
        raise _no_die_of_yours(state, square)
    if state.rerolled[state.to_move] and next(_moves(state), None) is not None:
        raise IllegalMove("dodeca-rerolled-last-turn")
    return _Action(square)


def _check_move(state: State, origin_text: str, target_text: str, face_text: str | None) -> _Action:
    origin, target = _square(origin_text), _square(target_text)
    die = state.board[origin]
    if die is None or die.seat != state.to_move:
        raise _no_die_of_yours(state, origin)
    kind = die.kind
    from_name, to_name = square_name(origin), square_name(target)
    dx, dy = target % SIZE - origin % SIZE, target // SIZE - origin // SIZE
    if origin == target:
        raise IllegalMove("dodeca-standing-still", square=from_name)
    if dx and dy and abs(dx) != abs(dy):
        raise IllegalMove("dodeca-not-straight", source=from_name, target=to_name)
    occupant = state.board[target]
    if occupant is not None and occupant.seat == die.seat:
        raise IllegalMove("dodeca-friendly-die", target=to_name)
    direction = ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))
    way = Fact("dodeca-diagonally" if dx and dy else "dodeca-orthogonally")
    if occupant is None and direction not in kind.moves:
        raise IllegalMove("dodeca-cannot-move-that-way", rule=kind.rule, way=way, target=to_name)
    if occupant is not None and direction not in kind.captures:
        raise IllegalMove("dodeca-cannot-capture-that-way", rule=kind.rule, way=way, target=to_name)
    distance = max(abs(dx), abs(dy))
    if distance != die.face:
        raise IllegalMove("dodeca-wrong-distance", target=to_name, distance=distance, kind=kind.name, face=die.face)
    step = direction[1] * SIZE + direction[0]
    for k in range(1, distance):
        if state.board[origin + step * k] is not None:
            raise IllegalMove("dodeca-blocked", target=to_name, square=square_name(origin + step * k))
    faces = _new_faces(die)
    sign = "x" if occupant is not None else "-"
    if face_text is None:
        if len(faces) > 1:
            written = one_of([f"{from_name}{sign}{to_name}={f}" for f in faces])
            raise IllegalMove("dodeca-which-face", kind=kind.name, moves=written)
        face = faces[0]
    else:
        if not face_text.isdecimal() or int(face_text) not in faces:
            must = one_of([str(f) for f in faces])
            raise IllegalMove("dodeca-wrong-face", faces=must, kind=kind.name, face=die.face)
        face = int(face_text)
    return _Action(origin, target, face, occupant is not None)


# -- position notation and drawing ------------------------------------------------------

_CELL = re.compile(r"\.|[ab][tcod]\d+")


def _parse_rows(text: str) -> Board:
    rows = text.split("/")
    if len(rows) != SIZE:
        raise InvalidPosition("dodeca-row-count", rows=len(rows))
    board: list[Die | None] = [None] * (SIZE * SIZE)
    counts: dict[tuple[int, Kind], int] = {}
    for number, row_text in zip(range(SIZE, 0, -1), rows):
        if not re.fullmatch(f"(?:{_CELL.pattern})*", row_text):
            raise InvalidPosition("dodeca-bad-cell", row=number, text=row_text)
        cells = _CELL.findall(row_text)
        if len(cells) != SIZE:
            raise InvalidPosition("dodeca-row-length", row=number, text=row_text, cells=len(cells))
        for column, cell in enumerate(cells):
            if cell == ".":
                continue
            seat, kind, face = SEAT_LETTERS.index(cell[0]), KINDS[cell[1]], int(cell[2:])
            if not 1 <= face <= kind.sides:
                raise InvalidPosition(
                    "dodeca-impossible-face",
                    cell=cell,
                    square=f"{COLUMNS[column]}{number}",
                    kind=kind.name,
                    sides=kind.sides,
                )
            board[(number - 1) * SIZE + column] = Die(seat, kind, face)
            counts[seat, kind] = counts.get((seat, kind), 0) + 1
    for (seat, kind), count in counts.items():
        if count > kind.count:
            raise InvalidPosition(
                "dodeca-too-many", seat=SEAT_FACTS[seat], count=count, kind=kind.name, most=kind.count
            )
    if not counts.get((0, DODECA)) and not counts.get((1, DODECA)):
        raise InvalidPosition("dodeca-no-dodeca")
    return tuple(board)


def _cell(die: Die | None) -> str:
    """A square as the board draws it, before padding to the column width."""
    if die is None:
        return " ..."
    mark = f"{die.kind.letter.upper()}{die.face}"
    return f"({mark})" if die.seat == 0 else f"<{mark}>"
