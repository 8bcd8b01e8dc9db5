"""Cubeo, the formation game of Marek J. Kolcun (2016), as this server plays it.

Two players, *Paren* (seat 1, drawn ``(n)``) and *Angle* (seat 2, drawn
``<n>``), each own six six-sided dice. The dice lie on an unbounded square
grid, ``x`` growing to the right and ``y`` upward, and all of them together
form the *formation*, which must always hang together side to side. The game
starts with Paren's die at 0,0 and Angle's at 1,0, both showing 1; Paren moves
first.

The printed rules leave much open. This engine follows the interpretation of
Abstract Play's Cubeo engine, so that its legal-move lists are exactly that
engine's (the tests replay games recorded from it).

>>> from pbm.games.cubeo import GAME
>>> state = GAME.new()
>>> GAME.legal_moves(state)
['+-1,0', '+0,-1', '+0,1', '1,0,0->1,-1', '1,0,0->1,1']
>>> state = GAME.play(state, "0,0 -> 1,1")
>>> print(GAME.render(state))
    0   1   2
 2 ... ... ... 2
 1 ... (1) ... 1
 0 ... <1> ... 0
-1 ... ... ... -1
    0   1   2
In hand: Paren (n) 5, Angle <n> 5 (of 6 each)

A turn is exactly one of:

**Add** (needs a die in hand: your six minus your dice on the board). Put a
new die showing 1 on an empty cell that touches at least one of your dice side
to side and no enemy die, and that a die could *slide* into from outside (see
below): no dropping into an enclosed hole. Notation ``+x,y``.

**Move** an unpinned die of yours showing *p* exactly *p* steps around the
formation. A die is *pinned* when taking it away would split the rest of the
formation; a pinned die may neither move nor be merged away. The steps are
those of the step graph below; a walk may turn back and revisit cells but may
not end where it started, and it may end next to enemy dice. Notation
``p,x,y->x2,y2``.

**Merge** (needs at least three of your dice on the board): two of your dice
side by side; the *source* must be unpinned and able to slide out. The source
goes back to your hand and the *target* shows the sum. A sum above six wins
the game at once ("promotion"); exactly six is an ordinary move. Notation
``p,x,y+>x2,y2`` (the source showing p at x,y merges into the die at x2,y2).

A player who has no legal turn loses: the player who just moved wins.

**The step graph** of a moving die *m*. Its nodes are the occupied cells and
the empty cells beside a die (beside *m* too). Side-by-side nodes are joined.
Diagonal nodes (not both dice) are joined unless the two other cells of their
2x2 square are both nodes and either both dice other than *m* (no squeezing
between dice that touch at a corner) or both empty (no cutting across open
space); so rounding a die's outer corner is a single step. Then: empty cells
whose only neighbouring die is *m* go (the die must keep touching the rest of
the formation); a step between two cells that are empty or *m* stays only if
the dice other than *m* beside either end, together with the dice beside
those, have one in common (no jumping across a gap); the other dice's cells
go. *m* travels on what is left.

Two of those rules never decide anything by themselves, because the gap rule
already cuts the same steps: an empty cell beside *m* alone has no other die
near it at all, and no die is near both ends of a diagonal step whose two
other cells are empty. The code below therefore applies only the corner and
gap rules.

**Sliding**: an empty cell can be reached from outside, and a die can slide
out, when its part of that graph (built for the empty cell without *m*)
reaches the column just left of the formation's bounding box or the row just
above it; the reference engine looks at those two margins only, and so do we.

Options (challenge words): ``-strict``: a move (not an add or merge) may not
leave the formation, owners and pips included, equal to how it was under any
rotation or reflection. ``-dice=8|10|12``: each player has that many dice with
that many faces, and a merge wins above that number. From the printed
"Variations": ``-remove`` allows a turn ``-x,y`` taking one of your dice off
the board under the merge-source conditions, never your last die on the
board; ``-samevalue`` allows a merge above the die size only between equal
dice.

**Position notation**: the dice as ``owner:pips@x,y`` (owner 1 or 2) in any
order, then the seat to move (1 or 2) and the number of moves played, and
optionally the options as challenge words, separated by ``/``:

>>> GAME.to_position(GAME.new(options={"dice": 8}))
'1:1@0,0 2:1@1,0 / 1 / 0 / -dice=8'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from pbm.facts import Fact, english
from pbm.games.base import (
    DIE,
    BoardCell,
    Game,
    IllegalMove,
    InvalidOptions,
    InvalidPosition,
    MoveExample,
    MoveReport,
    Option,
    Result,
)
from pbm.games.messages import MESSAGES

Cell = tuple[int, int]

SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
CORNERS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
MARKS = ("({})", "<{}>")

# The reference engine sorts its moves with JavaScript's localeCompare, which
# ranks punctuation before digits and '-' before ',' before '+' before '>'.
_REFERENCE_ORDER = str.maketrans({"-": "\x01", ",": "\x02", "+": "\x03", ">": "\x04"})

_NUMBER = r"(-?\d+)"
_ADD = re.compile(rf"\+{_NUMBER},{_NUMBER}")
_REMOVE = re.compile(rf"-{_NUMBER},{_NUMBER}")
_TRAVEL = re.compile(rf"(?:(\d+),)?{_NUMBER},{_NUMBER}([-+])>{_NUMBER},{_NUMBER}")
_DIE_ONLY = re.compile(rf"(?:(\d+),)?{_NUMBER},{_NUMBER}")
_POSITION_DIE = re.compile(r"([12]):(\d+)@(-?\d+),(-?\d+)")

MAIL_WIDTH = 72
"""No line of a drawing is wider, so that it reads unwrapped in a mail client."""


def reference_order(move: str) -> str:
    """Sort key putting moves in the reference engine's order.

    >>> sorted(["1,2,-1+>2,0", "1,2,-1->3,0", "+0,1"], key=reference_order)
    ['+0,1', '1,2,-1->3,0', '1,2,-1+>2,0']
    """
    return move.translate(_REFERENCE_ORDER)


def cell_text(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


@dataclass(frozen=True)
class Die:
    """One die on the board: its owner's seat (0-based), the value it shows, its cell."""

    owner: int
    pips: int
    x: int
    y: int

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)


