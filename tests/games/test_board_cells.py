"""`Game.cells`: the board as data for the web page, saying what `render` draws."""

from __future__ import annotations

import random
import re

import pytest

import pbm.games
from pbm.games import cephalopod, cubeo, dodeca


def playout(name: str, seed: int, *, players: int = 2, options: dict | None = None, limit: int = 60):
    """States along a random game (the start included)."""
    engine = pbm.games.get(name)
    chooser = random.Random(seed)
    state = engine.new(players=players, options=options or {}, seed=bytes([seed]) * 32)
    states = [state]
    while engine.result(state) is None and len(states) < limit:
        state = engine.play(state, chooser.choice(engine.legal_moves(state)))
        states.append(state)
    return states


def _every_game() -> list:
    """Each registered game as challenged plainly, and with more players and every option set."""
    found = []
    for engine in pbm.games.all_games():
        found.append(pytest.param(engine.name, engine.min_players, {}, id=engine.name))
        options = {o.name: True if o.is_flag else o.choices[-1] for o in engine.options}
        players = min(engine.max_players, 4)
        if options or players != engine.min_players:
            found.append(pytest.param(engine.name, players, options, id=f"{engine.name}-{players}-all-options"))
    return found


GAMES = _every_game()


@pytest.mark.parametrize(("name", "players", "options"), GAMES)
def test_cells_fill_a_rectangle_top_row_first_and_left_to_right(name, players, options):
    engine = pbm.games.get(name)
    for state in playout(name, 3, players=players, options=options):
        cells = engine.cells(state)
        xs = sorted({c.x for c in cells})
        ys = sorted({c.y for c in cells}, reverse=True)
        assert [(c.x, c.y) for c in cells] == [(x, y) for y in ys for x in xs]
        assert xs == list(range(xs[0], xs[-1] + 1))
        assert ys == list(range(ys[0], ys[-1] - 1, -1))


@pytest.mark.parametrize(("name", "players", "options"), GAMES)
def test_a_cell_carries_all_of_its_piece_and_an_empty_one_nothing(name, players, options):
    engine = pbm.games.get(name)
    for state in playout(name, 5, players=players, options=options):
        for cell in engine.cells(state):
            held = (cell.owner, cell.value, cell.sides)
            if cell.piece == pbm.games.DIE:
                assert None not in held
            elif cell.piece == pbm.games.STONE:
                assert cell.owner is not None and (cell.value, cell.sides) == (None, None)
            elif cell.piece == pbm.games.MARKER:
                assert cell.label
            else:
                assert cell.piece is None and held == (None, None, None) and cell.label is None
            assert 0 <= (cell.owner or 0) < players


@pytest.mark.parametrize("seed", range(4))
def test_cephalopod_cells_hold_the_dice_the_state_has_on_those_cells(seed):
    engine = cephalopod.GAME
    for state in playout("cephalopod", seed, players=3, options={"size": 6}):
        for cell in engine.cells(state):
            die = state.die_at(cell.name)
            assert (cell.owner, cell.value) == ((die.seat, die.value) if die else (None, None))
            assert cell.column + cell.row == cell.name.upper()


@pytest.mark.parametrize("seed", range(4))
def test_cephalopod_cells_draw_the_board_render_draws(seed):
    engine = cephalopod.GAME
    for state in playout("cephalopod", seed):
        cells = engine.cells(state)
        drawn = [
            f"{cephalopod.MARKS[c.owner][0]}{c.value}{cephalopod.MARKS[c.owner][1]}" if c.value else "..."
            for c in cells
        ]
        rows = [line[3:-3].split(" ") for line in engine.render(state).splitlines()[1:-1]]
        assert drawn == [mark for row in rows for mark in row]


def test_cephalopod_cells_say_the_dice_have_twelve_sides_with_dice_12():
    state = cephalopod.GAME.from_position("b12a3./.../a1.. b", {"dice": 12})
    sides = {cell.sides for cell in cephalopod.GAME.cells(state) if cell.value}
    assert sides == {12}


@pytest.mark.parametrize("seed", range(3))
def test_dodeca_cells_name_each_die_with_its_kind_sides_and_face(seed):
    engine = dodeca.GAME
    for state in playout("dodeca", seed):
        cells = engine.cells(state)
        assert len(cells) == 100
        for cell in cells:
            die = state.die_at(cell.name)
            if die is None:
                assert cell.kind is None
            else:
                assert (cell.owner, cell.kind, cell.sides, cell.value) == (
                    die.seat,
                    die.kind.name,
                    die.kind.sides,
                    die.face,
                )


def test_dodeca_cells_label_columns_a_to_j_and_rows_10_down_to_1():
    cells = dodeca.GAME.cells(dodeca.GAME.new(seed=bytes(32)))
    assert [c.column for c in cells[:10]] == list("abcdefghij")
    assert [c.row for c in cells[::10]] == [str(r) for r in range(10, 0, -1)]


def test_cubeo_cells_keep_absolute_coordinates_when_the_formation_drifts():
    state = cubeo.GAME.from_position("1:1@5,-3 2:2@6,-3 1:1@5,-4 / 2 / 3")
    cells = cubeo.GAME.cells(state)
    dice = {c.name: (c.owner, c.value) for c in cells if c.value}
    assert dice == {"5,-3": (0, 1), "6,-3": (1, 2), "5,-4": (0, 1)}
    assert {c.x for c in cells} == {4, 5, 6, 7}
    assert {c.y for c in cells} == {-2, -3, -4, -5}
    assert all(c.name == f"{c.x},{c.y}" == f"{c.column},{c.row}" for c in cells)


@pytest.mark.parametrize("seed", range(4))
def test_cubeo_cells_show_the_dice_render_shows(seed):
    engine = cubeo.GAME
    for state in playout("cubeo", seed):
        cells = engine.cells(state)
        assert {(c.x, c.y): (c.owner, c.value) for c in cells if c.value} == {
            die.cell: (die.owner, die.pips) for die in state.dice
        }
        marks = [cubeo.MARKS[c.owner].format(c.value) for c in cells if c.value]
        assert marks == re.findall(r"[(<]\d+[)>]", engine.render(state).rsplit("\n", 1)[0])
