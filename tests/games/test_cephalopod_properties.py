"""Properties that hold in every position random legal play can reach."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.games import IllegalMove
from pbm.games.cephalopod import EMPTY, GAME
from pbm.games.perft import perft

from .words import in_words

PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def starts(draw, sizes):
    """The empty board, or a random position with some cells free (often few, to reach the end)."""
    players = draw(st.integers(2, 6))
    size = draw(st.sampled_from(sizes))
    dice = draw(st.sampled_from([6, 12]))
    options = {"size": size, "dice": dice}
    if draw(st.booleans()):
        return GAME.new(players=players, options=options)
    cells = size * size
    free = set(draw(st.lists(st.integers(0, cells - 1), min_size=1, max_size=cells, unique=True)))
    dice_on_board = st.tuples(st.integers(0, players - 1), st.integers(1, dice))
    rows = []
    for row in range(size):
        line = ""
        for column in range(size):
            if row * size + column in free:
                line += "."
            else:
                seat, value = draw(dice_on_board)
                line += f"{'abcdef'[seat]}{value}"
        rows.append(line)
    to_move = "abcdef"[draw(st.integers(0, players - 1))]
    return GAME.from_position(
        "/".join(rows) + " " + to_move, options, players=players, seats=range(players), ply=draw(st.integers(0, 99))
    )


@st.composite
def games(draw, sizes=(3, 4, 5)):
    """Every state of a random legal game, from a start position on."""
    state = draw(starts(sizes))
    states = [state]
    for _ in range(draw(st.integers(0, 300))):
        moves = GAME.legal_moves(state)
        if not moves:
            break
        state = GAME.apply(state, moves[draw(st.integers(0, len(moves) - 1))])
        states.append(state)
    return states


positions = games().flatmap(st.sampled_from)

move_like_text = st.from_regex(
    r"\A[a-kA-K ]?[0-9]{0,2}(=([a-k][0-9]{1,2}(\+[a-k][0-9]{1,2}){0,4}|[0-9]{1,2}))?(#[0-9]{1,2})?\Z"
)


def assert_consistent(state):
    cells = state.size * state.size
    assert len(state.values) == len(state.owners) == cells
    for value, owner in zip(state.values, state.owners, strict=True):
        if value:
            assert 1 <= value <= state.dice
            assert owner in state.in_play
        else:
            assert owner == EMPTY
    assert len(state.in_play) >= 2
    assert list(state.in_play) == sorted(set(state.in_play))
    assert set(state.in_play) <= set(range(state.players))
    assert state.to_move in state.in_play
    result = GAME.result(state)
    assert (result is None) == (0 in state.values)
    if result is not None:
        held = state.cells_held()
        # A full board is settled: one clear leader, or everybody level.
        assert len(result.winners) == 1 or set(held.values()) == {held[state.to_move]}


@PROPERTY_SETTINGS
@given(games())
def test_random_legal_play_only_reaches_consistent_states(states):
    for played, state in enumerate(states):
        assert state.ply == states[0].ply + played
        assert_consistent(state)


@PROPERTY_SETTINGS
@given(games(sizes=(6, 7, 8, 9)))
def test_random_legal_play_on_large_boards_only_reaches_consistent_states(states):
    for state in states:
        assert_consistent(state)


@PROPERTY_SETTINGS
@given(positions)
def test_position_notation_round_trips(state):
    text = GAME.to_position(state)
    again = GAME.from_position(text, state.options, players=state.players, seats=state.in_play, ply=state.ply)
    assert again == state
    assert GAME.to_position(again) == text


@PROPERTY_SETTINGS
@given(positions)
def test_dump_and_load_round_trip_through_json(state):
    assert GAME.load(json.loads(json.dumps(GAME.dump(state)))) == state


@PROPERTY_SETTINGS
@given(positions)
def test_every_listed_move_is_accepted_by_play_as_written(state):
    for move in GAME.legal_moves(state):
        assert GAME.parse_move(state, move) == move
        assert GAME.play(state, move) == GAME.apply(state, move)


@PROPERTY_SETTINGS
@given(positions, st.data())
def test_play_never_changes_the_state_it_is_given(state, data):
    moves = GAME.legal_moves(state)
    snapshot = GAME.dump(state)
    copy = GAME.load(snapshot)
    if moves:
        GAME.play(state, data.draw(st.sampled_from(moves)))
    assert state == copy and GAME.dump(state) == snapshot


@PROPERTY_SETTINGS
@given(positions, st.one_of(st.text(max_size=20), move_like_text))
def test_any_text_is_either_a_legal_move_or_refused_without_change(state, text):
    before = GAME.dump(state)
    try:
        after = GAME.play(state, text)
    except IllegalMove:
        assert GAME.dump(state) == before
    else:
        assert GAME.result(state) is None
        assert any(after == GAME.apply(state, move) for move in GAME.legal_moves(state))


@PROPERTY_SETTINGS
@given(positions)
def test_fast_perft_counts_what_walking_the_moves_counts(state):
    for depth in (1, 2, 3):
        assert GAME.perft(state, depth) == perft(GAME, state, depth, fast=False)


@PROPERTY_SETTINGS
@given(positions)
def test_every_move_reports_its_notation_and_exactly_the_seats_it_put_out(state):
    for move in GAME.legal_moves(state):
        after = GAME.apply(state, move)
        report = in_words(GAME.report(state, move, after))
        assert report.text == f"played {move}" or report.text.startswith(f"played {move}, ")
        assert report.eliminated == tuple(seat for seat in state.in_play if seat not in after.in_play)
        assert bool(report.why) == bool(report.eliminated) == (report.tally is not None)
        if report.tally is not None:
            # Everyone's cells on the full board; the survivors keep theirs.
            assert sum(report.tally) == len(state.values)
            assert [report.tally[seat] for seat in after.in_play] == [GAME.tally(after)[seat] for seat in after.in_play]


@PROPERTY_SETTINGS
@given(positions)
def test_the_tally_counts_every_die_once_and_results_name_no_seat(state):
    tally = GAME.tally(state)
    assert len(tally) == state.players
    assert sum(tally) == len(state.values) - state.values.count(0)
    assert GAME.seats_in_play(state) == state.in_play
    result = GAME.result(state)
    if result is not None:
        assert result.reason.startswith(("won", "tied"))
        assert not any(name in result.reason for name in GAME.seat_names)
