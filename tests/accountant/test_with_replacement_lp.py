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
        epsilon, delta, instance):
    draws, population = instance
    derived_epsilon, derived_delta = rule(epsilon, delta, draws, population)
    truth = exact_delta(epsilon, delta, draws, population, derived_epsilon)
    assert truth <= derived_delta + LP_TOLERANCE
    delta_m = delta * math.expm1(draws * epsilon) / math.expm1(epsilon)
    if delta_m <= -math.expm1(-epsilon):
        assert derived_delta <= truth + LP_TOLERANCE


def test_with_replacement_rule_at_the_boolean_oracles_use_is_log_a():
    """ε_B = 1, 4 draws from N = 40 (issue 17): log A = 0.168240 (the looser log(A/B) was 0.231970)."""
    derived, delta = rule(1.0, 0.0, 4, 40)
    a = (1 + math.expm1(1.0) / 40) ** 4
    assert derived == pytest.approx(math.log(a), rel=1e-12) and delta == 0
    assert derived == pytest.approx(0.16823996707339, rel=1e-12)
