"""The searches every game's bot shares: UCT with a transposition table, and an exact endgame search.

Both work on a *rules adapter* (`Rules`): a game's positions and moves as the search needs them,
which each game's module in `pbm.bots` provides. A position is any immutable value; a move is
whatever the adapter likes (a canonical string, a small tuple), turned into the game's notation
only once chosen.

Rewards are vectors, one share per seat of the game, summing to 1: a win is 1 for the winner,
a tie shares the 1 among those tied, and an evaluation of an unfinished game says how likely
each seat is to win. With two players this is ordinary UCT; with more, each player picks what
is best for itself (max^n), which is how the multi-player game is actually played.

The search is counted in *iterations*, never in seconds, so a seeded search is reproducible on
any machine; `deadline` is only a safety net that a sane budget never reaches.

The tree is a transposition table: positions reached by different orders of the same moves
share one node (Cephalopod reaches most positions many ways). Statistics live on the edges of a
node, so a shared child does not mix up its parents' counts. Moves of chance (a Dodeca reroll)
are edges like any other, but the position after one is drawn afresh on each visit.

*MCTS-solver*: a position whose value is known for certain (the game ended, or every move was
proven, or one move is proven to win) is marked as *proven*, and its value climbs the tree, so
the search stops sampling what it has already worked out and plays a won ending without error.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol

Reward = tuple[float, ...]
"""A share of the win per seat, summing to 1."""


def share(seats: int, winners: Sequence[int]) -> Reward:
    """The win shared among `winners`: ``share(3, [0, 2])`` is ``(0.5, 0.0, 0.5)``."""
    part = 1.0 / len(winners)
    return tuple(part if seat in winners else 0.0 for seat in range(seats))


class Rules(Protocol):
    """What a search needs to know of a game (see each game's adapter in `pbm.bots`)."""

    def seats(self, position: Any) -> int:
        """The length of a reward vector: every seat the game started with."""

    def mover(self, position: Any) -> int:
        """The seat to move."""

    def key(self, position: Any) -> Hashable:
        """What identifies the position for the transposition table."""

    def moves(self, position: Any) -> Sequence[Any]:
        """The legal moves, in a fixed order (the search's randomness comes from its own source)."""

    def play(self, position: Any, move: Any, rng: Random) -> Any:
        """The position after `move`; `rng` draws whatever chance decides (rerolled dice)."""

    def is_chance(self, move: Any) -> bool:
        """Whether the position after `move` is drawn by chance (then it is never proven)."""

    def outcome(self, position: Any) -> Reward | None:
        """The reward of a finished game, ``None`` while it goes on."""

    def winning_move(self, position: Any, moves: Sequence[Any]) -> int | None:
        """The index in `moves` of a move that wins at once, if the game has a cheap way to tell."""

    def notation(self, move: Any) -> str:
        """The move in the game's own notation, as its engine's `play` accepts it."""

    def policy(self, position: Any, rng: Random) -> Any:
        """One move chosen as a playout chooses: quick, and better than at random."""

    def rollout(self, position: Any, rng: Random) -> Reward:
        """An estimate of the reward from an unfinished position: a playout, truncated or not."""


WIN = 1.0
"""No reward share is better than this: a move proven to give it is played at once."""


@dataclass(slots=True)
class Node:
    """A position in the tree, with one set of statistics per legal move."""

    mover: int
    moves: Sequence[Any]
    visits: int = 0
    edge_visits: list[int] = field(default_factory=list)
    edge_reward: list[list[float]] = field(default_factory=list)
    edge_proven: list[Reward | None] = field(default_factory=list)
    children: list[Node | None] = field(default_factory=list)
    proven: Reward | None = None


@dataclass
class Search:
    """One UCT search from one position.

    `exploration` is UCT's constant; `rollout` overrides the adapter's (a weaker level uses
    plain random playouts).
    """

    rules: Rules
    rng: Random
    exploration: float = 0.7
    rollout: Callable[[Any, Random], Reward] | None = None
    table: dict[Hashable, Node] = field(default_factory=dict)

    def node(self, position: Any) -> Node:
        rules = self.rules
        moves = list(rules.moves(position))
        count = len(moves)
        seats = rules.seats(position)
        mover = rules.mover(position)
        node = Node(
            mover,
            moves,
            edge_visits=[0] * count,
            edge_reward=[[0.0] * seats for _ in range(count)],
            edge_proven=[None] * count,
            children=[None] * count,
        )
        winning = rules.winning_move(position, moves)
        if winning is not None:
            # Proven on sight: without this, the search finds the opponent's winning reply to a
            # careless move only after trying most of the replies, a few visits each.
            node.proven = node.edge_proven[winning] = tuple(WIN if seat == mover else 0.0 for seat in range(seats))
        return node

    def run(self, root_position: Any, iterations: int, deadline: float | None = None) -> tuple[Node, int]:
        """Search `iterations` times (or until `deadline`, a `time.monotonic` value); returns the
        root and the iterations done."""
        rules = self.rules
        rollout = self.rollout or rules.rollout
        root = self.table.setdefault(rules.key(root_position), self.node(root_position))
        done = 0
        while done < iterations and root.proven is None:
            if deadline is not None and done % 16 == 0 and time.monotonic() > deadline:
                break
            done += 1
            position, node = root_position, root
            path: list[tuple[Node, int]] = []
            on_path = {id(root)}
            while True:
                if node.proven is not None:
                    reward = node.proven
                    break
                index = self._select(node)
                path.append((node, index))
                move = node.moves[index]
                proven = node.edge_proven[index]
                if proven is not None:
                    reward = proven
                    break
                position = rules.play(position, move, self.rng)
                finished = rules.outcome(position)
                if finished is not None:
                    reward = finished
                    if not rules.is_chance(move):
                        node.edge_proven[index] = finished
                    break
                key = rules.key(position)
                child = self.table.get(key)
                if child is None:
                    child = self.table[key] = self.node(position)
                    if not rules.is_chance(move):
                        node.children[index] = child
                    reward = child.proven if child.proven is not None else rollout(position, self.rng)
                    break
                if not rules.is_chance(move):
                    node.children[index] = child
                if id(child) in on_path:
                    # Back where this descent has been (a die moved there and back): the
                    # statistics would send it round forever, so estimate from here instead.
                    reward = rollout(position, self.rng)
                    break
                on_path.add(id(child))
                node = child
            self._back_up(path, reward)
        return root, done

    def _select(self, node: Node) -> int:
        visits = node.edge_visits
        unvisited = [i for i, n in enumerate(visits) if n == 0 and node.edge_proven[i] is None]
        if unvisited:
            return self.rng.choice(unvisited)
        mover = node.mover
        scale = self.exploration * math.sqrt(math.log(node.visits + 1))
        best, best_score = 0, -math.inf
        for i, n in enumerate(visits):
            proven = node.edge_proven[i]
            if proven is not None:
                score = proven[mover]  # known exactly: nothing to explore
            else:
                score = node.edge_reward[i][mover] / n + scale / math.sqrt(n)
            if score > best_score:
                best, best_score = i, score
        return best

    def _back_up(self, path: list[tuple[Node, int]], reward: Reward) -> None:
        newly_proven = True
        for node, index in reversed(path):
            node.visits += 1
            node.edge_visits[index] += 1
            total = node.edge_reward[index]
            for seat, share in enumerate(reward):
                total[seat] += share
            if newly_proven and node.proven is None:
                newly_proven = self._prove(node)
            else:
                newly_proven = False

    @staticmethod
    def _prove(node: Node) -> bool:
        """Mark `node` proven if its moves' proofs decide it; says whether it did."""
        mover = node.mover
        best: Reward | None = None
        complete = True
        for i, child in enumerate(node.children):
            value = node.edge_proven[i]
            if value is None and child is not None and child.proven is not None:
                value = node.edge_proven[i] = child.proven
            if value is None:
                complete = False
                continue
            if value[mover] >= WIN:
                node.proven = value
                return True
            if best is None or value[mover] > best[mover]:
                best = value
        if complete and best is not None:
            node.proven = best
            return True
        return False


def best_move(node: Node) -> int:
    """The index of the move to play after a search: a proven best, else the most visited move
    that is not proven to lose."""
    mover = node.mover
    if node.proven is not None:
        for i, value in enumerate(node.edge_proven):
            if value is not None and value[mover] >= node.proven[mover]:
                return i
    candidates = [i for i, value in enumerate(node.edge_proven) if value is None or value[mover] > 0]
    if not candidates:
        candidates = list(range(len(node.moves)))

    def merit(i: int) -> tuple[float, float]:
        value = node.edge_proven[i]
        if value is not None:
            return (math.inf if value[mover] >= WIN else node.edge_visits[i], value[mover])
        n = node.edge_visits[i]
        return (n, node.edge_reward[i][mover] / n if n else 0.0)

    return max(candidates, key=merit)


class OutOfNodes(Exception):
    """The exact search met its node budget before it finished."""


def solve(rules: Rules, position: Any, budget: int) -> tuple[Reward, int] | None:
    """The exact value of `position` and the index of a move reaching it, or ``None`` when the
    game from here needs more than `budget` positions to search (or has chance in it).

    max^n: each seat maximises its own share (ties broken by move order, as the caller's list gives
    them), and a move that wins outright cuts the rest off. With two players and win, loss or
    tie as the only values this is alpha-beta with every window the widest: the only cut-off
    that can happen is a win. Every position's value is exact, so the table keeps them all.
    """
    counter = [budget]
    table: dict[Hashable, Reward] = {}

    def visit() -> None:
        counter[0] -= 1
        if counter[0] < 0:
            raise OutOfNodes

    def max_n(position: Any) -> tuple[Reward, int]:
        visit()
        key = rules.key(position)
        moves = rules.moves(position)
        mover = rules.mover(position)
        best: Reward | None = None
        best_index = 0
        for index, move in enumerate(moves):
            if rules.is_chance(move):
                raise OutOfNodes
            after = rules.play(position, move, _NO_CHANCE)
            value = rules.outcome(after)
            if value is None:
                after_key = rules.key(after)
                value = table.get(after_key)
                if value is None:
                    value = max_n(after)[0]
                    table[after_key] = value
            if best is None or value[mover] > best[mover]:
                best, best_index = value, index
                if value[mover] >= WIN:
                    break
        assert best is not None, key  # an unfinished game has a move
        return best, best_index

    try:
        return max_n(position)
    except OutOfNodes:
        return None


class _NoChance(Random):
    """The random source of an exact search: it never needs one, and says so if asked."""

    def random(self) -> float:
        raise OutOfNodes


_NO_CHANCE = _NoChance(0)
