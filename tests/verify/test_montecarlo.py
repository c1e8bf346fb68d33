"""Laws of the Monte Carlo auditor (dpledger.verify.audit.montecarlo)."""

from __future__ import annotations

import functools
import math
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpledger.verify.audit.montecarlo import (
    InProcessExecutor,
    NeighbourPair,
    PredictionsAt,
    audit,
    audit_learner,
    canary_pairs,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
    load_mechanism,
    per_sample,
    small_domain_pairs,
    statdp_patterns,
    substitute_one,
)
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import (
    Laplace,
    RandomizedResponse,
    catalog,
    gaussian_exact_epsilon,
    run_catalog,
)
from dpledger.verify.audit.montecarlo.events import OnLattice, ValueSetEvent, row_keys
from dpledger.verify.audit.montecarlo.pairs import identical_inputs
from dpledger.verify.audit.montecarlo.search import fit_distinguisher
from dpledger.verify.audit.montecarlo.statistics import stage_alphas
from dpledger.verify.audit.montecarlo.tasks import chunk_sizes

SERIAL = InProcessExecutor()
ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


def laplace_mechanism(data, n, rng):
    """A correct vectorised Laplace mechanism (ε = 1, snapped) — module level, so it pickles."""
    return Laplace(1.0)(data, n, rng)


def rare_leak(data, n, rng):
    """Laplace(1) that, on input 1 only, outputs 1000 with probability 2e-4: ε = ∞ on a rare event."""
    out = Laplace(1.0)(data, n, rng)
    if float(data) == 1.0:
        out[rng.random(n) < 2e-4] = 1000.0
    return out


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize("n,p", [(50, 0.02), (200, 0.3), (1000, 0.001)])
def test_clopper_pearson_covers_true_probability(n, p):
    alpha, trials = 0.1, 1500
    hits = np.random.default_rng(1).binomial(n, p, trials)
    misses_low = sum(clopper_pearson_lower(int(k), n, alpha) > p for k in hits)
    misses_high = sum(clopper_pearson_upper(int(k), n, alpha) < p for k in hits)
    # Each one-sided bound fails with probability ≤ alpha; allow binomial noise at level 1e-4.
    limit = stats.binom.ppf(1 - 1e-4, trials, alpha)
    assert misses_low <= limit and misses_high <= limit


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), data=st.data(), alpha=st.sampled_from([1e-6, 1e-3, 0.05, 0.3]))
def test_clopper_pearson_bounds_lie_on_the_safe_side_of_the_exact_binomial_tail(n, data, alpha):
    k = data.draw(st.integers(0, n))
    mpmath.mp.dps = 40
    lower, upper = clopper_pearson_lower(k, n, alpha), clopper_pearson_upper(k, n, alpha)
    if k > 0:  # P_lower[X ≥ k] ≤ alpha, exactly
        tail = mpmath.fsum(
            mpmath.binomial(n, i) * mpmath.mpf(lower) ** i * (1 - mpmath.mpf(lower)) ** (n - i)
            for i in range(k, n + 1)
        )
        assert tail <= alpha
    if k < n:  # P_upper[X ≤ k] ≤ alpha, exactly
        tail = mpmath.fsum(
            mpmath.binomial(n, i) * mpmath.mpf(upper) ** i * (1 - mpmath.mpf(upper)) ** (n - i)
            for i in range(0, k + 1)
        )
        assert tail <= alpha
    assert 0 <= lower <= k / n <= upper <= 1


@settings(max_examples=200, deadline=None)
@given(p=st.floats(1e-12, 1.0), q=st.floats(1e-300, 1.0), delta=st.sampled_from([0.0, 1e-9, 1e-5, 0.01]))
def test_epsilon_and_delta_lower_bounds_never_round_up(p, q, delta):
    mpmath.mp.dps = 60
    eps = epsilon_lower(p, q, delta)
    if p > delta:
        assert mpmath.mpf(eps) <= mpmath.log((mpmath.mpf(p) - mpmath.mpf(delta)) / mpmath.mpf(q))
    else:
        assert eps == -math.inf
    d = delta_lower(p, min(q, 1e-3), 1.0)
    assert mpmath.mpf(d) <= mpmath.mpf(p) - mpmath.e * mpmath.mpf(min(q, 1e-3))


def test_stage_alphas_spend_exactly_alpha_and_keep_most_for_the_last_stage():
    alphas = stage_alphas(0.05, 4)
    assert math.isclose(sum(alphas), 0.05) and alphas[-1] > 0.5 * 0.05 and alphas == sorted(alphas)


