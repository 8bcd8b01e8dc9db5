"""The ladder's seconds a move are CPU time, which a busy machine does not inflate, and a run added
to a table timed by the wall clock replaces its seconds rather than averaging two clocks."""

from __future__ import annotations

import pytest

from benchmarks import ladder


def played(seats: tuple[int, int], cpu: float, wall: float, moves: int = 10) -> ladder.Played:
    """A game of `moves` moves a seat, each seat `cpu` and `wall` seconds a move."""
    return ladder.Played(
        "cephalopod", seats, 1.0, 2 * moves, (cpu * moves,) * 2, (wall * moves,) * 2, (moves,) * 2, False
    )


def test_a_ladder_game_counts_the_cpu_time_of_its_choices_beside_the_wall_clocks():
    one = ladder.play(ladder.Game("cephalopod", (0, 1), number=0, max_plies=300))
    assert sum(one.moves) == one.plies > 0
    assert all(0 < cpu <= wall * 1.05 + 0.01 for cpu, wall in zip(one.seconds, one.wall))


def test_a_table_says_its_clock_and_keeps_both_figures():
    table = ladder.ladder([played((0, 1), cpu=0.1, wall=0.3), played((1, 0), cpu=0.1, wall=0.3)])
    assert table["clock"] == ladder.CPU
    assert table["seconds_per_move"]["1"] == pytest.approx(0.1)
    assert table["wall_seconds_per_move"]["1"] == pytest.approx(0.3)
    row = next(row for row in table["levels"] if row["level"] == 1)
    assert row["seconds_per_move"] == pytest.approx(0.1) and row["wall_seconds_per_move"] == pytest.approx(0.3)


def test_added_games_weigh_their_cpu_seconds_with_the_stored_ones_by_games():
    stored = ladder.ladder([played((0, 1), cpu=0.1, wall=0.2)] * 3)
    new = ladder.ladder([played((1, 0), cpu=0.5, wall=0.9)])
    both = ladder.merged(stored, new)
    assert both["seconds_per_move"]["1"] == pytest.approx((3 * 0.1 + 0.5) / 4, abs=1e-4)
    assert both["wall_seconds_per_move"]["1"] == pytest.approx((3 * 0.2 + 0.9) / 4, abs=1e-4)
    assert both["games"] == 4


def test_games_added_to_a_wall_clock_table_give_it_their_cpu_seconds():
    stored = ladder.ladder([played((0, 1), cpu=0.1, wall=0.2)] * 3)
    del stored["clock"], stored["wall_seconds_per_move"]
    stored["seconds_per_move"] = {"0": 0.0, "1": 0.7}  # what the wall clock said on a busy day
    both = ladder.merged(stored, ladder.ladder([played((1, 0), cpu=0.5, wall=0.9)]))
    assert both["clock"] == ladder.CPU and both["games"] == 4
    assert both["seconds_per_move"]["1"] == pytest.approx(0.5)
    assert both["wall_seconds_per_move"]["1"] == pytest.approx(0.9)
