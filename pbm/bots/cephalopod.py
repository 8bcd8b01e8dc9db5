"""Cephalopod for the searches: the engine's states, and fast playouts on a mutable board.

A position is the engine's own `State` (immutable, cheap to make): the tree stores one per node
and the engine's `apply` keeps every move the tree plays checked. Playouts, where nearly all the
time goes, place and lift dice on two lists with the engine's per-size tables (the capture sets
of each cell by the pips around it, worked out once), as the engine's `perft` does.

The *better playout* prefers captures: a capture takes dice off the board for good and decides
more games than any quiet move, and a player who can capture enemy dice almost always should.
With probability `GREEDY` a playout move is the capture taking the most enemy dice (ties
randomly); otherwise it is a uniformly random legal move, so the playouts stay varied.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from random import Random

from pbm.bots.search import OutOfNodes, Reward, share, solve
from pbm.games.cephalopod import EMPTY, GAME, State, _next_seat, _Tables, _tables

GREEDY = 0.8


class CephalopodRules:
    """The `pbm.bots.search.Rules` of Cephalopod, for any size, die and number of players."""

    def __init__(self, greedy: float = GREEDY) -> None:
        self.greedy = greedy

    def seats(self, position: State) -> int:
        return position.players

    def mover(self, position: State) -> int:
        return position.to_move

    def key(self, position: State) -> Hashable:
        return (position.values, position.owners, position.to_move, position.in_play)

    def moves(self, position: State) -> Sequence[str]:
        return GAME.legal_moves(position)

    def play(self, position: State, move: str, rng: Random) -> State:
        return GAME.apply(position, move)

    def is_chance(self, move: str) -> bool:
        return False

    def outcome(self, position: State) -> Reward | None:
        result = GAME.result(position)
        if result is None:
            return None
        return share(position.players, result.winners)

    def small_enough(self, position: State, empties: int) -> bool:
        """Whether few enough cells are left empty for the exact endgame search to try."""
        return position.values.count(0) <= empties

    def endgame(self, position: State, budget: int) -> str | None:
        """A move keeping the exact value of `position` if it is won or tied and the search proves
        it within `budget` positions; ``None`` otherwise (a lost position is left to the tree
        search, whose most visited move gives a fallible opponent the most chances to go wrong).

        Two players in play: alpha-beta (`Endgame`); more: max^n (`pbm.bots.search.solve`)."""
        if len(position.in_play) == 2:
            try:
                score, move = Endgame(position, budget).solve()
            except OutOfNodes:
                return None
            return None if score == LOST else move
        solved = solve(self, position, budget)
        if solved is None or solved[0][position.to_move] == 0.0:
            return None
        return self.moves(position)[solved[1]]

    def winning_move(self, position: State, moves: Sequence[str]) -> int | None:
        return None  # only the move that fills the board can win, and the search sees that one

    def notation(self, move: str) -> str:
        return move

    def rollout(self, position: State, rng: Random) -> Reward:
        return playout(position, rng, self.greedy)

    def policy(self, position: State, rng: Random) -> str:
        """One move as a playout would choose it: the best capture of enemy dice, else at random."""
        tables = _tables(position.size, position.dice)
        moves = GAME.legal_moves(position)
        gains: list[tuple[int, str]] = []
        for move in moves:
            i, mask = tables.decode[move]
            if mask:
                taken = tables.captured[i][mask]
                gains.append((sum(1 if position.owners[j] != position.to_move else -1 for j in taken), move))
        if gains and rng.random() < self.greedy:
            best = max(gain for gain, _ in gains)
            return rng.choice([move for gain, move in gains if gain == best])
        return rng.choice(moves)


def playout(position: State, rng: Random, greedy: float) -> Reward:
    """Play `position` to the end, preferring captures with probability `greedy`.

    A random move is a random empty cell, then a random capture set there (if any): not quite
    uniform over moves, but it needs no list of every move. Only the cells around the last
    move change their capture sets, so only those are worked out again each ply.
    """
    while True:
        tables = _tables(position.size, position.dice)
        values, owners = list(position.values), list(position.owners)
        neighbours, captured = tables.neighbours, tables.captured
        in_play = position.in_play
        following = {seat: _next_seat(in_play, seat) for seat in in_play}
        seat, ply = position.to_move, position.ply
        random, choice = rng.random, rng.choice
        empties, where, masks_at, capturable = _empty_cells(tables, values)
        while True:
            if capturable and random() < greedy:
                i, mask = choice(_best_captures(capturable, masks_at, captured, owners, seat))
            else:
                i = choice(empties)
                masks = masks_at[i]
                mask = choice(masks) if masks else 0
            if not mask and len(empties) == 1 and len(in_play) > 2:
                # This die fills the board of a multi-player game: the engine's tie rule decides
                # who is out, and the playout goes on from the position it leaves.
                position = GAME.apply(
                    State(
                        position.size, position.dice, position.players, in_play, seat, ply, tuple(values), tuple(owners)
                    ),
                    tables.texts[i][0],
                )
                result = GAME.result(position)
                if result is not None:
                    return share(position.players, result.winners)
                break
            # The die goes on i: i leaves the empty cells (the last one takes its place).
            last = empties.pop()
            if last != i:
                empties[where[i]] = last
                where[last] = where[i]
            capturable.discard(i)
            changed = list(neighbours[i])
            total = 0
            for j in captured[i][mask]:
                total += values[j]
                values[j] = 0
                owners[j] = EMPTY
                where[j] = len(empties)
                empties.append(j)
                changed.append(j)
                changed.extend(neighbours[j])
            values[i] = total or 1
            owners[i] = seat
            ply += 1
            if not empties:
                return _full_board(position.players, owners)
            _rework(tables, changed, values, masks_at, capturable)
            seat = following[seat]


def _empty_cells(tables: _Tables, values: list[int]) -> tuple[list[int], list[int], list[tuple[int, ...]], set[int]]:
    """What a playout keeps of the empty cells: the cells, where each is in that list, the capture
    masks at each, and those with a capture."""
    empties = [i for i, value in enumerate(values) if not value]
    where = [-1] * tables.cells
    masks_at: list[tuple[int, ...]] = [()] * tables.cells
    capturable: set[int] = set()
    for place, i in enumerate(empties):
        where[i] = place
        masks = masks_at[i] = tables.masks(tables.neighbour_values[i](values))
        if masks:
            capturable.add(i)
    return empties, where, masks_at, capturable


def _rework(
    tables: _Tables, changed: list[int], values: list[int], masks_at: list[tuple[int, ...]], capturable: set[int]
) -> None:
    """The capture masks of the `changed` cells that are empty, and whether each has a capture, worked out again."""
    masks_of, neighbour_values = tables.masks, tables.neighbour_values
    for k in changed:
        if not values[k]:
            masks = masks_at[k] = masks_of(neighbour_values[k](values))
            if masks:
                capturable.add(k)
            else:
                capturable.discard(k)


def _best_captures(
    capturable: set[int],
    masks_at: list[tuple[int, ...]],
    captured: Sequence[Sequence[Sequence[int]]],
    owners: list[int],
    seat: int,
) -> list[tuple[int, int]]:
    """The (cell, mask) captures taking the most enemy dice less own dice, for `seat` to choose among."""
    best, chosen = -99, []
    for i in capturable:
        for mask in masks_at[i]:
            gain = 0
            for j in captured[i][mask]:
                gain += 1 if owners[j] != seat else -1
            if gain > best:
                best, chosen = gain, [(i, mask)]
            elif gain == best:
                chosen.append((i, mask))
    return chosen


def _full_board(players: int, owners: list[int]) -> Reward:
    """A full board's reward: a share for each player holding the most dice."""
    held = [0] * players
    for owner in owners:
        held[owner] += 1
    most = max(held)
    return share(players, [s for s, count in enumerate(held) if count == most])


