"""RecConcave (QCOpt of Proposition 8.6, PrivateIP of Theorem 8.9 as implemented): the statistics
its steps release against their declared sensitivity and structure on every small input, the
order statistic of the implicit domains, the plan's claim, and its utility bound."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dpledger.accountant.rules import account
from dpledger.learners.exponential_mechanism import choosing_mechanism_release
from dpledger.learners.halfspaces.domains import RationalDomain, SignDomain
from dpledger.learners.halfspaces.private_ip import interior_point_scores
from dpledger.learners.halfspaces.recconcave import (
    POSITIVES,
    StepQuality,
    _positive_blocks,
    block_score,
    interior_point_points,
    recconcave,
    recconcave_error_bound,
    recconcave_interior_point,
    recconcave_plan,
    recursion_quality,
)
from dpledger.learners.randomness import Sampled
from dpledger.verify.paper.qcopt_audits import unimodal


def _neighbours(values, low, high):
    for shift in itertools.product((-1, 0, 1), repeat=len(values)):
        other = tuple(a + b for a, b in zip(values, shift, strict=True))
        if other != values and all(low <= x <= high for x in other):
            yield other


def _quasi_concave(values) -> bool:
    return all(
        values[j] >= min(values[i], values[k]) for i, j, k in itertools.combinations(range(len(values)), 3)
    )


def test_window_profile_is_the_largest_minimum_over_windows_of_each_power_of_two():
    rng = np.random.default_rng(0)
    for _ in range(300):
        values = rng.integers(0, 6, size=int(rng.integers(1, 40))).tolist()
        expected = [
            max(min(values[i : i + 2**j]) for i in range(len(values) - 2**j + 1))
            for j in range(len(values).bit_length())
        ]
        assert StepQuality.of_values(values).window_profile() == expected


def test_step_2_recursion_quality_is_quasi_concave_with_sensitivity_one_on_every_input():
    """q(j) = min(L(j) − a, r − L(j + 1)): quasi-concave whatever Q is (so the recursion's privacy
    never rests on Q's shape), and within 1 of itself on every pair of qualities within 1."""
    for values in itertools.product(range(4), repeat=5):
        q = recursion_quality(StepQuality.of_values(values), 5, 3)
        flat = [q.at(j) for j in range(q.size)]
        assert q.size == 3 and _quasi_concave(flat)
        for other in _neighbours(values, 0, 3):
            q2 = recursion_quality(StepQuality.of_values(other), 5, 3)
            assert all(abs(a - q2.at(j)) <= 1 for j, a in enumerate(flat))


@pytest.mark.parametrize("width", [1, 2])
def test_step_3_block_scores_have_sensitivity_one_and_at_most_three_are_positive(width):
    """s(c) = min(F(c) − θ, θ − F(c − 3), θ − F(c + 3)) on every quasi-concave quality of 5
    positions in [0, 4] and every θ: within 1 between neighbours at every block, at most
    POSITIVES = 3 positive (the choosing mechanism's k), and _positive_blocks finds them all."""
    qualities = [v for v in itertools.product(range(5), repeat=5) if unimodal(v)]
    blocks, thetas = range(-4, math.ceil(5 / width) + 4), range(-1, 5)
    scores = {}
    for values in qualities:
        Q = StepQuality.of_values(values)
        scores[values] = np.array([[block_score(Q, width, theta, c) for c in blocks] for theta in thetas])
        for theta, row in zip(thetas, scores[values], strict=True):
            positive = [(c, int(s)) for c, s in zip(blocks, row, strict=True) if s >= 1]
            assert len(positive) <= POSITIVES and _positive_blocks(Q, width, theta) == positive
    for values in qualities:
        for other in _neighbours(values, 0, 4):
            if other in scores:
                assert np.abs(scores[values] - scores[other]).max() <= 1


def test_interior_point_quality_is_quasi_concave_with_sensitivity_one_on_every_multiset():
    """PrivateIP's q(x) = min(#{z ≤ x}, #{z ≥ x}): RecConcave's hypotheses on every input."""
    domain = RationalDomain(3, 1)
    values = [Fraction(v) for v in range(-3, 4)]
    for points in itertools.combinations_with_replacement(values, 4):
        slots = interior_point_scores(points)
        q = [slots(v) for v in values]
        assert _quasi_concave(q) and max(q) >= 2
        for i, new in itertools.product(range(4), values):
            other = interior_point_scores([*points[:i], new, *points[i + 1 :]])
            assert all(abs(a - other(v)) <= 1 for a, v in zip(q, values, strict=True))
    assert domain.size == 7


@pytest.mark.parametrize("bounds", [(3, 2, 1), (5, 4, 3), (7, 3, 2), (20, 9, 5)])
def test_value_at_is_the_order_statistic_of_the_implicit_domain(bounds):
    domain = RationalDomain(*bounds)
    S, C, t = bounds
    listed = sorted(Fraction(s, c * t) for c in range(1, C + 1) for s in range(-S, S + 1))
    assert [domain.value_at(p) for p in range(domain.size)] == listed
    assert [SignDomain().value_at(p) for p in (0, 1)] == [-1, 1]
    with pytest.raises(ValueError, match="position"):
        domain.value_at(domain.size)


@pytest.mark.parametrize(
    "size, depth", [(8, 1), (8, 2), (10**9, 1), (10**9, 3), (2**1000, None), (2**4000, 4), (2, None)]
)
def test_proposition_8_6_privacy_the_plans_composed_mechanisms_meet_the_claim(size, depth):
    """Basic composition of the 2D + 1 mechanisms at ε/(2D + 1) each, the choosing mechanisms'
    δ/D each: the accountant's guarantee of the call's event is within (ε, δ)."""
    plan = recconcave_plan(size, 4, "1e-9", "0.05", depth)
    derivation = account(plan.event("Proposition 8.6"))
    assert derivation.claims() and all(c.verdict.holds for c in derivation.claims())
    assert derivation.guarantee.epsilon_upper <= 4 and derivation.guarantee.delta_upper <= 1e-9
    assert len(plan.mechanisms()) == 2 * plan.depth + 1


def test_the_depth_with_the_smallest_error_is_the_exponential_mechanism_below_2_to_the_350():
    small, large = recconcave_plan(2**300, 4, "1e-9", "0.05"), recconcave_plan(2**400, 4, "1e-9", "0.05")
    assert small.depth == 0 and large.depth == 1 and large.error < 2 * math.log(2**400 / 0.05) / 4
    by_bound = recconcave_error_bound(math.log(2) * 400, 4, "1e-9", "0.05")
    assert by_bound.depth == 1 and by_bound.error >= large.error
    assert recconcave_plan(2**400, 4, 0, "0.05").depth == 0  # δ = 0: no choosing mechanism


@pytest.mark.parametrize("depth", [1, 2])
def test_proposition_8_6_utility_output_within_the_error_bound_except_with_probability_beta(depth):
    """RecConcave at a forced depth on random quasi-concave qualities over 2^40 positions with
    promise r = max Q: Q(output) ≥ r − E in all but a β-like share of 40 runs (β = 1/20)."""
    rng = np.random.default_rng(depth)
    plan = recconcave_plan(2**40, 4, "1e-9", "1/20", depth)
    failures = 0
    for run in range(40):
        rise = sorted(rng.integers(0, 2**39, size=30).tolist())
        fall = sorted(rng.integers(2**39, 2**40, size=30).tolist())
        breakpoints = [0, *rise, *fall, 2**40]
        peak = int(plan.error) + 40 + run
        values = [*range(peak - 30, peak + 1), *range(peak - 1, peak - 31, -1)]
        lengths = [b - a for a, b in itertools.pairwise(breakpoints)]
        kept = [(n, v) for n, v in zip(lengths, values, strict=True) if n > 0]
        Q = StepQuality(tuple(n for n, _ in kept), tuple(v for _, v in kept))
        position, events = recconcave(Q, max(Q.scores), plan, Sampled(run))
        failures += position is None or Q.at(position) < max(Q.scores) - plan.error
        assert len(events) <= len(plan.mechanisms())
    assert failures <= 6  # Pr[Binomial(40, 1/20) ≥ 7] < 0.5 %


def test_theorem_8_9_the_recconcave_interior_point_lies_between_the_points():
    domain = RationalDomain(1000, 30)
    plan = recconcave_plan(domain.size, 4, "1e-9", "1/20", 1)
    t = interior_point_points(plan)
    assert t == 2 * math.floor(plan.error) + 1
    rng = np.random.default_rng(5)
    inside = 0
    for run in range(10):
        points = sorted(Fraction(int(v), 7) for v in rng.integers(-50, 50, size=t))
        value, events = recconcave_interior_point(points, domain, plan, Sampled(run))
        inside += value is not None and points[0] <= value <= points[-1]
        assert len(events) <= 3
    assert inside >= 8


def test_choosing_release_maps_the_reserve_to_none_and_refuses_more_than_k_positives():
    draws = {choosing_mechanism_release([1], 200, 1, 3, Sampled(s), (0,))[0] for s in range(5)}
    assert draws == {None}  # e^{(1 − 200)/2}: the reserve wins
    assert choosing_mechanism_release([300, 1], 20, 1, 3, Sampled(0), (4, 7))[0] == 0
    with pytest.raises(ValueError, match="at most 3"):
        choosing_mechanism_release([50, 50, 50, 50], 20, 1, 3, Sampled(0), (0, 1, 2, 3))
    with pytest.raises(ValueError, match="threshold"):
        choosing_mechanism_release([5], 2, 1, 3, Sampled(0), (0,))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"size": 0}, "size"),
        ({"epsilon": 0}, "epsilon"),
        ({"delta": 1}, "delta"),
        ({"beta": 0}, "beta"),
        ({"depth": 5}, "depth"),
        ({"depth": 1, "delta": "3"}, "delta"),
    ],
)
def test_bad_plan_parameters_are_refused(kwargs, message):
    arguments = {"size": 100, "epsilon": 4, "delta": "1e-9", "beta": "0.05", **kwargs}
    with pytest.raises(ValueError, match=message):
        recconcave_plan(**arguments)
