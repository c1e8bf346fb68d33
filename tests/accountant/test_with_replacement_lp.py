"""The with-replacement rule (SubsampleWithReplacement, Lemma 8.15 as derived in the event's
docstring) against the truth over *every* (ε, δ)-DP child, computed by linear programming
(:mod:`dpledger.verify.audit.with_replacement_lp`, HiGHS) on small instances."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpledger.accountant import events as ev
from dpledger.accountant.rules import account
from dpledger.verify.audit.with_replacement_lp import exact_delta, exact_epsilon

LP_TOLERANCE = 1e-8  # HiGHS's primal/dual feasibility tolerances are 1e-7 on O(1) coefficients

epsilons = st.sampled_from([0.05, 0.25, 0.5, 1.0, 2.0, 3.0])
instances = st.sampled_from([(m, n) for m in (1, 2, 3) for n in range(1, 7) if (n + 1) ** m <= 216])


def rule(epsilon: float, delta: float, draws: int, population: int) -> tuple[float, float]:
    child = ev.PureDP(epsilon) if delta == 0 else ev.ApproxDP(epsilon, delta)
    g = account(ev.SubsampleWithReplacement(child, draws, population)).guarantee
    return g.epsilon_upper, g.delta_upper


@settings(max_examples=15, deadline=None)
@given(epsilons, instances)
@example(1.0, (1, 5))  # one draw: Theorem 3.4's log(1 + (e^ε − 1)/N)
@example(3.0, (3, 1))  # N = 1: every draw is the changed record, A = e^{mε}
def test_with_replacement_epsilon_equals_the_lp_truth_for_pure_children(epsilon, instance):
    draws, population = instance
    truth = exact_epsilon(epsilon, draws, population)
    derived, delta = rule(epsilon, 0.0, draws, population)
    assert delta == 0
    assert truth <= derived + LP_TOLERANCE  # sound
    assert derived <= truth + LP_TOLERANCE  # and exact: log A is attained


@settings(max_examples=15, deadline=None)
@given(epsilons, st.sampled_from([1e-3, 0.01, 0.05, 0.2, 0.6]), instances)
@example(0.05, 0.6, (3, 2))  # δ_m > 1 − e^{−ε}: the witness of the docstring does not exist
def test_with_replacement_delta_at_log_a_is_never_below_the_lp_truth_and_equal_while_delta_m_is_small(
    epsilon, delta, instance
):
    draws, population = instance
    derived_epsilon, derived_delta = rule(epsilon, delta, draws, population)
    truth = exact_delta(epsilon, delta, draws, population, derived_epsilon)
    assert truth <= derived_delta + LP_TOLERANCE
    delta_m = delta * math.expm1(draws * epsilon) / math.expm1(epsilon)
    if delta_m <= -math.expm1(-epsilon):
        assert derived_delta <= truth + LP_TOLERANCE


def test_with_replacement_rule_at_the_boolean_oracles_use_is_log_a():
    """ε_B = 1, 4 draws from N = 40: log A = 0.168240 (the looser log(A/B) was 0.231970)."""
    derived, delta = rule(1.0, 0.0, 4, 40)
    a = (1 + math.expm1(1.0) / 40) ** 4
    assert derived == pytest.approx(math.log(a), rel=1e-12) and delta == 0
    assert derived == pytest.approx(0.16823996707339, rel=1e-12)


def test_boolean_calibration_derives_the_oracles_epsilon_with_the_tight_rule():
    """Theorem 8.19's calibration takes ε_A from the accountant: 3 + m_B·log(1 + (e − 1)/m) for
    ε_B = 1 (≤ 3 + (e − 1)/9 once m ≥ 9m_B), the same ε the oracle's own event derives, and the
    tight n with it is below the tight n at the paper's ε_A = 4."""
    from dpledger.learners.boolean.composition import BooleanComposition, component_class
    from dpledger.learners.boolean.formula import parse_formula
    from dpledger.learners.boolean.oracle import RelabelOracle
    from dpledger.learners.calibration.boolean import oracle_epsilon, theorem_8_19

    C = BooleanComposition(parse_formula("x1 and x2"), [component_class("thresholds", 64)] * 2)
    oracle = RelabelOracle()
    m_b, m = oracle.m_b(C, 0), 9 * oracle.m_b(C, 0) + 5
    derived = oracle_epsilon([(len(C.spaces[0]), m_b)], m)
    recorded = account(oracle.event(C, (), m)).guarantee
    expected = 3 + m_b * math.log1p(math.expm1(1.0) / m)
    assert float(derived) == pytest.approx(expected, rel=1e-12)
    assert recorded.epsilon_upper == pytest.approx(expected, rel=1e-12) and expected < 3 + math.expm1(1.0) / 9

    result = theorem_8_19([("thresholds", 1, 2**16)] * 2, 4, "0.1", "0.1", "0.5", "1e-6")
    assert float(result.oracle_epsilon) < 3 + math.expm1(1.0) / 9 + 1e-12
    assert result.n_tight_derived < result.sample.n_tight
