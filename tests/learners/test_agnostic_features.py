"""Hermite features and the moment-matrix basis (seed 002, Lemma B.8; Appendix D.1)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial import hermite_e

from learners.agnostic.hermite import (
    MAX_FEATURES, HermiteBasis, check_feasible, clip_rows, feature_count, gradient_gram, hermite_1d, hermite_features,
    multi_indices,
)
from learners.agnostic.logconcave_basis import MomentBasis, ProductMarginal
from learners.randomness import Sampled


def _max_gram_deviation(features: np.ndarray) -> float:
    gram = features.T @ features / features.shape[0]
    return float(np.max(np.abs(gram - np.eye(gram.shape[0]))))


def test_recurrence_gives_normalised_probabilists_hermite() -> None:
    x = np.linspace(-4, 4, 41)
    values = hermite_1d(x, 8)
    for k in range(9):
        coefficients = np.zeros(k + 1)
        coefficients[k] = 1
        assert np.allclose(values[:, k], hermite_e.hermeval(x, coefficients) / math.sqrt(math.factorial(k)), atol=1e-9)


def test_hermite_features_are_orthonormal_under_the_gaussian() -> None:
    X = np.asarray(Sampled(0).gaussian(1.0, (200_000, 3)))
    features = hermite_features(X, 3)
    assert features.shape == (200_000, feature_count(3, 3))
    assert _max_gram_deviation(features) < 0.08


def test_feature_count_is_the_binomial_and_multi_indices_are_distinct() -> None:
    indices = multi_indices(4, 3)
    assert indices.shape == (math.comb(7, 3), 4)
    assert len({tuple(row) for row in indices.tolist()}) == indices.shape[0]
    assert indices.sum(axis=1).max() == 3


def test_infeasible_degree_is_refused_with_the_feature_count() -> None:
    count = feature_count(10, 6)
    assert count > MAX_FEATURES
    with pytest.raises(ValueError, match=f"C\\(d\\+D, D\\) = {count}"):
        check_feasible(10, 6)
    with pytest.raises(ValueError, match="degree"):
        check_feasible(3, 0)


def test_clipping_bounds_every_row_and_keeps_short_rows() -> None:
    rows = np.array([[3.0, 4.0], [0.3, 0.4]])
    clipped = clip_rows(rows, 1.0)
    assert np.allclose(clipped, [[0.6, 0.8], [0.3, 0.4]])


@pytest.mark.parametrize("name", ["uniform", "laplace"])
def test_moment_basis_is_orthonormal_under_its_log_concave_marginal(name: str) -> None:
    marginal = ProductMarginal(name)
    X = marginal.sample(200_000, 2, Sampled(1))
    assert abs(np.var(X) - 1) < 0.02
    assert _max_gram_deviation(MomentBasis(marginal, 2, 3).features(X)) < 0.1


def test_moment_basis_under_the_gaussian_is_a_rotation_of_the_hermite_basis() -> None:
    X = np.asarray(Sampled(2).gaussian(1.0, (500, 3)))
    moment = MomentBasis(ProductMarginal("gaussian"), 3, 3).features(X)
    hermite = HermiteBasis(3, 3).features(X)
    rotation, *_ = np.linalg.lstsq(hermite, moment, rcond=None)
    assert np.allclose(hermite @ rotation, moment, atol=1e-8)
    assert np.allclose(rotation.T @ rotation, np.eye(rotation.shape[0]), atol=1e-8)


def test_gradient_gram_of_a_linear_polynomial_is_the_outer_product() -> None:
    indices = multi_indices(3, 2)
    coef = np.zeros(indices.shape[0])
    w = np.array([0.6, 0.0, 0.8])
    for i in range(3):
        coef[1 + i] = w[i]
    assert np.allclose(gradient_gram(coef, indices), np.outer(w, w))


def test_gradient_gram_matches_monte_carlo_gradients() -> None:
    rng = np.random.default_rng(3)
    indices = multi_indices(2, 3)
    coef = rng.normal(size=indices.shape[0])
    X = rng.normal(size=(100_000, 2))
    step = 1e-5
    gradients = np.stack([
        (hermite_features(X + step * np.eye(2)[i], 3) - hermite_features(X - step * np.eye(2)[i], 3)) @ coef / (2 * step)
        for i in range(2)
    ], axis=1)
    empirical = gradients.T @ gradients / X.shape[0]
    assert np.allclose(gradient_gram(coef, indices), empirical, rtol=0.1, atol=0.1)