def test_epsilon_bound_has_no_ceiling():
    # All hits on one input, none on the other, 1e6 runs each: far beyond DP-Sniper's ln(1/c) ≈ 4.6.
    n = 1_000_000
    assert epsilon_lower(clopper_pearson_lower(n, n, 0.01), clopper_pearson_upper(0, n, 0.01), 0.0) > 12


# ---------------------------------------------------------------- validity and power


@pytest.mark.parametrize(
    "mechanism", [RandomizedResponse(1.0), Laplace(1.0)], ids=["randomized_response", "laplace"]
)
def test_correct_mechanism_claimed_at_its_true_epsilon_not_flagged_beyond_confidence(mechanism):
    # Claim = the exact ε, so a flag is a false positive; it must happen with probability ≤ 1 − confidence.
    runs, confidence = 150, 0.8
    flagged = sum(
        audit(
            mechanism, ZERO_ONE, 1.0, samples=1500, confidence=confidence, seed=seed, executor=SERIAL
        ).violation
        for seed in range(runs)
    )
    assert flagged <= stats.binom.ppf(1 - 1e-4, runs, 1 - confidence)


def test_wrong_scale_laplace_flagged_and_bound_below_true_epsilon():
    result = audit(Laplace(0.5), ZERO_ONE, 1.0, samples=200_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.violation and 1.0 < result.epsilon_lower <= 2.0


def test_rare_output_violation_is_caught_at_a_million_samples():
    # A 2e-4-probability event: ~100 hits among 5e5 estimation runs on one input, none on the other.
    result = audit(rare_leak, ZERO_ONE, 1.0, samples=1_000_000, stages=1, executor=SERIAL)
    assert result.violation and result.epsilon_lower > 2.5 and result.witness is not None
    event = result.witness["event"]
    assert result.witness["hits"]["b"] > 100 * result.witness["hits"]["a"]
    if event["type"] == "interval":
        assert event["lower_exclusive"] > 5 and (
            event["upper_inclusive"] == "inf" or event["upper_inclusive"] >= 1000
        )
    else:  # the outputs only input 1 produced on split 1: the leak's value among them
        assert event["type"] == "one-sided outputs" and 1000.0 in event["examples"]


def test_large_true_epsilon_is_certified_beyond_the_dp_sniper_ceiling():
    result = audit(RandomizedResponse(9.0), [NeighbourPair(0, 1)], 1.0, samples=1_000_000, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.epsilon_lower > math.log(100)


@pytest.mark.parametrize(
    "name", ["naive_float_laplace", "svt_5", "rappor_one_bit_accounting", "histogram_substitution"]
)
def test_buggy_catalog_mechanism_flagged_at_moderate_samples(name):
    (row,) = run_catalog(SERIAL, samples=50_000, names=[name])
    assert row.result.violation


@pytest.mark.slow
def test_every_buggy_catalog_mechanism_flagged_and_no_correct_one():
    with ProcessPoolExecutor(2) as pool:
        rows = run_catalog(pool, samples=200_000)
    assert {row.entry.name for row in rows if not row.as_expected} == set()
    assert all(row.ratio is None or row.ratio <= 1.0 for row in rows)


def test_gaussian_exact_epsilon_matches_the_classic_calibration_bound():
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5))
    assert 0 < gaussian_exact_epsilon(sigma, 1e-5) < 1 < gaussian_exact_epsilon(1.0, 1e-5)


# ---------------------------------------------------------------- executors and determinism


def test_same_seed_gives_identical_numbers_on_every_executor():
    kwargs: dict[str, Any] = dict(samples=300_000, seed=7)
    results = [audit(laplace_mechanism, ZERO_ONE, 1.0, executor=SERIAL, **kwargs)]
    with ThreadPoolExecutor(3) as threads:
        results.append(audit(laplace_mechanism, ZERO_ONE, 1.0, executor=threads, **kwargs))
    with ProcessPoolExecutor(2) as processes:
        results.append(audit(laplace_mechanism, ZERO_ONE, 1.0, executor=processes, **kwargs))
    assert len({(r.epsilon_lower, str(r.witness)) for r in results}) == 1


@pytest.mark.slow
def test_dask_local_cluster_gives_the_numbers_of_local_processes():
    pytest.importorskip("distributed")
    from dpledger.verify.audit.montecarlo import dask_executor

    with dask_executor(workers=2, processes=False) as executor:
        on_dask = audit(laplace_mechanism, ZERO_ONE, 1.0, samples=200_000, executor=executor)
    local = audit(laplace_mechanism, ZERO_ONE, 1.0, samples=200_000, executor=SERIAL)
    assert (on_dask.epsilon_lower, on_dask.witness) == (local.epsilon_lower, local.witness)


