"""The benchmarks measure what they say they measure.

Each benchmark that drives the mail pipeline runs here once, at a size that takes seconds, and
must end as a full run would when its figures are worth printing: every move applied, no mail
refused. For a whole wave the load benchmark set up its games without the first link of their
hash chain, every move it sent was refused, and it printed figures of error answers; nothing
failed. Times are printed by the benchmarks, never asserted here.
"""

from __future__ import annotations

import json
import random

import pytest

from benchmarks import mailbox, move_cost, smtp_load
from benchmarks.web_pages import scratch_database
from tests import dovecot


@pytest.mark.parametrize("mode", smtp_load.MODES)
def test_the_smtp_load_applies_every_move_it_sends_through_pbm_serve(mode, capsys):
    status = smtp_load.main(["--games", "2", "--moves", "3", "--clients", "2", "--only", "sqlite", "--modes", mode])
    printed = capsys.readouterr().out
    assert "NOT EVERY MOVE" not in printed
    assert status == 0
    assert f"SQLite     {mode}" in printed


def test_a_load_that_was_refused_is_said_to_measure_nothing():
    def run(applied: int, refused: int) -> smtp_load.Run:
        return smtp_load.Run(6, applied, 1.0, 1.0, latencies_ms=[1.0], refused=refused)

    assert [run(6, 1).measured_what_it_says, run(5, 0).measured_what_it_says, run(6, 0).measured_what_it_says] == [
        False,
        False,
        True,
    ]


def test_the_move_cost_moves_every_board_it_measures(capsys):
    assert move_cost.main(["--games", "20", "--long", "12", "--boards", "3"]) == 0
    printed = capsys.readouterr().out
    assert "Dodeca move 12" in printed


@pytest.mark.parametrize("game_type", ["cephalopod", "cubeo", "dodeca"])
def test_the_benchmarks_boards_are_the_servers_own_every_move_chained(game_type, tmp_path):
    """What the benchmarks set up verifies as a record the server wrote itself would."""
    from pbm.crypto import chain
    from pbm.store import boards

    with scratch_database(None) as url, move_cost.serving(url) as server:
        (measured,) = move_cost.add_boards(server, game_type, 1, 6, random.Random(3), "t")
        with server.database.reading() as session:
            row = boards.by_id(session, measured.board_id)
            head = chain.header_hash(boards.header_of(row))
            for move in boards.moves_of(session, row):
                link = chain.Link(
                    game_type, row.board, move.number, move.seat, row.seats[move.seat].player.userid,
                    move.notation, move.created_at,
                )  # fmt: skip
                head = chain.link_hash(link, head)
                assert move.chain_hash == head
            assert row.move_count == 6 and row.chain_head == head


@pytest.mark.skipif(dovecot.unavailable() is not None, reason=str(dovecot.unavailable()))
def test_the_mailbox_benchmark_times_board_mails_and_empties_the_clubs_mailbox(tmp_path, capsys):
    figures = tmp_path / "mailbox.json"
    assert mailbox.main(["--moves", "3", "--fill", "6", "--json", str(figures)]) == 0
    measured = json.loads(figures.read_text())
    assert measured["latency"]["moves"] == 3 and measured["latency"]["median_seconds"] > 0
    filled, kept = measured["mailbox"]["after_fill"], measured["mailbox"]["after_keep_days"]
    assert filled["answered"] == filled["processed_once"] == filled["processed_folder"] == 6
    assert filled["inbox"] == kept["inbox"] == kept["processed_folder"] == kept["mail_files"] == 0
