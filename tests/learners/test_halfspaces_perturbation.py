"""Perturbation into general position (Definition C.5, Lemmas C.6 and C.7)."""

import math

import numpy as np
import pytest

from dpledger.learners.halfspaces.perturbation import (
    in_general_position,
    margin_bound,
    paper_resolution,
    perturb,
)
from dpledger.learners.randomness import Sampled


def test_lemma_c_6_perturbation_from_a_large_set_gives_general_position_with_probability_1_minus_beta():
    """n = 6 repeated and collinear grid points, |A| = 2Δ + 1 ≥ d n^{d+1}/β with β = 0.25:
    the empirical failure rate over 200 perturbations stays below β."""
    n, d, beta = 6, 2, 0.25
    delta = math.ceil(d * n ** (d + 1) / (2 * beta))
    points = np.array([[0, 0], [0, 0], [1, 1], [2, 2], [3, 3], [1, 0]])
    assert not in_general_position(points)
    rng = Sampled(1)
    failures = sum(not in_general_position(perturb(points, delta, 1, rng)) for _ in range(200))
    assert failures / 200 <= beta


def test_lemma_c_7_perturbation_smaller_than_the_margin_keeps_every_label():
    """A halfspace with margin γ = |⟨a, x⟩ − w|/‖a‖ ≥ 1/X′ keeps its labels after x ↦ x + z/Δ′ with
    ‖z‖/Δ′ ≤ √d Δ/Δ′ < γ; checked with the rescaled integer points Δ′x + z against (Δ′w, a)."""
    rng = np.random.default_rng(0)
    X = rng.integers(-4, 5, size=(200, 2))
    a, w = np.array([3, -2]), 1
    margin = np.abs(X @ a - w + 0.5).min() / np.linalg.norm(
        a
    )  # threshold at w − 1/2 separates integer values
    delta = 50
    delta_prime = math.ceil(2 * delta * math.sqrt(2) / margin)
    moved = perturb(X, delta, delta_prime, Sampled(2))
    before = (X @ a >= w).astype(int)
    after = (moved @ a >= delta_prime * (w - 0.5)).astype(int)
    assert np.array_equal(before, after)


def test_paper_resolution_is_exact_and_astronomical():
    delta, delta_prime = paper_resolution(2, 10, 16, 0.1)
    assert delta == 10_000 and margin_bound(2, 16) == 8 * 2**8 * 16**64
    assert (delta_prime - 1) ** 2 < 4 * delta**2 * margin_bound(2, 16) ** 2 * 2 <= delta_prime**2
    with pytest.raises(ValueError, match="beta_gp"):
        paper_resolution(2, 10, 16, 1.5)
    with pytest.raises(ValueError, match="delta_prime"):
        perturb(np.zeros((1, 2)), 3, 0, Sampled(0))