@dataclass(frozen=True)
class Rules:
    """The options a game was challenged with (see the module text)."""

    dice: int = 6
    strict: bool = False
    remove: bool = False
    samevalue: bool = False

    def as_options(self) -> dict[str, Any]:
        """The options dict a challenge gives for these rules (defaults left out)."""
        options: dict[str, Any] = {}
        if self.strict:
            options["strict"] = True
        if self.dice != Rules.dice:
            options["dice"] = self.dice
        if self.remove:
            options["remove"] = True
        if self.samevalue:
            options["samevalue"] = True
        return options

    def as_words(self) -> list[str]:
        """The challenge words for these rules: ``['-strict', '-dice=8']``."""
        return [f"-{name}" if value is True else f"-{name}={value}" for name, value in self.as_options().items()]


def _reading_order(die: Die) -> tuple[int, int]:
    return (-die.y, die.x)


@dataclass(frozen=True)
class State:
    """A Cubeo position: the dice on the board, who moves, how many moves were played.

    `dice` is kept in reading order (top row first, left to right), so equal
    positions compare equal whatever order the dice were given in.
    """

    dice: tuple[Die, ...]
    to_move: int = 0
    ply: int = 0
    options: Rules = field(default_factory=Rules)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(sorted(self.dice, key=_reading_order)))

    @cached_property
    def board(self) -> dict[Cell, Die]:
        """The dice by cell."""
        return {die.cell: die for die in self.dice}

    @property
    def formation(self) -> Formation:
        """The graph facts of this position (made afresh: they are big and rarely needed twice)."""
        return Formation(self.board)

    @cached_property
    def legal(self) -> tuple[str, ...]:
        """The legal moves, worked out once per state (see `generate_legal_moves`)."""
        return tuple(generate_legal_moves(self))

    def dice_of(self, seat: int) -> list[Die]:
        return [die for die in self.dice if die.owner == seat]

    def in_hand(self, seat: int) -> int:
        """How many dice `seat` has left to add."""
        return self.options.dice - len(self.dice_of(seat))

    @property
    def promoted(self) -> Die | None:
        """The die a winning merge made (it shows more than the die size), if any."""
        for die in self.dice:
            if die.pips > self.options.dice:
                return die
        return None


