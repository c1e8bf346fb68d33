"""Hermite features and the moment-matrix basis (seed 002, Lemma B.8; Appendix D.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial import hermite_e

from dpledger.learners.agnostic.hermite import (
    MAX_FEATURES,
    HermiteBasis,
    check_feasible,
    clip_rows,
    feature_count,
    gradient_gram,
    hermite_1d,
    hermite_features,
    multi_indices,
)
from dpledger.learners.agnostic.logconcave_basis import MomentBasis, ProductMarginal
from dpledger.learners.randomness import Sampled


def _max_gram_deviation(features: np.ndarray) -> float:
    gram = features.T @ features / features.shape[0]
    return float(np.max(np.abs(gram - np.eye(gram.shape[0]))))


def test_recurrence_gives_normalised_probabilists_hermite() -> None:
    x = np.linspace(-4, 4, 41)
    values = hermite_1d(x, 8)
    for k in range(9):
        coefficients = np.zeros(k + 1)
        coefficients[k] = 1
        assert np.allclose(
            values[:, k], hermite_e.hermeval(x, coefficients) / math.sqrt(math.factorial(k)), atol=1e-9
        )


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
    coef = np.asarray(rng.normal(size=indices.shape[0]))
    X = rng.normal(size=(100_000, 2))
    step = 1e-5
    gradients = np.stack(
        [
            (hermite_features(X + step * np.eye(2)[i], 3) - hermite_features(X - step * np.eye(2)[i], 3))
            @ coef
            / (2 * step)
            for i in range(2)
        ],
        axis=1,
    )
    empirical = gradients.T @ gradients / X.shape[0]
    assert np.allclose(gradient_gram(coef, indices), empirical, rtol=0.1, atol=0.1)


def _halfspace_coefficients(t: float, degree: int) -> np.ndarray:
    """Closed form of c_k = E[sign(x − t)·h_k(x)], x ~ N(0, 1): c_0 = 1 − 2Φ(t) and
    c_k = 2φ(t)h_{k−1}(t)/√k (from E[1{x > t}He_k(x)] = φ(t)He_{k−1}(t))."""
    from scipy.stats import norm

    h = hermite_1d(np.array([t]), degree)[0]
    c = np.empty(degree + 1)
    c[0] = 1 - 2 * norm.cdf(t)
    c[1:] = 2 * norm.pdf(t) * h[:-1] / np.sqrt(np.arange(1, degree + 1))
    return c


def _gaussian_integral(t: float, integrand) -> float:
    """∫ integrand(x, side)·φ(x) dx over (−12, t) and (t, 12) (side −1, +1) by 600-point Gauss–Legendre."""
    from scipy.stats import norm

    nodes, weights = np.polynomial.legendre.leggauss(600)
    total = 0.0
    for low, high, side in ((-12.0, t, -1.0), (t, 12.0, 1.0)):
        x = (high - low) / 2 * nodes + (high + low) / 2
        total += (high - low) / 2 * float(np.sum(weights * integrand(x, side) * norm.pdf(x)))
    return total


@pytest.mark.parametrize("t", [0.0, 0.7, 2.0])
def test_lemma_b_10_halfspace_projection_has_unit_norm_coefficients(t: float) -> None:
    """Lemma B.10's unit-norm property for the L2 projection of a halfspace sign(⟨u, x⟩ − t) onto
    degree ≤ D (by rotation, the 1-d coefficients carry the norm): Bessel gives Σ c_k² ≤ 1,
    increasing to 1; the closed form agrees with direct integration."""
    c = _halfspace_coefficients(t, 400)
    direct = [
        _gaussian_integral(t, lambda x, side, k=k: side * hermite_1d(x, k)[..., k]) for k in (0, 1, 5, 30)
    ]
    assert np.allclose(direct, c[[0, 1, 5, 30]], atol=1e-9)
    partial = np.cumsum(c**2)
    assert np.all(np.diff(partial) >= 0) and partial[-1] <= 1 + 1e-12 and partial[-1] > 0.97


@pytest.mark.slow
def test_degree_one_over_alpha_squared_leaves_l1_error_above_alpha_not_alpha_over_three() -> None:
    """Measures the substitute D = ⌈1/α²⌉ of the seed-002 sample-size chain (which assumes an L1
    approximation error ≤ α/3): the L2 projection — an upper bound on the best L1 approximation
    with unit-norm coefficients — leaves an L1 error between α and 2α at the worst threshold once
    α ≤ 0.2 (1.08α, 1.31α, 1.53α at α = 0.2, 0.1, 0.05; at α = 0.5, D = 4 it is 0.42)."""
    for alpha in (0.2, 0.1, 0.05):
        degree = math.ceil(1 / alpha**2)
        worst = 0.0
        for t in np.linspace(0, 3, 13):
            c = _halfspace_coefficients(float(t), degree)
            worst = max(
                worst,
                _gaussian_integral(
                    float(t), lambda x, side, degree=degree, c=c: np.abs(side - hermite_1d(x, degree) @ c)
                ),
            )
        assert alpha < worst < 2 * alpha


def _best_l1_on_nodes(t: float, degree: int) -> float:
    """min over every polynomial p of degree ≤ D (no norm constraint) of E|sign(x − t) − p(x)|,
    x ~ N(0, 1), on the nodes of :func:`_gaussian_integral` — a linear program (HiGHS) in the
    Hermite coefficients and one slack per node; up to quadrature error a lower bound on the best
    L1 approximation, unit-norm or not."""
    from scipy import sparse
    from scipy.optimize import linprog
    from scipy.stats import norm

    nodes, weights = np.polynomial.legendre.leggauss(600)
    parts = [
        ((high - low) / 2 * nodes + (high + low) / 2, (high - low) / 2 * weights, side)
        for low, high, side in ((-12.0, t, -1.0), (t, 12.0, 1.0))
    ]
    x = np.concatenate([p[0] for p in parts])
    w = np.concatenate([p[1] * norm.pdf(p[0]) for p in parts])
    f = np.concatenate([np.full(p[0].shape, p[2]) for p in parts])
    H, slack = sparse.csr_matrix(hermite_1d(x, degree)), sparse.identity(x.size)
    result = linprog(
        np.concatenate([np.zeros(degree + 1), w]),
        A_ub=sparse.vstack([sparse.hstack([H, -slack]), sparse.hstack([-H, -slack])]),
        b_ub=np.concatenate([f, -f]),
        bounds=[(None, None)] * (degree + 1) + [(0, None)] * x.size,
        method="highs",
    )
    assert result.status == 0, result.message
    return float(result.fun)


def test_lemma_b_10_constant_one_is_too_small_for_the_alpha_over_three_the_chain_assumes() -> None:
    """Not only the L2 projection: at α = 0.2, D = ⌈1/α²⌉ = 25 even the best polynomial of degree
    ≤ D (any norm) errs about α in L1 at t = 0 (0.195), three times the α/3 of Theorem 2.1's chain —
    c = 1 is too small for that bound (about 9 is needed: the error is ≈ 0.98/√D)."""
    best = _best_l1_on_nodes(0.0, 25)
    assert 0.19 < best < 0.2
    assert best > 0.2 / 3
