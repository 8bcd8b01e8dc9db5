"""``pbm verify FILE``: exit 0 and what it checked when the record is genuine; 1 and the first
thing wrong when it is not; 2 when the file is no record at all. ``pbm keys``: show, rotate."""

from __future__ import annotations

import copy
import json

from pbm.cli import main as pbm_main
from pbm.crypto.keys import SigningKeys
from tests.records.conftest import play_game, record_of


def written(tmp_path, record, name="record.json"):
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return str(path)


def test_a_genuine_record_exits_0_saying_what_was_checked(desk, keys, tmp_path, capsys):
    record = record_of(desk, keys, "dodeca", play_game(desk, "dodeca", 2, {}, seed=31, resign_at=3))
    assert pbm_main(["verify", written(tmp_path, record), "--keys", str(tmp_path / "signing")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("genuine: Dodeca board 101, ") and "the dice match the revealed seed" in out


def test_a_record_and_its_proof_read_apart_exit_0_and_without_keys_the_verdict_names_the_key(
    desk, keys, tmp_path, capsys
):
    from pbm.views import record as document

    record = record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=34, moves=4))
    readable = written(tmp_path, document.readable(record))
    proof = written(tmp_path, document.proof(record), "record.proof.json")
    assert pbm_main(["verify", readable, "--proof", proof, "--keys", str(tmp_path / "signing")]) == 0
    assert "note:" not in capsys.readouterr().out, "checked against the server's keys: nothing to compare"
    assert pbm_main(["verify", readable, "--proof", proof]) == 0
    out = capsys.readouterr().out
    assert f"signed by key {keys.key_id} ({keys.public_keys()[keys.key_id]})" in out
    assert "compare this key with the one the game's page or a move receipt shows" in out
    assert pbm_main(["verify", readable]) == 2, "the record alone proves nothing, nor is it forged"
    err = capsys.readouterr().err
    assert "without its proof" in err and f"pbm verify {readable} --proof record.proof.json" in err
    assert pbm_main(["verify", readable, "--proof", str(tmp_path / "missing.json")]) == 2


def test_a_changed_record_exits_1_naming_the_first_thing_wrong(desk, keys, tmp_path, capsys):
    record = record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=32, moves=6))
    changed = copy.deepcopy(record)
    changed["pbm"]["chain"][3]["time"] = "2020-01-01T00:00:00Z"
    assert pbm_main(["verify", written(tmp_path, changed)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pbm verify: the hash of ply 4 does not match what it records")


def test_a_record_by_another_key_exits_1_when_the_servers_keys_are_given(desk, keys, tmp_path, capsys):
    from pbm.views import record as document

    record = record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=33, moves=2))
    forged = document.sign(record, SigningKeys(tmp_path / "forger"))
    assert pbm_main(["verify", written(tmp_path, forged), "--keys", str(tmp_path / "signing")]) == 1
    assert "none of the server's keys given" in capsys.readouterr().err


def test_a_file_that_is_no_record_exits_2(tmp_path, capsys):
    path = tmp_path / "nonsense.json"
    path.write_text("{not json")
    assert pbm_main(["verify", str(path)]) == 2
    assert pbm_main(["verify", str(tmp_path / "missing.json")]) == 2


def test_keys_are_made_on_first_use_and_rotated_keeping_the_old_public_key(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBM_DATABASE_URL", raising=False)
    assert pbm_main(["db", "upgrade"]) == 0  # a rotation is recorded in the database, for every worker
    capsys.readouterr()
    assert pbm_main(["keys", "show"]) == 0
    (first,) = capsys.readouterr().out.splitlines()
    assert first.endswith(" current")
    assert pbm_main(["keys", "rotate"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert len(shown) == 2 and shown[0].endswith(" current") and shown[1] == first.removesuffix(" current")
    assert (tmp_path / "var" / "signing" / "current.key").stat().st_mode & 0o077 == 0, "readable by the server alone"


HOSTILE_FILES = {
    "200 000 nested brackets": "[" * 200_000,
    "a 100 000-digit number": "1" * 100_000,
    "a 100 000-digit number inside a record": '{"pbm": {"board": ' + "9" * 100_000 + "}}",
    "NaN": '{"pbm": NaN}',
}
"""Files the audit handed `pbm verify`: each a traceback and exit 1 ("not genuine") before."""


def test_a_hostile_file_exits_2_with_a_sentence_and_no_traceback(tmp_path, capsys):
    for what, text in HOSTILE_FILES.items():
        path = tmp_path / "hostile.json"
        path.write_text(text)
        for command in ("verify", "verify-dice"):
            assert pbm_main([command, str(path)]) == 2, (command, what)
            err = capsys.readouterr().err
            assert len(err.splitlines()) == 1 and "Traceback" not in err, (command, what, err[:300])


def test_a_record_nested_deeper_than_any_record_is_refused_before_it_is_checked(desk, keys, tmp_path, capsys):
    """Nesting Python can read but the checks' own hashing (json.dumps) could not: refused as too deep."""
    record = record_of(desk, keys, "cephalopod", play_game(desk, "cephalopod", 2, {}, seed=34, moves=2))
    record["pbm"]["header"]["options"] = "NESTED"
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(record).replace('"NESTED"', "[" * 990 + "]" * 990))
    assert pbm_main(["verify", str(path)]) == 2
    assert capsys.readouterr().err == (
        "pbm verify: the file nests arrays and objects more than 32 levels deep, which no game record does\n"
    )


def test_a_file_larger_than_any_record_is_not_read_whole(tmp_path, capsys, monkeypatch):
    from pbm.records import reading

    monkeypatch.setattr(reading, "MAX_BYTES", 1024 * 1024)
    path = tmp_path / "large.json"
    path.write_text('"' + "x" * (1024 * 1024) + '"')
    assert pbm_main(["verify", str(path)]) == 2
    assert "larger than 1 MB" in capsys.readouterr().err