class Formation:
    """The graph facts of one position, worked out once and shared by all its dice.

    Cells are ``(x, y)`` pairs; a moving die is named by its cell. Sets of
    dice are kept as bit masks (one bit per die) because the step graph asks
    "do these two sets of dice meet?" many thousand times a second.
    """

    def __init__(self, board: Mapping[Cell, Die]) -> None:
        self.board = board
        self.min_x = min(x for x, _ in board)
        self.max_y = max(y for _, y in board)
        self.bit: dict[Cell, int] = {}
        self.touching: dict[Cell, list[Cell]] = {}
        """For every cell beside a die (dice included): the dice beside it."""
        self.touch_mask: dict[Cell, int] = {}
        """The same as a mask."""
        touching, touch_mask = self.touching, self.touch_mask
        for index, (x, y) in enumerate(board):
            bit = self.bit[(x, y)] = 1 << index
            for dx, dy in SIDES:
                cell = (x + dx, y + dy)
                touching.setdefault(cell, []).append((x, y))
                touch_mask[cell] = touch_mask.get(cell, 0) | bit
        self.empties = frozenset(cell for cell in touching if cell not in board)
        """The empty nodes of the step graph: empty cells beside a die."""
        self.pinned = self._articulation_points()
        """The dice whose removal would split the formation."""
        self._steps: dict[Cell | None, _Steps] = {}

    def _articulation_points(self) -> frozenset[Cell]:
        # Tarjan's low-link search over the dice's side-by-side graph.
        order: dict[Cell, int] = {}
        low: dict[Cell, int] = {}
        cut: set[Cell] = set()

        def visit(cell: Cell, parent: Cell | None) -> None:
            order[cell] = low[cell] = len(order)
            children = 0
            for other in self.touching.get(cell, ()):
                if other not in order:
                    children += 1
                    visit(other, cell)
                    low[cell] = min(low[cell], low[other])
                    if parent is not None and low[other] >= order[cell]:
                        cut.add(cell)
                elif other != parent:
                    low[cell] = min(low[cell], order[other])
            if parent is None and children > 1:
                cut.add(cell)

        visit(next(iter(self.board)), None)
        return frozenset(cut)

    def is_margin(self, cell: Cell) -> bool:
        """Whether `cell` lies in the column left of the dice or the row above them."""
        return cell[0] == self.min_x - 1 or cell[1] == self.max_y + 1

    def near(self, cell: Cell, mover: Cell | None) -> int:
        """The dice other than `mover` beside `cell`, and the dice beside those (a mask).

        Two cells may be joined by a step only when these sets meet.
        """
        near = 0
        for die in self.touching.get(cell, ()):
            if die != mover:
                near |= self.bit[die] | self.touch_mask.get(die, 0)
        return near & ~self.bit.get(mover, 0)  # type: ignore[arg-type]

    def steps(self, mover: Cell | None) -> _Steps:
        """The step graph of the die at `mover` (``None``: of an empty cell), built as it is walked."""
        steps = self._steps.get(mover)
        if steps is None:
            steps = self._steps[mover] = _Steps(self, mover)
        return steps

    def destinations(self, mover: Cell, pips: int) -> set[Cell]:
        """The cells the die at `mover` can end on after exactly `pips` steps."""
        steps = self.steps(mover)
        reached = {mover}
        for _ in range(pips):
            reached = {target for cell in reached for target in steps(cell)}
        reached.discard(mover)
        return reached

    def can_slide_out(self, mover: Cell) -> bool:
        """Whether the die at `mover` can slide out of the formation (merge or remove)."""
        steps = self.steps(mover)
        seen = {mover}
        todo = [mover]
        while todo:
            cell = todo.pop()
            if self.is_margin(cell):
                return True
            for target in steps(cell):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return False

    @cached_property
    def open_cells(self) -> frozenset[Cell]:
        """The empty cells a new die can slide into from outside.

        The graph of an empty cell does not depend on which cell it is, so its
        parts are found once and every part that reaches the margin is open.
        """
        steps = self.steps(None)
        open_cells: set[Cell] = set()
        seen: set[Cell] = set()
        for start in self.empties:
            if start in seen:
                continue
            part = {start}
            todo = [start]
            while todo:
                for target in steps(todo.pop()):
                    if target not in part:
                        part.add(target)
                        todo.append(target)
            seen |= part
            if any(self.is_margin(cell) for cell in part):
                open_cells |= part
        return frozenset(open_cells)


class _Steps:
    """The step graph of one mover, worked out cell by cell as walks reach it."""

    def __init__(self, formation: Formation, mover: Cell | None) -> None:
        self.formation = formation
        self.mover = mover
        self.known: dict[Cell, tuple[Cell, ...]] = {}
        self._near: dict[Cell, int] = {}

    def near(self, cell: Cell) -> int:
        near = self._near.get(cell)
        if near is None:
            near = self._near[cell] = self.formation.near(cell, self.mover)
        return near

    def __call__(self, cell: Cell) -> tuple[Cell, ...]:
        """The cells one step away from `cell`."""
        known = self.known.get(cell)
        if known is not None:
            return known
        board, empties, mover = self.formation.board, self.formation.empties, self.mover
        x, y = cell
        near = self.near(cell)
        targets = []
        for dx, dy in SIDES:
            target = (x + dx, y + dy)
            if (target in empties or target == mover) and near & self.near(target):
                targets.append(target)
        for dx, dy in CORNERS:
            target = (x + dx, y + dy)
            if target not in empties and target != mover:
                continue
            side_a, side_b = (x + dx, y), (x, y + dy)
            if side_a in board and side_b in board and mover not in (side_a, side_b):
                continue  # squeezing between two dice that touch at a corner
            if near & self.near(target):
                targets.append(target)
        found = self.known[cell] = tuple(targets)
        return found


def _shape(dice: Iterable[tuple[int, int, int, int]]) -> frozenset[tuple[int, int, int, int]]:
    """The formation with its lowest, leftmost corner moved to 0,0 (translation ignored)."""
    dice = list(dice)
    min_x = min(d[0] for d in dice)
    min_y = min(d[1] for d in dice)
    return frozenset((x - min_x, y - min_y, owner, pips) for x, y, owner, pips in dice)


_SYMMETRIES: tuple[Callable[[int, int], tuple[int, int]], ...] = (
    lambda x, y: (x, y),
    lambda x, y: (-x, y),
    lambda x, y: (x, -y),
    lambda x, y: (-x, -y),
    lambda x, y: (y, x),
    lambda x, y: (-y, x),
    lambda x, y: (y, -x),
    lambda x, y: (-y, -x),
)


