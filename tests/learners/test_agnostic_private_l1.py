"""The private L1 optimiser (the role of Kulkarni–Lee–Liu 2021 in Lemma B.4) against the exact LP."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.learners.agnostic.hermite import clip_rows, hermite_features
from dpledger.learners.agnostic.private_l1 import (
    exact_l1_regression,
    excess_risk_bound,
    l1_objective,
    private_l1_regression,
)
from dpledger.learners.calibration.agnostic_noise import certified_ratio, noise_event
from dpledger.learners.noise import grid
from dpledger.learners.randomness import Sampled


def _problem(seed: int, m: int = 400, dim: int = 3) -> tuple[np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, dim))
    labels = np.where(X @ np.ones(dim) / np.sqrt(dim) - 0.2 >= 0, 1.0, -1.0)
    labels[rng.choice(m, m // 10, replace=False)] *= -1
    bound = 2 * np.sqrt(dim + 1)
    return clip_rows(hermite_features(X, 1), bound), labels, bound


@pytest.mark.parametrize("seed", [0, 1])
def test_noise_free_optimiser_reaches_the_lp_optimum_within_its_excess_risk_bound(seed: int) -> None:
    features, labels, bound = _problem(seed)
    lp_coef, lp_value = exact_l1_regression(features, labels)
    radius = float(np.linalg.norm(lp_coef)) + 0.5
    fit = private_l1_regression(
        features, labels, clip_norm=bound, radius=radius, steps=4000, rng=Sampled(seed), privacy=None
    )
    terms = excess_risk_bound(
        radius=radius, clip_norm=bound, n_features=features.shape[1], sigma=0.0, steps=4000, m=400, beta=0.1
    )
    assert lp_value - 1e-9 <= fit.objective <= lp_value + terms["optimisation"]
    assert fit.objective - lp_value < 0.01


def test_lp_value_lower_bounds_the_ball_constrained_optimum() -> None:
    features, labels, bound = _problem(2)
    _, lp_value = exact_l1_regression(features, labels)
    fit = private_l1_regression(
        features, labels, clip_norm=bound, radius=0.3, steps=2000, rng=Sampled(0), privacy=None
    )
    assert np.linalg.norm(fit.coef) <= 0.3 + 1e-12
    assert fit.objective >= lp_value
    assert fit.objective == pytest.approx(l1_objective(fit.coef, features, labels))


def test_private_optimiser_records_the_noise_it_used_and_meets_its_budget() -> None:
    features, labels, bound = _problem(3)
    privacy = (Fraction(1), Fraction(1, 10**5))
    fit = private_l1_regression(
        features, labels, clip_norm=bound, radius=1.0, steps=50, rng=Sampled(0), privacy=privacy
    )
    assert isinstance(fit.event, ev.Composition)
    step = fit.event.children[0]
    assert isinstance(step, ev.DiscreteGaussian)
    gamma = Fraction(grid(fit.sigma))
    # the exact discrete Gaussian on the grid γ: s = σ/γ, Δ′ = Δ₂/γ + √F (grid rounding included)
    assert step.sigma_units == sympy.Rational(Fraction(fit.sigma) / gamma)
    assert step.sensitivity_units == sympy.Rational(2 * Fraction(bound) / 400 / gamma) + sympy.sqrt(
        features.shape[1]
    )
    assert fit.event.repeat == 50
    assert account(fit.event).guarantee.meets(*privacy).holds


def test_unclipped_features_are_refused() -> None:
    features, labels, bound = _problem(4)
    with pytest.raises(ValueError, match="clip_norm"):
        private_l1_regression(
            features, labels, clip_norm=bound / 10, radius=1.0, steps=10, rng=Sampled(0), privacy=None
        )


def test_optimal_composition_calibration_is_certified_and_needs_no_more_noise_than_advanced() -> None:
    epsilon, delta = Fraction(1), Fraction(1, 10**5)
    advanced = certified_ratio(epsilon, delta, 100, "advanced")
    optimal = certified_ratio(epsilon, delta, 100, "optimal")
    assert optimal >= advanced
    assert account(noise_event(1, optimal, delta, 100, "optimal")).guarantee.meets(epsilon, delta).holds
    assert (
        not account(noise_event(1, 2 * optimal, delta, 100, "optimal")).guarantee.meets(epsilon, delta).holds
    )