WON, TIED, LOST = 1, 0, -1
"""An exact endgame's scores, for the player to move."""
ENDGAME_PLIES = 200
"""The deepest line the endgame search follows before it gives up: captures can keep an endgame
going for long, and each move is two frames of Python's stack, which holds a thousand."""
_EXACT, _AT_LEAST, _AT_MOST = 0, 1, 2
"""What a transposition-table entry's score says: the value itself, or a bound of it."""


@functools.cache
def _zobrist(cells: int, seats: int, dice: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """One fixed random 64-bit number per (cell, owner, pips): a position's key is the XOR of its dice's."""
    rng = Random(f"cephalopod zobrist {cells} {seats} {dice}")
    return tuple(tuple(tuple(rng.getrandbits(64) for _ in range(dice + 1)) for _ in range(seats)) for _ in range(cells))


class Endgame:
    """The exact value of a Cephalopod position with two players in play, by alpha-beta search.

    Scores are won, tied or lost for the player to move (`WON`, `TIED`, `LOST`), so any win
    cuts off its siblings at once: with the full window the search is a proof that a win exists
    or that none does. Positions recur through different orders of moves and through captures
    that empty cells again, so a transposition table (Zobrist keys, kept incrementally) stores
    each position's score or bound and the move that decided it, tried first on a second visit
    (see `_ordered` for the rest of the order). The board is two mutable lists, dice placed and
    lifted back as in `playout`: about 5 microseconds a position on one core.

    The search counts the positions it expands and raises `OutOfNodes` past `budget`.
    """

    def __init__(self, position: State, budget: int) -> None:
        if len(position.in_play) != 2:
            raise ValueError("the endgame search is for two players in play")
        tables = self.tables = _tables(position.size, position.dice)
        self.values = list(position.values)
        self.owners = list(position.owners)
        self.empty = self.values.count(0)
        self.zobrist = _zobrist(tables.cells, position.players, position.dice)
        self.turn = tuple(pips[0] for pips in _zobrist(1, position.players, 0)[0])  # who is to move
        self.held = [0] * position.players
        self.key = 0
        for i, owner in enumerate(self.owners):
            if owner != EMPTY:
                self.held[owner] += 1
                self.key ^= self.zobrist[i][owner][self.values[i]]
        self.seat = position.to_move
        first, second = position.in_play
        self.other = {first: second, second: first}
        self.budget = budget
        self.table: dict[int, tuple[int, int, tuple[int, int] | None]] = {}
        self.plies = 0
        """How deep the search is now, in moves from the position searched."""
        self.history: dict[tuple[int, int], int] = {}
        """How many times each move cut the search off (the history heuristic): a move that refutes
        one line of play often refutes its neighbours too."""

    def solve(self) -> tuple[int, str]:
        """The score of the position for the player to move, and a move that reaches it."""
        score, move = self._search(self.seat, LOST, WON)
        assert move is not None  # an unfinished game has a move
        i, mask = move
        return score, self.tables.texts[i][mask]

    def _search(self, seat: int, alpha: int, beta: int) -> tuple[int, tuple[int, int] | None]:
        self.budget -= 1
        if self.budget < 0:
            raise OutOfNodes
        key = self.key ^ self.turn[seat]
        known = self.table.get(key)
        first = None
        if known is not None:
            score, bound, first = known
            if bound == _EXACT or (bound == _AT_LEAST and score >= beta) or (bound == _AT_MOST and score <= alpha):
                return score, first
        floor = alpha
        best, best_move = LOST - 1, None
        for move in self._ordered(seat, first):
            score = self._after(seat, move, alpha, beta)
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self.history[move] = self.history.get(move, 0) + 1
                        break
        bound = _AT_MOST if best <= floor else _AT_LEAST if best >= beta else _EXACT
        self.table[key] = (best, bound, best_move)
        return best, best_move

    def _after(self, seat: int, move: tuple[int, int], alpha: int, beta: int) -> int:
        """The score for `seat` of playing `move`: the die placed, searched from, and lifted again."""
        i, mask = move
        tables, values, owners, held = self.tables, self.values, self.owners, self.held
        zobrist = self.zobrist
        lifted = []
        total = 0
        for j in tables.captured[i][mask]:
            value, owner = values[j], owners[j]
            lifted.append((j, value, owner))
            total += value
            self.key ^= zobrist[j][owner][value]
            held[owner] -= 1
            values[j], owners[j] = 0, EMPTY
        placed = total or 1
        values[i], owners[i] = placed, seat
        self.key ^= zobrist[i][seat][placed]
        held[seat] += 1
        self.empty += len(lifted) - 1
        other = self.other[seat]
        if self.empty:
            self.plies += 1
            if self.plies > ENDGAME_PLIES:
                raise OutOfNodes  # the board is left as it is: this search is over
            score = -self._search(other, -beta, -alpha)[0]
            self.plies -= 1
        else:
            score = WON if held[seat] > held[other] else TIED if held[seat] == held[other] else LOST
        self.empty -= len(lifted) - 1
        held[seat] -= 1
        self.key ^= zobrist[i][seat][placed]
        values[i], owners[i] = 0, EMPTY
        for j, value, owner in lifted:
            values[j], owners[j] = value, owner
            held[owner] += 1
            self.key ^= zobrist[j][owner][value]
        return score

    def _ordered(self, seat: int, first: tuple[int, int] | None) -> list[tuple[int, int]]:
        """The legal moves, most promising first: the table's best move; then the quiet moves,
        which bring the end one cell nearer (captures empty cells again and make the proof
        longer: quiet first settled 10 of 15 endgames of three empty cells within 10 000
        positions, captures first 6); then captures by the cells they gain `seat` over its
        opponent (two enemy dice taken gain 3, two of its own lose 1); ties by how often each
        move cut the search off before (the history heuristic)."""
        tables, values, owners, history = self.tables, self.values, self.owners, self.history
        captured, masks_of, neighbour_values = tables.captured, tables.masks, tables.neighbour_values
        ranked: list[tuple[int, int, int, int]] = []
        for i, value in enumerate(values):
            if value:
                continue
            masks = masks_of(neighbour_values[i](values))
            if not masks:
                ranked.append((-99, -history.get((i, 0), 0), i, 0))
            for mask in masks:
                gain = 1
                for j in captured[i][mask]:
                    gain += 1 if owners[j] != seat else -1
                ranked.append((-gain, -history.get((i, mask), 0), i, mask))
        ranked.sort()
        moves = [(i, mask) for _, _, i, mask in ranked]
        if first is not None:
            moves.remove(first)
            moves.insert(0, first)
        return moves
