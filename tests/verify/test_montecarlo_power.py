"""Power of the Monte Carlo auditor on vector and binary outputs, its budget, and δ in its verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.audit import NO_VIOLATION, VIOLATION, estimation_runs
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace, RandomizedResponseVector
from dpledger.verify.audit.montecarlo.catalogs.optimal_limit import limit_suite, optimal_statistic_bound
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import PrefixSum
from dpledger.verify.audit.montecarlo.search import fit_distinguisher, tilted_count_model
from dpledger.verify.audit.montecarlo.statistics import ranked_levels, stage_alphas

SERIAL = InProcessExecutor()
ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]
LEAK = 0.02


def laplace_leaking_on_one(data, n: int, rng: np.random.Generator) -> np.ndarray:
    """Laplace(1), snapped (1-DP), that on input 1 outputs 1000 with probability LEAK: (1, LEAK)-DP, not better."""
    out = Laplace(1.0)(data, n, rng)
    if float(data) == 1.0:
        out[rng.random(n) < LEAK] = 1000.0
    return out


def test_ranked_levels_spend_exactly_alpha_and_give_the_leader_three_quarters():
    for count in (1, 2, 3, 7):
        levels = ranked_levels(0.05, count)
        assert math.isclose(sum(levels), 0.05) and len(levels) == count
        assert levels[0] == (0.05 if count == 1 else 0.75 * 0.05)


def test_last_of_four_stages_keeps_three_quarters_of_alpha():
    assert stage_alphas(0.05, 4)[-1] == pytest.approx(0.05 * 64 / 85)


def test_three_quarters_of_every_chunk_are_estimation_runs():
    assert estimation_runs(1_000_000) == pytest.approx(750_000, rel=1e-3)
    assert estimation_runs(2) == 1


def test_learned_score_ranks_a_twenty_bit_randomized_response_vector_by_its_privacy_loss():
    rng = np.random.default_rng(0)
    mechanism = RandomizedResponseVector(0.1)
    a = mechanism(np.zeros(20, dtype=np.int8), 20_000, rng)
    b = mechanism(np.ones(20, dtype=np.int8), 20_000, rng)
    for tied in (False, True):
        score = fit_distinguisher(a, b, tied)
        zeros = (a == 0).sum(axis=1)
        # The privacy loss is 0.1·(2·#zeros − 20): the score must order runs by their number of zeros.
        assert stats.spearmanr(score(a), zeros).statistic > 0.9


def test_binary_vector_claimed_at_a_quarter_of_its_epsilon_is_flagged_by_an_event_over_the_whole_vector():
    pair = [NeighbourPair(np.zeros(20, dtype=np.int8), np.ones(20, dtype=np.int8), "all 0 vs all 1")]
    # True ε = 20 · 0.1 = 2; claimed 0.5.
    result = audit(RandomizedResponseVector(0.1), pair, 0.5, samples=100_000, stages=1, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.witness is not None
    family = result.witness["family"]
    assert result.verdict == VIOLATION and (family == "count" or family.startswith("distinguisher"))


def test_tilted_count_model_has_the_monotone_likelihood_ratio_of_binomial_counts():
    rng = np.random.default_rng(0)
    runs = 200_000
    a, b = rng.binomial(20, 0.45, runs).astype(float), rng.binomial(20, 0.55, runs).astype(float)
    model_a, model_b = tilted_count_model(a, b, 20)
    slopes = np.diff(np.log(model_b) - np.log(model_a))
    # Binomial counts: log P_b(k)/P_a(k) is linear in k with slope logit(0.55) − logit(0.45) ≈ 0.401
    # (the fit is shrunk towards 0 by one standard error of the difference of the means, ≈ 0.0157/5 here).
    exact = math.log(0.55 / 0.45) - math.log(0.45 / 0.55)
    assert np.allclose(slopes, slopes[0]) and abs(slopes[0] / exact - 1) < 0.05


def test_tilted_count_model_sees_no_direction_in_a_difference_below_one_standard_error():
    a, b = np.array([9.0, 10.0, 11.0] * 100), np.array([9.0, 10.0, 11.0] * 99 + [12.0, 10.0, 11.0])
    model_a, model_b = tilted_count_model(a, b, 20)
    assert np.array_equal(model_a, model_b)


def test_optimal_statistic_limit_of_scalar_laplace_lies_just_below_its_true_epsilon():
    case = limit_suite()[0]
    rng = np.random.default_rng(0)
    runs = [
        case.log_ratio(case.mechanism(data, 200_000, rng))
        for _ in range(2)
        for data in (case.pair.a, case.pair.b)
    ]
    limit = optimal_statistic_bound(runs[2], runs[3], 0.95, runs[0], runs[1])
    assert 0.9 < limit < case.true_epsilon


def test_delta_claim_broken_through_delta_is_a_violation_with_a_delta_bound_above_the_claim():
    result = audit(
        laplace_leaking_on_one,  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        ZERO_ONE,
        1.0,
        claimed_delta=LEAK / 4,
        samples=100_000,
        stages=1,
        executor=SERIAL,
    )
    assert result.delta_lower is not None  # a δ claim is audited at δ
    assert result.verdict == VIOLATION and result.delta_lower > LEAK / 4


def test_delta_claim_that_holds_is_not_flagged_and_its_delta_bound_stays_below_the_truth():
    result = audit(
        laplace_leaking_on_one,  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        ZERO_ONE,
        1.0,
        claimed_delta=2 * LEAK,
        samples=100_000,
        stages=1,
        executor=SERIAL,
    )
    assert result.delta_lower is not None  # a δ claim is audited at δ
    assert result.verdict == NO_VIOLATION and result.delta_lower < LEAK


@pytest.mark.slow
@pytest.mark.parametrize(
    "mechanism,a,b,epsilon",
    [
        (Laplace(20.0), np.zeros(20), np.ones(20), 1.0),
        (RandomizedResponseVector(0.05), np.zeros(20, dtype=np.int8), np.ones(20, dtype=np.int8), 1.0),
        (PrefixSum(10.0), np.ones(10), np.zeros(10), 1.0),  # correlated: scored on its innovations too
    ],
    ids=["laplace_20d", "randomized_response_20_bits", "prefix_sum_10"],
)
def test_exactly_tight_vector_mechanisms_raise_false_alarms_at_most_one_minus_confidence(
    mechanism, a, b, epsilon
):
    # Claimed at their exact ε (every coordinate, or answer, moved, each at ε over their number): a flag is a false alarm.
    runs, confidence = 60, 0.8
    pair = [NeighbourPair(a, b, "all coordinates moved")]
    alarms = sum(
        audit(
            mechanism, pair, epsilon, samples=4000, confidence=confidence, seed=seed, executor=SERIAL
        ).violation
        for seed in range(runs)
    )
    assert alarms <= stats.binom.ppf(1 - 1e-4, runs, 1 - confidence)


@pytest.mark.slow
def test_laplace_parallel_audit_at_a_million_samples_reaches_most_of_the_optimal_statistic_limit():
    # DP-Sniper's LaplaceParallel: 20 coordinates at ε/20, every one carrying 1/20 of a small loss.
    (case,) = [case for case in limit_suite() if case.name == "laplace_parallel"]
    samples = 1_000_000
    rng = np.random.default_rng(1)
    runs = [
        case.log_ratio(case.mechanism(data, samples, rng))
        for _ in range(2)
        for data in (case.pair.a, case.pair.b)
    ]
    limit = optimal_statistic_bound(runs[2], runs[3], 0.95, runs[0], runs[1])
    result = audit(case.mechanism, [case.pair], case.true_epsilon, samples=samples, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.witness is not None
    assert 0.8 * limit <= result.epsilon_lower < case.true_epsilon and result.witness["family"] == "count"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["laplace_vector_20d", "randomized_response_20_bits"])
def test_vector_audit_reaches_most_of_the_optimal_statistic_limit(name):
    (case,) = [case for case in limit_suite() if case.name == name]
    samples = 200_000
    rng = np.random.default_rng(1)
    runs = [
        case.log_ratio(case.mechanism(data, samples, rng))
        for _ in range(2)
        for data in (case.pair.a, case.pair.b)
    ]
    limit = optimal_statistic_bound(runs[2], runs[3], 0.95, runs[0], runs[1])
    result = audit(case.mechanism, [case.pair], case.true_epsilon, samples=samples, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert 0.7 * limit <= result.epsilon_lower < case.true_epsilon