def test_chunks_depend_only_on_the_sample_budget():
    assert sum(chunk_sizes(1_000_003)) == 1_000_003 and len(set(chunk_sizes(1_000_000))) == 1


# ---------------------------------------------------------------- bad input


def _raises(data, n, rng):
    raise RuntimeError("boom")


def _nan(data, n, rng):
    return np.full(n, np.nan)


def _shape_depends_on_input(data, n, rng):
    return rng.random((n, 2 + int(data)))


def _too_few(data, n, rng):
    return rng.random(n - 1)


@pytest.mark.parametrize(
    "mechanism,message",
    [
        (_raises, "raised RuntimeError: boom"),
        (_nan, "NaN"),
        (_shape_depends_on_input, "inconsistent shapes"),
        (_too_few, "first axis"),
        (per_sample(lambda data, rng: [0.0] * int(rng.integers(1, 3))), "inconsistent shape"),
    ],
)
def test_broken_mechanism_gives_a_clear_error_not_a_verdict(mechanism, message):
    with pytest.raises(ValueError, match=message):
        audit(mechanism, ZERO_ONE, 1.0, samples=5000, executor=SERIAL)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(claimed_epsilon=0.0), "claimed epsilon"),
        (dict(claimed_epsilon=-1.0), "claimed epsilon"),
        (dict(confidence=1.0), "confidence"),
        (dict(confidence=0.0), "confidence"),
        (dict(delta=1.0), "delta"),
        (dict(samples=12, claimed_epsilon=3.0), "too few samples.*at least"),
    ],
)
def test_meaningless_parameters_are_refused(kwargs, message):
    arguments = dict(claimed_epsilon=1.0, samples=5000, executor=SERIAL) | kwargs
    with pytest.raises(ValueError, match=message):
        audit(laplace_mechanism, ZERO_ONE, **arguments)


@pytest.mark.parametrize(
    "a,b",
    [
        (np.zeros(3), np.zeros(3)),
        (np.asarray([]), np.asarray([])),
        ([1, 2], [1.0, 2.0]),
        ((np.ones((2, 2)), np.asarray([0, 1])), (np.ones((2, 2)), np.asarray([0, 1]))),
    ],
)
def test_identical_inputs_are_refused_as_nothing_to_audit(a, b):
    with pytest.raises(ValueError, match="identical: nothing to audit"):
        audit(laplace_mechanism, [NeighbourPair(a, b)], 1.0, samples=5000, executor=SERIAL)


def test_inputs_differing_in_one_part_are_not_identical():
    assert not identical_inputs((np.ones(2), np.asarray([0, 1])), (np.ones(2), np.asarray([0, 0])))
    assert not identical_inputs(np.zeros(3), np.zeros(4)) and not identical_inputs([], [0])


def test_load_mechanism_imports_module_function_and_refuses_bad_specs():
    assert load_mechanism("dpledger.verify.audit.montecarlo.catalogs.known_epsilon:snap") is not None
    for spec in [
        "nomodule",
        "no_such_module_xyz:f",
        "dpledger.verify.audit.montecarlo.catalogs.known_epsilon:nothing",
    ]:
        with pytest.raises(ValueError):
            load_mechanism(spec)


def test_per_sample_fallback_returns_one_output_per_run():
    mechanism = per_sample(lambda data, rng: data + rng.laplace())
    assert mechanism(1.0, 7, np.random.default_rng(0)).shape == (7,)


# ---------------------------------------------------------------- pairs and events


def test_substitute_one_pairs_differ_in_exactly_one_record():
    pairs = substitute_one([0, 1, 1], domain=[0, 1, 2])
    assert len(pairs) == 6 and all(np.count_nonzero(p.a != p.b) == 1 for p in pairs)


def test_statdp_patterns_move_each_answer_by_at_most_one():
    assert all(np.max(np.abs(p.a - p.b)) <= 1 for p in statdp_patterns(5))


def test_small_domain_pairs_are_substitution_neighbours():
    pairs = small_domain_pairs([0, 1, 2], 2)
    assert len(pairs) == 9  # 6 multisets of size 2; the pairs sharing all but one record
    for pair in pairs:
        removed = Counter(pair.a.tolist()) - Counter(pair.b.tolist())
        assert sum(removed.values()) == 1


