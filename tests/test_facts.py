"""A fact is a value: a code and its parameters, kept in the store as JSON and said at the edge.

What an engine, a handler or the store decided is stored as `Fact.to_json` (a game's ending, a
move's report) and read back years later with `Fact.from_json`: the fact read back must be the
fact written, for every kind of parameter a fact may hold.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.facts import ENGLISH, Fact, Plural, UnknownCode, merged, say

CODES = st.from_regex(r"[a-z][a-z0-9]{0,8}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
PLAIN = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.text(max_size=20),
    st.timedeltas(min_value=timedelta(days=-3650), max_value=timedelta(days=3650)),
    st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.just(timezone.utc)),
)
NAMES = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)


def facts(depth: int = 2) -> st.SearchStrategy[Fact]:
    values = PLAIN | st.lists(PLAIN, max_size=4)
    if depth:
        values = values | facts(depth - 1)
    return st.builds(lambda code, params: Fact(code, **params), CODES, st.dictionaries(NAMES, values, max_size=4))


@settings(max_examples=200)
@given(facts())
def test_a_fact_read_back_from_its_json_is_the_fact_written(fact):
    stored = json.dumps(fact.to_json())  # as the store keeps it
    read = Fact.from_json(json.loads(stored))
    assert read == fact
    assert hash(read) == hash(fact)


def test_equal_facts_hash_alike_whatever_their_parameters_hold():
    one = Fact("tally", cells=["a1", "b2"], by={"alice": 3, "bob": [1, 2]})
    other = Fact("tally", by={"bob": [1, 2], "alice": 3}, cells=["a1", "b2"])
    assert one == other
    assert len({one, other}) == 1
    assert Fact("tally", cells=["a1"]) != Fact("tally", cells=["b2"])
    assert Fact("tally", cells=["a1"]) != "tally"


def test_a_fact_does_not_change():
    fact = Fact("cell-occupied", cell="c3")
    with pytest.raises(AttributeError):
        fact.code = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        fact.params = {}  # type: ignore[misc]
    assert fact == Fact("cell-occupied", cell="c3")


def test_a_spans_and_a_moments_json_say_what_they_are():
    fact = Fact("waited", span=timedelta(hours=36), at=datetime(2026, 12, 13, 12, 0, tzinfo=timezone.utc))
    assert fact.to_json() == {
        "code": "waited",
        "params": {"span": {"seconds": 129600.0}, "at": {"utc": "2026-12-13T12:00:00+00:00"}},
    }


def test_a_fact_no_catalogue_has_is_an_error_not_words():
    with pytest.raises(UnknownCode) as raised:
        say(Fact("no-such-code"), {"cell-occupied": "{cell} is taken."}, ENGLISH)
    assert raised.value.args == ("no-such-code",)


def test_a_fact_is_said_with_its_parameters_and_its_plural():
    catalogue = {
        "cell-occupied": "{cell} is taken.",
        "captured": Plural("count", "{count} die captured.", "{count} dice captured."),
    }
    assert say(Fact("cell-occupied", cell="c3"), catalogue) == "c3 is taken."
    assert say(Fact("captured", count=1), catalogue) == "1 die captured."
    assert say(Fact("captured", count=3), catalogue) == "3 dice captured."


def test_one_code_has_one_message_across_catalogues():
    assert merged([{"a": "A."}, {"b": "B."}, {"a": "A."}]) == {"a": "A.", "b": "B."}
    with pytest.raises(ValueError, match="'a' has two messages"):
        merged([{"a": "A."}, {"a": "Another A."}])
