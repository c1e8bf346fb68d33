"""Randomness: Sampled draws exactly the stated distributions; Enumerated returns them exactly."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import iv
from scipy import stats

from dpledger.accountant.numerics.certified import interval_precision
from dpledger.learners.exponential_mechanism import exponential_mechanism, exponential_mechanism_ordered
from dpledger.learners.randomness import ContinuousDrawError, Enumerated, Sampled, enumerate_outputs


def _exact(distribution: dict) -> dict:
    return {k: float(v.mid) for k, v in distribution.items()}


def _chi_square_pvalue(counts: Counter, probabilities: dict) -> float:
    keys = sorted(probabilities)
    observed = np.array([counts.get(k, 0) for k in keys], dtype=float)
    expected = np.array([probabilities[k] for k in keys]) * observed.sum()
    assert set(counts) <= set(keys), "a sampled output has probability 0"
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("state", [None, 7, np.random.default_rng(3)])
def test_sampled_accepts_none_int_and_generator(state):
    rng = Sampled(state)
    assert 0 <= rng.integer(10) < 10


def test_sampled_same_seed_same_draws():
    assert [Sampled(5).integer(1000) for _ in range(3)] == [Sampled(5).integer(1000)] * 3


@pytest.mark.parametrize("state", ["seed", 1.5, True])
def test_sampled_rejects_other_random_states(state):
    with pytest.raises(ValueError, match="random_state"):
        Sampled(state)


def test_exponential_mechanism_enumerated_probabilities_are_the_softmax():
    scores = [0, 2, 4, 2, 7]
    exact = _exact(enumerate_outputs(lambda rng: exponential_mechanism(scores, Fraction(1, 3), 1, rng)))
    weights = [math.exp(s / 6) for s in scores]
    for i, w in enumerate(weights):
        assert exact[i] == pytest.approx(w / sum(weights), rel=1e-14)


def test_enumerated_probabilities_are_certified_intervals_summing_to_one():
    distribution = enumerate_outputs(lambda rng: exponential_mechanism([0, 1, 5], 1, 1, rng))
    with interval_precision(128):
        total = iv.mpf(0)
        for p in distribution.values():
            total += p
    assert total.a <= 1 <= total.b and total.delta < 1e-30


def test_sampled_exponential_mechanism_matches_the_enumerated_distribution():
    scores = np.array([0, 1, 1, 3, 2, 0])
    exact = _exact(enumerate_outputs(lambda rng: exponential_mechanism(scores, 1, 1, rng)))
    rng = Sampled(11)
    counts = Counter(exponential_mechanism(scores, 1, 1, rng) for _ in range(6000))
    assert _chi_square_pvalue(counts, exact) > 1e-4


def test_sampled_exponential_mechanism_large_scores_do_not_overflow():
    rng = Sampled(0)
    assert (
        exponential_mechanism([10**6, 10**6 + 40, 0], 1, 1, rng) == 1
    )  # others have weight e^{-20}, e^{-500020}
    draws = Counter(exponential_mechanism([10**9, 10**9], 1, 1, rng) for _ in range(2000))
    assert 900 < draws[0] < 1100


def test_exponential_mechanism_on_a_million_integer_scores_is_fast_and_exact_in_distribution():
    scores = np.zeros(1_000_000, dtype=np.int64)
    scores[123_456] = 40  # weight e^{20} against 10^6 ≈ e^{13.8}: chosen with probability ≈ 0.998
    rng = Sampled(1)
    assert sum(exponential_mechanism(scores, 1, 1, rng) == 123_456 for _ in range(20)) >= 18


def test_ordered_exponential_mechanism_on_an_astronomical_domain():
    huge = 10**40
    rng = Sampled(2)
    x = exponential_mechanism_ordered([0, huge, huge + 5, 2 * huge], [0, 500, 0], 1, 1, rng)
    assert huge <= x < huge + 5
    exact = _exact(enumerate_outputs(lambda r: exponential_mechanism_ordered([0, 2, 3], [0, 2], 1, 1, r)))
    assert exact[2] == pytest.approx(math.e / (2 + math.e), rel=1e-14)
    assert exact[0] == exact[1] == pytest.approx(1 / (2 + math.e), rel=1e-14)


def test_subset_and_permutation_are_uniform_when_enumerated():
    subsets = enumerate_outputs(lambda rng: tuple(int(v) for v in rng.subset(5, 2)))
    assert len(subsets) == 20 and all(abs(float(p.mid) - 1 / 20) < 1e-15 for p in subsets.values())
    perms = enumerate_outputs(lambda rng: tuple(int(v) for v in rng.permutation(4)))
    assert len(perms) == 24


def test_sampled_choice_reads_rational_weights_exactly():
    rng = Sampled(4)
    counts = Counter(rng.choice([Fraction(1, 3), 0, Fraction(2, 3)]) for _ in range(3000))
    assert counts[1] == 0
    assert _chi_square_pvalue(counts, {0: 1 / 3, 2: 2 / 3}) > 1e-4


@given(st.lists(st.integers(-30, 30), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_sampled_grouped_choice_lands_in_the_support(log_weights, seed):
    counts = [1] * len(log_weights)
    counts[0] = 0 if len(log_weights) > 1 else 1
    index = Sampled(seed).choice_grouped(log_weights, counts)
    assert counts[index] > 0


def test_continuous_draws_are_an_error_under_enumeration():
    with pytest.raises(ContinuousDrawError, match="laplace"):
        enumerate_outputs(lambda rng: float(rng.laplace(1.0)))
    with pytest.raises(ValueError, match="gaussian"):
        Enumerated([], 64).gaussian(1.0)


def test_enumeration_limit_is_a_clear_error():
    with pytest.raises(ValueError, match="limit"):
        enumerate_outputs(lambda rng: rng.integer(1000), limit=100)


@pytest.mark.parametrize("bad", [dict(epsilon=0), dict(epsilon=-1), dict(sensitivity=0)])
def test_exponential_mechanism_rejects_bad_parameters(bad):
    params = dict(epsilon=1, sensitivity=1) | bad
    with pytest.raises(ValueError, match=next(iter(bad))):
        exponential_mechanism([1, 2], params["epsilon"], params["sensitivity"], Sampled(0))


class _FixedBits(Sampled):
    """Sampled whose random bits are the binary expansion of a given U ∈ [0, 1) (1024 bits)."""

    def __init__(self, uniform: int) -> None:
        super().__init__(0)
        self.stream, self.left = uniform, 1024

    def _bits(self, count: int) -> int:
        self.left -= count
        return (self.stream >> self.left) & ((1 << count) - 1)


def test_grouped_choice_is_exact_inversion_of_the_cdf():
    """The index drawn is the one whose CDF interval contains U, decided with certified arithmetic —
    including when U is 2^-100 away from a CDF boundary (refinement), where a float softmax can err."""
    import mpmath

    log_weights, counts = [Fraction(1, 2), Fraction(0), Fraction(7, 3), Fraction(-40)], [3, 1, 2, 10**12]
    with mpmath.workprec(1200):
        weights = [
            c * mpmath.exp(mpmath.mpf(w.numerator) / w.denominator)
            for w, c in zip(log_weights, counts, strict=True)
        ]
        cdf = [sum(weights[:i]) / sum(weights) for i in range(len(weights) + 1)]
        generator = np.random.default_rng(9)
        uniforms = [int.from_bytes(generator.bytes(128), "big") for _ in range(60)]
        for boundary in cdf[1:-1]:  # uniforms 2^-100 below and above each CDF boundary
            exact = int(mpmath.floor(boundary * 2**1024))
            uniforms += [exact - 2 ** (1024 - 100), exact + 2 ** (1024 - 100)]
        expected = [
            max(i for i in range(len(weights)) if cdf[i] <= mpmath.mpf(u) / 2**1024) for u in uniforms
        ]
    for uniform, index in zip(uniforms, expected, strict=True):
        assert _FixedBits(uniform).choice_grouped(log_weights, counts) == index