def _looks(dice: Iterable[Die]) -> set[frozenset[tuple[int, int, int, int]]]:
    """The formation's shapes under the 8 rotations and reflections of the square."""
    dice = list(dice)
    return {_shape((*turn(d.x, d.y), d.owner, d.pips) for d in dice) for turn in _SYMMETRIES}


def generate_legal_moves(state: State) -> list[str]:
    """Every legal turn of the player to move, in the reference order.

    Not cached: `Cubeo.legal_moves` remembers the answer on the state.
    """
    if state.promoted is not None:
        return []
    rules = state.options
    formation = state.formation
    board = state.board
    seat = state.to_move
    mine = state.dice_of(seat)
    moves: list[str] = []

    if len(mine) < rules.dice:
        for cell in formation.empties:
            if all(board[die].owner == seat for die in formation.touching[cell]) and cell in formation.open_cells:
                moves.append(f"+{cell_text(cell)}")

    looks = _looks(state.dice) if rules.strict else set()
    for die in mine:
        if die.cell in formation.pinned:
            continue
        targets = formation.destinations(die.cell, die.pips)
        if rules.strict:
            others = [(d.x, d.y, d.owner, d.pips) for d in state.dice if d is not die]
            targets = {t for t in targets if _shape([*others, (*t, die.owner, die.pips)]) not in looks}
        moves.extend(f"{die.pips},{cell_text(die.cell)}->{cell_text(t)}" for t in targets)

    def can_leave(die: Die) -> bool:
        return die.cell not in formation.pinned and formation.can_slide_out(die.cell)

    if len(mine) >= 3:
        for source in mine:
            around = (board.get((source.x + dx, source.y + dy)) for dx, dy in SIDES)
            partners = [p for p in around if p is not None and p.owner == seat]
            if rules.samevalue:
                partners = [p for p in partners if p.pips == source.pips or p.pips + source.pips <= rules.dice]
            if partners and can_leave(source):
                moves.extend(f"{source.pips},{cell_text(source.cell)}+>{cell_text(p.cell)}" for p in partners)
    if rules.remove and len(mine) >= 2:
        moves.extend(f"-{cell_text(die.cell)}" for die in mine if can_leave(die))

    moves.sort(key=reference_order)
    return moves


def _render_cell(die: Die | None, width: int) -> str:
    text = "..." if die is None else MARKS[die.owner].format(die.pips)
    return text.rjust(width)