def test_canary_pairs_substitute_and_add_the_canary():
    X, y = np.arange(6.0).reshape(6, 1), np.array([0, 0, 0, 1, 1, 1])
    substituted, added = canary_pairs(X, y, np.array([9.0]), 1, relation="both")
    assert substituted.b[0][0, 0] == 9.0 and substituted.b[1][0] == 1 and len(added.b[0]) == 7


def test_lattice_statistic_keeps_only_outputs_whose_low_significand_bits_are_zero():
    values = np.array([1.0, 1.0 + 2**-52, 0.5, 1.0 + 2**-40])
    assert OnLattice(8).defined(values).tolist() == [1.0, 0.5, 1.0 + 2**-40]


def test_value_set_event_matches_exact_rows():
    rows = np.array([[1, 0], [0, 1], [1, 0]], dtype=np.int8)
    event = ValueSetEvent(row_keys(rows[:1]), ((1, 0),))
    assert event.indicator(rows).tolist() == [True, False, True]


def test_distinguisher_scores_shifted_vectors_higher():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, (4000, 3)), rng.normal(0, 1, (4000, 3)) + np.array([1.0, 0, 0])
    score = fit_distinguisher(a, b)
    assert score(a).mean() > score(b).mean()


# ---------------------------------------------------------------- learners


class ExponentialThreshold:
    """A learner-like estimator: a 1-D threshold chosen by the exponential mechanism.

    Score = number of training points classified correctly (sensitivity 1); the choice has
    probability ∝ exp(score_scale · ε · score), which is ε-DP for score_scale = 1/2
    (McSherry–Talwar 2007) and not for the buggy score_scale = 3 (the factor 1/2 replaced).
    """

    def __init__(self, random_state=None, epsilon=1.0, score_scale=0.5):
        self.random_state, self.epsilon, self.score_scale = random_state, epsilon, score_scale

    def fit(self, X, y):
        grid = np.arange(-0.5, 6.0)
        scores = np.sum((X[:, 0] > grid[:, None]) == (y == 1), axis=1)
        logits = self.score_scale * self.epsilon * scores
        weights = np.exp(logits - logits.max())
        self.threshold_ = grid[
            np.random.default_rng(self.random_state).choice(len(grid), p=weights / weights.sum())
        ]
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] > self.threshold_).astype(np.int8)


@pytest.mark.parametrize("score_scale,flagged", [(0.5, False), (3.0, True)])
def test_learner_adapter_flags_the_buggy_learner_and_passes_the_correct_one(score_scale, flagged):
    X, y = np.arange(6.0).reshape(6, 1), np.array([0, 0, 0, 1, 1, 1])
    result = audit_learner(
        functools.partial(ExponentialThreshold, score_scale=score_scale),
        PredictionsAt(np.arange(0.0, 6.0).reshape(6, 1)),
        X,
        y,
        canary_features=np.array([0.0]),
        canary_label=1,
        claimed_epsilon=1.0,
        samples=2000,
        executor=SERIAL,
    )
    assert result.violation is flagged


def test_catalog_names_are_unique_and_claims_positive():
    entries = catalog()
    assert len({e.name for e in entries}) == len(entries) and all(e.claimed_epsilon > 0 for e in entries)


def test_estimation_runs_from_the_chunk_shape_equal_the_listed_chunks_and_never_list_huge_budgets():
    from dpledger.verify.audit.montecarlo.audit import estimation_runs, minimum_samples, selection_runs

    for samples in (1, 1023, 1024, 100_000, 1_000_003, 10**7 + 17):
        assert estimation_runs(samples) == samples - sum(
            selection_runs(size) for size in chunk_sizes(samples)
        )
    found = minimum_samples(30.0, 0.0, 0.01)
    assert found is not None and found > 2**45  # found without listing 2^30 chunks of the budgets it tries
    assert minimum_samples(40.0, 0.0, 0.01) is None  # beyond any budget of 2^50 runs


def test_the_shortlist_of_best_cells_is_the_same_set_and_order_whatever_sort_the_cpu_uses():
    from dpledger.verify.audit.montecarlo.search.objective import _best_indices

    values = np.array([0.5, 2.0, 1.0, 2.0, 1.0, -np.inf, 1.0, 3.0])
    assert _best_indices(values, 4).tolist() == [1, 3, 7, 2]  # above the cut by index, then the first tie
    rng = np.random.default_rng(0)
    ties = rng.integers(0, 5, size=1000).astype(float)
    expected = np.sort(np.argsort(-ties, kind="stable")[:37])
    assert sorted(_best_indices(ties, 37).tolist()) == expected.tolist()
    assert _best_indices(values, 20).tolist() == list(range(8))
