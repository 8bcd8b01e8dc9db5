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

from collections.abc import Hashable, Sequence
from random import Random

from pbm.bots.search import Reward, share
from pbm.games.cephalopod import EMPTY, GAME, State, _next_seat, _tables

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
        values = list(position.values)
        owners = list(position.owners)
        neighbours = tables.neighbours
        neighbour_values = tables.neighbour_values
        masks_of = tables.masks
        captured = tables.captured
        in_play = position.in_play
        following = {seat: _next_seat(in_play, seat) for seat in in_play}
        seat = position.to_move
        ply = position.ply
        random, choice = rng.random, rng.choice
        empties = [i for i, value in enumerate(values) if not value]
        where = [-1] * tables.cells
        masks_at: list[tuple[int, ...]] = [()] * tables.cells
        capturable: set[int] = set()
        for place, i in enumerate(empties):
            where[i] = place
            masks = masks_at[i] = masks_of(neighbour_values[i](values))
            if masks:
                capturable.add(i)
        while True:
            if capturable and random() < greedy:
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
                i, mask = choice(chosen)
            else:
                i = choice(empties)
                masks = masks_at[i]
                mask = choice(masks) if masks else 0
            if not mask and len(empties) == 1 and len(in_play) > 2:
                # This die fills the board of a multi-player game: the engine's tie rule decides
                # who is out, and the playout goes on from the position it leaves.
                before = State(
                    position.size, position.dice, position.players, in_play, seat, ply, tuple(values), tuple(owners)
                )
                position = GAME.apply(before, tables.texts[i][0])
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
                held = [0] * position.players
                for owner in owners:
                    held[owner] += 1
                most = max(held)
                return share(position.players, [s for s, count in enumerate(held) if count == most])
            for k in changed:
                if not values[k]:
                    masks = masks_at[k] = masks_of(neighbour_values[k](values))
                    if masks:
                        capturable.add(k)
                    else:
                        capturable.discard(k)
            seat = following[seat]
