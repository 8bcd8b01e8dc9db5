"""Stones: a fourth game, as a club would add one, in a few lines.

Two players take turns placing a stone of their own on an empty cell of a 3x3
board (cells a1 to c3); three in a row, a column or a diagonal wins, and a full
board without one is a tie. It is registered through the ``pbm.games`` entry
point of a package in ``tests/plugins/site`` and touches nothing else of pbm.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pbm.facts import Catalogue, Fact
from pbm.games import STONE, BoardCell, Game, IllegalMove, InvalidPosition, Result

CELLS = [f"{column}{row}" for row in "321" for column in "abc"]
"""The cells, top row first, as the board is drawn."""
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
MARKS = ".xo"


@dataclass(frozen=True)
class State:
    stones: tuple[int | None, ...]
    to_move: int
    ply: int


class Stones(Game[State]):
    name: ClassVar[str] = "stones"
    title: ClassVar[str] = "Stones"
    designer: ClassVar[str] = "the pbm test suite"
    seat_names: ClassVar[tuple[str, ...]] = ("Black", "White")
    help_text: ClassVar[str] = "Stones\n======\n\nPlace a stone on an empty cell (a1 to c3). Three in a line wins.\n"
    messages: ClassVar[Catalogue] = {
        "stones-not-a-position": "a position is nine of . x o, top row first",
        "stones-not-an-empty-cell": "{text!r} is not an empty cell: {cells}",
        "stones-three-in-a-row": "won with three in a row",
        "stones-board-full": "tied: the board is full",
    }

    def new(self, players: int = 2, options: Mapping[str, Any] | None = None, seed: bytes | None = None) -> State:
        return State((None,) * 9, 0, 0)

    def from_position(self, position: str, options: Mapping[str, Any] | None = None) -> State:
        if len(position) != 9 or set(position) - set(MARKS):
            raise InvalidPosition("stones-not-a-position")
        stones = tuple(MARKS.index(mark) - 1 if mark != "." else None for mark in position)
        return State(stones, sum(s is not None for s in stones) % 2, sum(s is not None for s in stones))

    def to_position(self, state: State) -> str:
        return "".join(MARKS[s + 1] if s is not None else "." for s in state.stones)

    def legal_moves(self, state: State) -> list[str]:
        return [] if self.result(state) else [cell for cell, s in zip(CELLS, state.stones) if s is None]

    def parse_move(self, state: State, text: str) -> str:
        move = text.strip().lower()
        if move not in self.legal_moves(state):
            raise IllegalMove("stones-not-an-empty-cell", text=text.strip(), cells=", ".join(self.legal_moves(state)))
        return move

    def apply(self, state: State, move: str) -> State:
        stones = list(state.stones)
        stones[CELLS.index(move)] = state.to_move
        return State(tuple(stones), 1 - state.to_move, state.ply + 1)

    def result(self, state: State) -> Result | None:
        for a, b, c in LINES:
            if state.stones[a] is not None and state.stones[a] == state.stones[b] == state.stones[c]:
                return Result([state.stones[a]], "three-in-a-row", Fact("stones-three-in-a-row"))
        if None not in state.stones:
            return Result([0, 1], "full", Fact("stones-board-full"))
        return None

    def render(self, state: State, viewer: int | None = None) -> str:
        rows = [self.to_position(state)[i : i + 3] for i in (0, 3, 6)]
        return "\n".join(f"{3 - i}  {' '.join(row)}" for i, row in enumerate(rows)) + "\n   a b c"

    def cells(self, state: State) -> list[BoardCell]:
        return [
            BoardCell(i % 3, 2 - i // 3, name[0], name[1], name, owner=s, piece=STONE if s is not None else None)
            for i, (name, s) in enumerate(zip(CELLS, state.stones))
        ]

    def dump(self, state: State) -> dict[str, Any]:
        return {"position": self.to_position(state)}

    def load(self, data: Mapping[str, Any], secret: bytes | None = None) -> State:
        return self.from_position(data["position"])


GAME = Stones()
