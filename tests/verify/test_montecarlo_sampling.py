"""Laws of the catalog's Laplace sampler (sign × exponential)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import (
    Laplace,
    snap,
    snapped_laplace,
    standard_laplace,
)


def test_standard_laplace_has_the_laplace_distribution():
    draws = standard_laplace(np.random.default_rng(0), (100_000, 2)).reshape(-1)
    assert stats.kstest(draws, stats.laplace.cdf).pvalue > 1e-3
    # the tails, where an audit's rare events live: P[X > 6] = e^-6 / 2 on both sides
    tail = np.exp(-6.0) / 2
    for side in (draws, -draws):
        assert abs(np.mean(side > 6.0) - tail) < 5 * np.sqrt(tail / len(draws))


def test_standard_laplace_signs_are_fair_and_independent_of_magnitude():
    draws = standard_laplace(np.random.default_rng(1), (200_000,))
    negative, large = draws < 0, np.abs(draws) > 1.0
    assert abs(negative.mean() - 0.5) < 5 * np.sqrt(0.25 / len(draws))
    assert abs(negative[large].mean() - negative[~large].mean()) < 0.01


def test_snapped_laplace_equals_snap_of_the_sum_bit_for_bit():
    answers = np.array([0.0, 1.0, -3.5, 1e3])
    released = snapped_laplace(answers, 2.5, 5_000, np.random.default_rng(2))
    noise = standard_laplace(np.random.default_rng(2), (5_000, answers.size))
    assert np.array_equal(released, snap(answers + 2.5 * noise))


def test_catalog_laplace_is_reproducible_and_on_the_grid():
    first = Laplace(20.0)(np.zeros(20), 1_000, np.random.default_rng(3))
    again = Laplace(20.0)(np.zeros(20), 1_000, np.random.default_rng(3))
    assert first.shape == (1_000, 20) and np.array_equal(first, again)
    assert np.array_equal(first, snap(first))


def test_naive_catalog_laplace_is_numpys_textbook_laplace():
    released = Laplace(1.0, naive=True)(1.0, 1_000, np.random.default_rng(4))
    assert np.array_equal(released, 1.0 + np.random.default_rng(4).laplace(0.0, 1.0, (1_000, 1))[:, 0])
