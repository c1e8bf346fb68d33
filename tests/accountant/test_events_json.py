"""Events are immutable data with a JSON round trip; malformed input is refused."""

from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpledger.accountant import events as ev
from dpledger.accountant.serialization import dumps, loads

decimals = st.decimals(min_value="0.001", max_value="20", places=3).map(str)
probabilities = st.decimals(min_value="0", max_value="0.5", places=6).map(str)

leaves = st.one_of(
    st.builds(ev.PureDP, decimals),
    st.builds(ev.ApproxDP, decimals, probabilities),
    st.builds(ev.Laplace, decimals, decimals),
    st.builds(ev.ExponentialMechanism, decimals, st.integers(1, 1000)),
    st.builds(ev.RandomizedResponse, decimals, st.integers(2, 10)),
    st.builds(ev.ChoosingMechanism, decimals, st.integers(10**5, 10**6).map(str), st.integers(1, 4)),
    st.just(ev.LabelBoostCarrier()),
)


def extend(children):
    return st.one_of(
        st.builds(ev.PostProcessing, children),
        st.builds(ev.LabelBoostRealizable, children),
        st.builds(ev.OnRealizableInputs, children),
        st.builds(lambda c: ev.Composition((c, c), method="basic"), children),
        st.builds(
            lambda c, r: ev.Composition((c,), method="optimal", target_delta="0.9", repeat=r),
            children,
            st.integers(1, 50),
        ),
        st.builds(lambda cs: ev.ParallelComposition(tuple(cs)), st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda c: ev.Claim("Lemma 6.2", c, "9", "0.5"), children),
        st.builds(lambda c, m: ev.SubsampleWithReplacement(c, m, 9 * m), children, st.integers(1, 20)),
    )


trees = st.recursive(leaves, extend, max_leaves=8)


@given(trees)
def test_event_json_round_trip_is_identity(event):
    assert loads(dumps(event)) == event


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("not json", "malformed"),
        ('{"kind": "Nope"}', "kind"),
        ('{"kind": "PureDP", "epsilon": "-1"}', "epsilon"),
        ('{"kind": "PureDP", "epsilon": "1", "colour": 3}', "unknown fields"),
        ('{"kind": "ApproxDP", "epsilon": "1", "delta": "1.5"}', "delta"),
        ('{"kind": "Composition", "children": [], "method": "basic"}', "children"),
        (
            '{"kind": "Composition", "children": [{"kind": "PureDP", "epsilon": "1"}], "method": "advanced"}',
            "target_delta",
        ),
        (
            '{"kind": "SubsampleWithoutReplacement", "child": {"kind": "PureDP", "epsilon": "1"}, "sample_size": 5, "population_size": 3}',
            "sample_size",
        ),
        ("[1, 2]", "JSON object"),
    ],
)
def test_malformed_event_json_raises_value_error_naming_the_problem(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        loads(text)


def test_events_are_immutable():
    event = ev.PureDP(1)
    with pytest.raises(AttributeError):
        cast(Any, event).epsilon = 2  # the refused assignment, past the type checker
