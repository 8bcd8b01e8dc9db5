"""Properties of Cubeo that hold in every game: random games drawn by hypothesis."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.games import cubeo

from .words import in_words

GAME = cubeo.GAME
OPTION_SETS = [
    {},
    {"strict": True},
    {"dice": 8},
    {"dice": 12},
    {"remove": True},
    {"samevalue": True},
    {"remove": True, "samevalue": True, "dice": 10},
]
PLIES = 60


@st.composite
def games(draw):
    """A random game: its options and the positions it passed through, in order."""
    options = draw(st.sampled_from(OPTION_SETS))
    plies = draw(st.integers(min_value=0, max_value=PLIES))
    chooser = draw(st.randoms(use_true_random=False))
    state = GAME.new(options=options)
    states = [state]
    for _ in range(plies):
        moves = GAME.legal_moves(state)
        if not moves:
            break
        state = GAME.play(state, chooser.choice(moves))
        states.append(state)
    return states


def connected(cells):
    cells = set(cells)
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for other in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if other in cells and other not in seen:
                seen.add(other)
                todo.append(other)
    return seen == cells


SETTINGS = settings(max_examples=25, deadline=None)


@SETTINGS
@given(games())
def test_the_formation_stays_connected_after_every_turn(states):
    for state in states:
        assert connected(die.cell for die in state.dice), GAME.to_position(state)


@SETTINGS
@given(games())
def test_no_player_ever_has_more_dice_on_the_board_than_the_die_size(states):
    for state in states:
        for seat in (0, 1):
            assert 1 <= len(state.dice_of(seat)) <= state.options.dice


@SETTINGS
@given(games(), st.integers(min_value=0))
def test_play_never_changes_the_state_it_is_given(states, pick):
    state = states[-1]
    moves = GAME.legal_moves(state)
    before = (GAME.dump(state), dict(state.board), moves)
    if moves:
        GAME.play(state, moves[pick % len(moves)])
    assert (GAME.dump(state), dict(state.board), GAME.legal_moves(state)) == before


@SETTINGS
@given(games())
def test_turns_alternate_and_count_up(states):
    for number, state in enumerate(states):
        assert (state.ply, state.to_move) == (number, number % 2)


@SETTINGS
@given(games())
def test_position_notation_round_trips(states):
    for state in states:
        again = GAME.from_position(GAME.to_position(state))
        assert again == state
        assert GAME.legal_moves(again) == GAME.legal_moves(state)


@SETTINGS
@given(games())
def test_dump_and_load_round_trip(states):
    for state in states:
        assert GAME.load(GAME.dump(state)) == state


@SETTINGS
@given(games())
def test_a_game_is_over_exactly_when_no_move_is_listed(states):
    for state in states:
        assert (GAME.result(state) is None) == bool(GAME.legal_moves(state))


@SETTINGS
@given(games())
def test_every_drawing_fits_a_mail_line_and_shows_every_die(states):
    state = states[-1]
    drawing = GAME.render(state)
    assert max(len(line) for line in drawing.splitlines()) <= cubeo.MAIL_WIDTH
    assert len(re.findall(r"\(\d+\)|<\d+>", drawing)) == len(state.dice)


@SETTINGS
@given(games(), st.integers(min_value=0))
def test_every_turn_reports_its_notation_and_what_kind_of_turn_it_was(states, pick):
    state = states[-1]
    moves = GAME.legal_moves(state)
    if moves:
        move = moves[pick % len(moves)]
        report = in_words(GAME.report(state, move, GAME.apply(state, move)))
        kinds = ("adding a die", "moving the", "merging the", "taking the")
        assert any(report.text.startswith(f"played {move}, {kind}") for kind in kinds)
        assert report.eliminated == ()