def render_board(state: State, width: int = MAIL_WIDTH) -> str:
    """The bounding box of the dice plus a one-cell margin, labelled with absolute coordinates.

    A formation too wide for `width` columns is cut into vertical bands drawn
    one below the other, each with its own labels.
    """
    board = state.board
    xs = [x for x, _ in board]
    ys = [y for _, y in board]
    columns = list(range(min(xs) - 1, max(xs) + 2))
    rows = list(range(max(ys) + 1, min(ys) - 2, -1))
    pips_width = len(str(max(state.options.dice, *(die.pips for die in state.dice))))
    cell_width = max(pips_width + 2, max(len(str(x)) for x in columns) + 1)
    label_width = max(len(str(y)) for y in rows)
    per_band = max(1, (width - 2 * label_width - 1) // (cell_width + 1))
    bands = -(-len(columns) // per_band)
    size = -(-len(columns) // bands)

    lines: list[str] = []
    for start in range(0, len(columns), size):
        band = columns[start : start + size]
        if lines:
            lines.append("")
        labels = " " * (label_width + 1) + " ".join(f"{x:>{cell_width - 1}} " for x in band).rstrip()
        lines.append(labels)
        for y in rows:
            cells = " ".join(_render_cell(board.get((x, y)), cell_width) for x in band)
            lines.append(f"{y:>{label_width}} {cells} {y}")
        lines.append(labels)
    return "\n".join(lines)


def in_hand(state: State) -> Fact:
    """The line below the board: each seat's dice still in hand, ``In hand: Paren (n) 5, Angle <n> 5 (of 6 each)``."""
    names = Cubeo.seat_names
    return Fact(
        "cubeo-in-hand",
        first=names[0],
        first_count=state.in_hand(0),
        second=names[1],
        second_count=state.in_hand(1),
        dice=state.options.dice,
    )


HELP = """\
Cubeo, a game by Marek J. Kolcun
================================

Two players, each with six six-sided dice, build one formation of dice on
an open table. It starts with one die of each player side by side, both
showing 1; the first player named in the challenge moves first. The dice
must always form a single group joined edge to edge.

A turn is one of
    Add     put a new die showing 1 on an empty cell next to one of your
            dice and next to no enemy die. It must be able to slide in
            from outside: no dropping it into an enclosed hole.
    Move    slide one of your dice showing p around the formation exactly
            p steps. A step goes to a neighbouring cell, or round the
            outer corner of a die; the die must keep touching the others
            all the way, may not squeeze between two dice that touch only
            at a corner, and may not end where it started. A die whose
            removal would split the formation is pinned and cannot move.
    Merge   with at least three dice on the table, lift an unpinned die
            of yours off and add its pips to a neighbouring die of yours.
            The lifted die returns to your hand.

Winning
    Merge two dice into more than 6 pips and you win at once (exactly 6
    is an ordinary move). A player who has no legal turn loses.

Writing moves (x grows to the right, y grows upward; both may be negative)
    +x,y            add a die at x,y               e.g. +-1,0
    p,x,y->x2,y2    move the p at x,y to x2,y2     e.g. 2,0,1->1,2
    p,x,y+>x2,y2    merge the p at x,y into x2,y2  e.g. 1,0,0+>1,0
    -x,y            take a die off (with -remove)
    The pip count in front may be left out; spaces are allowed.

The board
    The drawing shows the formation with a margin of one cell and the
    absolute coordinates around it; seat 1's dice print as (n), seat 2's
    as <n>. A very wide formation is drawn in bands, one under another.
"""
"""The rules in a player's words: what ``cubeo help`` mails and the rules page shows."""


class Cubeo(Game[State]):
    """The Cubeo rules; see the module text."""

    name = "cubeo"
    title = "Cubeo"
    designer = "Marek J. Kolcun"
    min_players = 2
    max_players = 2
    seat_names = ("Paren", "Angle")
    help_text = HELP
    options = (
        Option("strict", "a move may not leave the formation looking as before (up to rotation or reflection)"),
        Option("dice", "each player has that many dice with that many faces", choices=(6, 8, 10, 12), default=6),
        Option("remove", "a turn may take one of your own dice off the board"),
        Option("samevalue", "a merge above the die size needs two equal dice"),
    )

    # -- set-up and positions ---------------------------------------------------

    def rules(self, options: Mapping[str, Any] | None) -> Rules:
        checked = self.check_options(options)
        return Rules(
            dice=self.option_value(checked, "dice"),
            strict=self.option_value(checked, "strict"),
            remove=self.option_value(checked, "remove"),
            samevalue=self.option_value(checked, "samevalue"),
        )

    def new(self, players: int = 2, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> State:
        """The start: Paren's 1 at 0,0, Angle's 1 at 1,0, Paren to move (no dice are rolled)."""
        self.check_players(players)
        return State(dice=(Die(0, 1, 0, 0), Die(1, 1, 1, 0)), options=self.rules(options))

    def from_position(self, position: str, options: Mapping[str, Any] | None = None) -> State:
        """Parse ``owner:pips@x,y ... / seat to move / moves played [/ options]``.

        Options written in the position and in `options` are combined; they
        may not contradict each other.

        >>> GAME.from_position("1:3@0,0 2:1@1,0 1:1@0,1 / 2 / 9").to_move
        1
        """
        fields = [part.strip() for part in position.split("/")]
        if len(fields) not in (3, 4):
            raise InvalidPosition("cubeo-not-a-position")
        try:
            written = self.parse_options(fields[3].split()) if len(fields) == 4 else {}
            given = self.check_options(options)
        except InvalidOptions as error:
            raise InvalidPosition(error.fact) from None
        for name in written.keys() & given.keys():
            if written[name] != given[name]:
                raise InvalidPosition("cubeo-options-disagree", option=name, written=written[name], given=given[name])
        dice = []
        for word in fields[0].split():
            match = _POSITION_DIE.fullmatch(word)
            if match is None:
                raise InvalidPosition("cubeo-not-a-die", word=word)
            owner, pips, x, y = (int(group) for group in match.groups())
            dice.append(Die(owner - 1, pips, x, y))
        if fields[1] not in ("1", "2"):
            raise InvalidPosition("cubeo-not-a-seat", word=fields[1])
        if not fields[2].isdecimal():
            raise InvalidPosition("cubeo-not-a-move-count", word=fields[2])
        return self._checked_state(dice, int(fields[1]) - 1, int(fields[2]), self.rules({**written, **given}))

    def to_position(self, state: State) -> str:
        dice = " ".join(f"{d.owner + 1}:{d.pips}@{d.x},{d.y}" for d in state.dice)
        parts = [dice, str(state.to_move + 1), str(state.ply)]
        words = state.options.as_words()
        if words:
            parts.append(" ".join(words))
        return " / ".join(parts)

    def _checked_state(self, dice: list[Die], to_move: int, ply: int, rules: Rules) -> State:
        if to_move not in (0, 1):
            raise InvalidPosition("cubeo-no-such-seat", seat=to_move + 1)
        if ply < 0:
            raise InvalidPosition("cubeo-negative-move-count")
        cells: set[Cell] = set()
        for die in dice:
            if die.owner not in (0, 1):
                raise InvalidPosition("cubeo-die-without-owner", cell=cell_text(die.cell))
            if die.cell in cells:
                raise InvalidPosition("cubeo-two-dice-on-a-cell", cell=cell_text(die.cell))
            cells.add(die.cell)
            if not 1 <= die.pips <= 2 * rules.dice:
                raise InvalidPosition("cubeo-impossible-pips", cell=cell_text(die.cell), pips=die.pips)
        for seat in (0, 1):
            count = sum(1 for die in dice if die.owner == seat)
            if not 1 <= count <= rules.dice:
                raise InvalidPosition("cubeo-dice-count", seat=self.seat_names[seat], count=count, dice=rules.dice)
        if sum(1 for die in dice if die.pips > rules.dice) > 1:
            raise InvalidPosition("cubeo-two-winning-dice", dice=rules.dice)
        if not _connected(cells):
            raise InvalidPosition("cubeo-not-one-formation")
        return State(dice=tuple(dice), to_move=to_move, ply=ply, options=rules)

    # -- the rules ----------------------------------------------------------------

    def legal_moves(self, state: State) -> list[str]:
        return list(state.legal)

    def undo(self, before: State, after: State) -> State:
        """The position before the move taken back; the undo counts as a ply."""
        return replace(before, ply=after.ply + 1)

    def result(self, state: State) -> Result | None:
        """The merger of a die above the die size, or the player who left the other no turn.

        The codes: ``merged`` (a merge made a die above the die size), ``no-move``
        (the player to move had no legal turn).

        >>> GAME.result(GAME.from_position("1:7@0,0 1:1@0,1 2:1@1,0 / 2 / 20"))
        Result(winners=[0], code='merged', fact=Fact('cubeo-merged', pips=7))
        """
        promoted = state.promoted
        if promoted is not None:
            return Result([promoted.owner], "merged", Fact("cubeo-merged", pips=promoted.pips))
        if not state.legal:
            return Result([1 - state.to_move], "no-move", Fact("cubeo-no-move"))
        return None

    def report(self, before: State, notation: str, after: State) -> MoveReport:
        """What a turn did: the die added, moved, removed, or which dice merged into what.

        >>> before = GAME.from_position("1:3@0,0 1:2@0,1 1:1@1,1 2:1@1,0 / 1 / 6")
        >>> GAME.report(before, "2,0,1+>0,0", GAME.apply(before, "2,0,1+>0,0")).fact
        Fact('cubeo-merging', move='2,0,1+>0,0', pips=2, source='0,1', into=3, target='0,0', made=5)
        """
        if notation not in before.legal:
            raise IllegalMove("cubeo-not-canonical", move=notation)
        if match := _ADD.fullmatch(notation):
            left = after.in_hand(before.to_move)
            cell = f"{match[1]},{match[2]}"
            if not left:
                return MoveReport(Fact("cubeo-adding-the-last", move=notation, cell=cell))
            return MoveReport(Fact("cubeo-adding", move=notation, cell=cell, left=left))
        if match := _REMOVE.fullmatch(notation):
            die = before.board[(int(match[1]), int(match[2]))]
            return MoveReport(Fact("cubeo-removing", move=notation, pips=die.pips, cell=cell_text(die.cell)))
        match = _TRAVEL.fullmatch(notation)
        assert match is not None, notation  # every legal move has one of the three forms
        source = before.board[(int(match[2]), int(match[3]))]
        target = (int(match[5]), int(match[6]))
        start, end = cell_text(source.cell), cell_text(target)
        if match[4] == "-":
            return MoveReport(Fact("cubeo-moving", move=notation, pips=source.pips, source=start, target=end))
        into, made = before.board[target], after.board[target]
        return MoveReport(
            Fact(
                "cubeo-merging",
                move=notation,
                pips=source.pips,
                source=start,
                into=into.pips,
                target=end,
                made=made.pips,
            )
        )

    def example_move(self, state: State) -> MoveExample | None:
        """One legal turn of the player to move, taken apart for the mails: the first move in the
        reference order, else the first merge, add or removal. A move shows the notation's
        longest form (pips, cell, arrow, cell), the one players find hard to write.

        >>> example = GAME.example_move(GAME.new())
        >>> example.notation, example.kind, example.pips, example.source, example.target, example.shortest
        ('1,0,0->1,-1', 'move', 1, '0,0', '1,-1', '0,0->1,-1')
        """
        examples = [self.taken_apart(state, move) for move in state.legal]
        for kind in ("move", "merge", "add", "remove"):
            of_kind = [example for example in examples if example.kind == kind]
            if of_kind:
                return of_kind[0]
        return None

    def taken_apart(self, state: State, move: str) -> MoveExample:
        """The legal turn `move` (canonical) of `state`, taken apart."""
        if match := _ADD.fullmatch(move):
            return MoveExample(move, "add", target=f"{match[1]},{match[2]}", pips=1)
        if match := _REMOVE.fullmatch(move):
            die = state.board[(int(match[1]), int(match[2]))]
            return MoveExample(move, "remove", target=cell_text(die.cell), pips=die.pips)
        match = _TRAVEL.fullmatch(move)
        assert match is not None, move  # every legal move has one of the three forms
        source, target = (int(match[2]), int(match[3])), (int(match[5]), int(match[6]))
        pips = state.board[source].pips
        arrow = match[4] + ">"
        shortest = f"{cell_text(source)}{arrow}{cell_text(target)}"
        if match[4] == "-":
            return MoveExample(move, "move", cell_text(target), cell_text(source), pips, shortest=shortest)
        makes = pips + state.board[target].pips
        return MoveExample(move, "merge", cell_text(target), cell_text(source), pips, makes, shortest)

    def apply(self, state: State, move: str) -> State:
        if move not in state.legal:
            raise IllegalMove("cubeo-not-legal", move=move)
        board = dict(state.board)
        if match := _ADD.fullmatch(move):
            x, y = int(match[1]), int(match[2])
            board[(x, y)] = Die(state.to_move, 1, x, y)
        elif match := _REMOVE.fullmatch(move):
            del board[(int(match[1]), int(match[2]))]
        else:
            match = _TRAVEL.fullmatch(move)
            assert match is not None, move  # every legal move has one of the three forms
            source = board.pop((int(match[2]), int(match[3])))
            target = (int(match[5]), int(match[6]))
            if match[4] == "-":
                board[target] = Die(source.owner, source.pips, *target)
            else:
                board[target] = Die(source.owner, source.pips + board[target].pips, *target)
        return State(dice=tuple(board.values()), to_move=1 - state.to_move, ply=state.ply + 1, options=state.options)

    def parse_move(self, state: State, text: str) -> str:
        """The canonical form of `text`; spaces and the pip prefix are optional.

        >>> GAME.parse_move(GAME.new(), " 0, 0 -> 1 ,1 ")
        '1,0,0->1,1'
        """
        compact = "".join(text.split())
        if not compact:
            raise IllegalMove("cubeo-empty-move")
        if match := _ADD.fullmatch(compact):
            move = f"+{match[1]},{match[2]}"
            if move not in state.legal:
                raise IllegalMove(self._why_not_add(state, (int(match[1]), int(match[2]))))
            return move
        if match := _REMOVE.fullmatch(compact):
            cell = (int(match[1]), int(match[2]))
            if f"-{cell_text(cell)}" not in state.legal:
                raise IllegalMove(self._why_not_remove(state, cell))
            return f"-{cell_text(cell)}"
        if match := _TRAVEL.fullmatch(compact):
            source = (int(match[2]), int(match[3]))
            target = (int(match[5]), int(match[6]))
            die = self._own_die(state, source)
            if match[1] is not None and int(match[1]) != die.pips:
                raise IllegalMove("cubeo-wrong-pips", cell=cell_text(source), pips=die.pips, written=int(match[1]))
            arrow = "->" if match[4] == "-" else "+>"
            move = f"{die.pips},{cell_text(source)}{arrow}{cell_text(target)}"
            if move not in state.legal:
                if arrow == "->":
                    raise IllegalMove(self._why_not_move(state, die, target))
                raise IllegalMove(self._why_not_merge(state, die, target))
            return move
        if match := _DIE_ONLY.fullmatch(compact):
            die = self._own_die(state, (int(match[2]), int(match[3])))
            if match[1] is not None and int(match[1]) != die.pips:
                raise IllegalMove("cubeo-wrong-pips", cell=cell_text(die.cell), pips=die.pips, written=int(match[1]))
            raise IllegalMove(self._where_to(state, die))
        raise IllegalMove("cubeo-not-a-move", text=text.strip())

    def _own_die(self, state: State, cell: Cell) -> Die:
        die = state.board.get(cell)
        if die is None:
            raise IllegalMove("cubeo-no-die-of-yours", cell=cell_text(cell))
        if die.owner != state.to_move:
            raise IllegalMove("cubeo-die-of-another", cell=cell_text(cell), seat=self.seat_names[die.owner])
        return die

    def _where_to(self, state: State, die: Die) -> Fact:
        """The answer to a move that names a die but not where it goes."""
        start = f"{die.pips},{cell_text(die.cell)}"
        turns = [move for move in state.legal if move.startswith(start) and move[len(start)] in "-+"]
        if not turns:
            return Fact("cubeo-die-cannot-move", cell=cell_text(die.cell))
        return Fact("cubeo-where-to", cell=cell_text(die.cell), moves=_listed(turns))

    def _why_not_add(self, state: State, cell: Cell) -> Fact:
        where = f"+{cell_text(cell)}"
        formation = state.formation
        beside = [state.board[die] for die in formation.touching.get(cell, ())]
        if state.in_hand(state.to_move) == 0:
            return Fact("cubeo-none-in-hand", dice=state.options.dice)
        if cell in state.board:
            return Fact("cubeo-add-taken", move=where)
        if not any(die.owner == state.to_move for die in beside):
            return Fact("cubeo-add-not-touching", move=where)
        if any(die.owner != state.to_move for die in beside):
            return Fact("cubeo-add-touches-enemy", move=where)
        if cell not in formation.open_cells:
            return Fact("cubeo-add-enclosed", move=where)
        return Fact("cubeo-add-not-legal", move=where)

    def _why_not_move(self, state: State, die: Die, target: Cell) -> Fact:
        where = cell_text(die.cell)
        if die.cell in state.formation.pinned:
            return Fact("cubeo-pinned-moving", cell=where)
        if target in state.board:
            merge = f"{die.pips},{where}+>{cell_text(target)}"
            return Fact("cubeo-move-taken", cell=cell_text(target), merge=merge)
        reachable = sorted(
            (cell for cell in state.formation.destinations(die.cell, die.pips)),
            key=lambda cell: (-cell[1], cell[0]),
        )
        if target in reachable:
            return Fact("cubeo-strict-same-look")
        legal = [cell for cell in reachable if f"{die.pips},{where}->{cell_text(cell)}" in state.legal]
        if not legal:
            return Fact("cubeo-reaches-nothing", pips=die.pips, cell=where)
        return Fact("cubeo-reaches", pips=die.pips, cell=where, cells=_listed([cell_text(cell) for cell in legal]))

    def _why_not_merge(self, state: State, die: Die, target: Cell) -> Fact:
        where, there = cell_text(die.cell), cell_text(target)
        other = state.board.get(target)
        if other is None:
            return Fact("cubeo-merge-into-nothing", target=there, move=f"{die.pips},{where}->{there}")
        if other.owner != state.to_move:
            return Fact("cubeo-merge-into-enemy", target=there, seat=self.seat_names[other.owner])
        if abs(die.x - other.x) + abs(die.y - other.y) != 1:
            return Fact("cubeo-merge-not-beside", source=where, target=there)
        count = len(state.dice_of(state.to_move))
        if count < 3:
            return Fact("cubeo-merge-too-few", count=count)
        if die.cell in state.formation.pinned:
            return Fact("cubeo-pinned-taking", cell=where)
        if not state.formation.can_slide_out(die.cell):
            return Fact("cubeo-enclosed", cell=where)
        if state.options.samevalue:
            return Fact("cubeo-samevalue", dice=state.options.dice, pips=die.pips, other=other.pips)
        return Fact("cubeo-merge-not-legal", move=f"{die.pips},{where}+>{there}")

    def _why_not_remove(self, state: State, cell: Cell) -> Fact:
        if not state.options.remove:
            return Fact("cubeo-remove-not-allowed", cell=cell_text(cell))
        die = self._own_die(state, cell)
        where = cell_text(die.cell)
        if len(state.dice_of(state.to_move)) == 1:
            return Fact("cubeo-remove-last-die")
        if die.cell in state.formation.pinned:
            return Fact("cubeo-pinned-taking", cell=where)
        if not state.formation.can_slide_out(die.cell):
            return Fact("cubeo-enclosed", cell=where)
        return Fact("cubeo-remove-not-legal", cell=where)

    # -- drawing and storage ------------------------------------------------------

    def render(self, state: State, viewer: int | None = None) -> str:
        """The board of the mail replies; Cubeo hides nothing, so every viewer sees the same."""
        drawing, below = self.drawing(state, viewer)
        return "\n".join([drawing, *(english(fact, MESSAGES) for fact in below)])

    def drawing(self, state: State, viewer: int | None = None) -> tuple[str, list[Fact]]:
        """The formation, and below it the dice in hand (words: `in_hand`)."""
        return render_board(state), [in_hand(state)]

    def cells(self, state: State) -> list[BoardCell]:
        """The formation's bounding box and a one-cell margin, as `render` draws it.

        Cells carry their absolute coordinates: the formation drifts across the
        unbounded grid, and moves are written with these numbers.

        >>> cells = GAME.cells(GAME.new())
        >>> len(cells), cells[0].name, cells[-1].name
        (12, '-1,1', '2,-1')
        >>> [(c.name, c.owner, c.value, c.sides) for c in cells if c.value]
        [('0,0', 0, 1, 6), ('1,0', 1, 1, 6)]
        """
        board = state.board
        xs = [x for x, _ in board]
        ys = [y for _, y in board]
        cells = []
        for y in range(max(ys) + 1, min(ys) - 2, -1):
            for x in range(min(xs) - 1, max(xs) + 2):
                cell = BoardCell(x, y, str(x), str(y), cell_text((x, y)))
                die = board.get((x, y))
                if die is not None:
                    cell = replace(cell, piece=DIE, owner=die.owner, value=die.pips, sides=state.options.dice)
                cells.append(cell)
        return cells

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "dice": [[die.owner, die.pips, die.x, die.y] for die in state.dice],
            "to_move": state.to_move,
            "ply": state.ply,
            "options": state.options.as_options(),
        }

    def load(self, data: Mapping[str, Any], secret: bytes | None = None) -> State:
        try:
            dice = [Die(int(owner), int(pips), int(x), int(y)) for owner, pips, x, y in data["dice"]]
            to_move, ply, rules = int(data["to_move"]), int(data["ply"]), self.rules(data.get("options", {}))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidPosition("cubeo-stored-data", error=repr(error)) from None
        return self._checked_state(dice, to_move, ply, rules)


def _connected(cells: set[Cell]) -> bool:
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in SIDES:
            other = (x + dx, y + dy)
            if other in cells and other not in seen:
                seen.add(other)
                todo.append(other)
    return len(seen) == len(cells)


GAME = Cubeo()


def _listed(items: list[str]) -> Fact | str:
    """Cells or moves listed for a reader (``0,1; 0,-1``), parted as the reader's language parts
    a list whose items hold commas."""
    if len(items) < 2:
        return items[0] if items else ""
    return Fact("cubeo-list", first=items[0], rest=_listed(items[1:]))
