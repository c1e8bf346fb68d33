"""Private proper agnostic learner: Theorem 3.1, Algorithm 2 (subspace reduction of
Diakonikolas–Kane–Kontonis–Tzamos–Zarifis 2021a, privatised).

Algorithm 2 (as implemented; the seed lost the formulas, constants are ours unless cited):

1. Partition S value-independently into a training block T (size m) and a validation block V
   (size ⌊validation_fraction·n⌋).
2. Step 5, private polynomial (Lemma 3.4): with Hermite features clipped to ‖φ‖ ≤ B (default
   2√F) and the labels y ∈ {±1} (already inside the clipping interval [−1, 1] of Section 3.1),
   the correlation vector ĉ = (1/m)Σ_i y_i φ(x_i) + exact discrete Gaussian noise on a grid
   (:mod:`dpledger.learners.noise`). By orthonormality ĉ without noise
   is the least-squares polynomial of degree ≤ D (Section 3.1). Substituting one example moves
   the sum by ≤ 2B, so Δ₂ = 2B/m and σ is calibrated through zCDP (Canonne–Kamath–Steinke 2020) for
   (ε, δ), grid rounding included, certified by the accountant.
3. Step 6, subspace (post-processing): M = E[∇p ∇pᵀ] computed exactly from ĉ
   (:func:`dpledger.learners.agnostic.hermite.gradient_gram`); V = span of its top-k eigenvectors
   (k = subspace_dim, default 2; DKKTZ21a keep eigenvalues above a threshold — a fixed k is our
   substitute, keeping the cover finite and small).
4. Cover: unit normals u = V a with a on the normalised surface grid of the cube [−1, 1]^k of
   spacing γ' = 2/⌈2/γ⌉ (a γ'√(k−1)-cover of S^{k−1}; the explicit cover of Fact B.11), and
   thresholds at n_thresholds evenly spaced points of [−τ, τ] (τ = 3: beyond it a halfspace is
   within Φ(−3) < 0.0014 of constant); candidates sign(⟨u, x⟩ − t).
5. Step 7: exponential mechanism on V, score −#errors (sensitivity 1): ε-DP given the cover.

Privacy: step 2 touches only T, step 5 only V, the rest is post-processing; T and V are
disjoint, so the learner is (ε, δ)-DP (proof of Theorem 3.1).
Trace: Claim(Theorem 3.1, ParallelComposition(DiscreteGaussian, EM)).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import DiscreteGaussian, Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real
from dpledger.learners.agnostic.blocks import partition
from dpledger.learners.calibration.agnostic_noise import certified_ratio, sigma_for
from dpledger.learners.noise import gaussian_noise
from dpledger.learners.agnostic.hermite import HermiteBasis, gradient_gram
from dpledger.learners.agnostic.logconcave_basis import clipped_features
from dpledger.learners.agnostic.selection import select, threshold_errors
from dpledger.learners.randomness import Randomness

MAX_CANDIDATES = 2_000_000


def sphere_cover(k: int, resolution: float) -> np.ndarray:
    """Unit vectors a/‖a‖ for a on the surface of the cube grid {−1, −1+γ', …, 1}^k."""
    cells = math.ceil(2 / resolution)
    axis = np.linspace(-1.0, 1.0, cells + 1)
    grid = np.stack(np.meshgrid(*([axis] * k), indexing="ij"), axis=-1).reshape(-1, k)
    surface = grid[np.max(np.abs(grid), axis=1) == 1.0]
    return surface / np.linalg.norm(surface, axis=1, keepdims=True)


def cover_size(k: int, resolution: float) -> int:
    """(s+1)^k − (s−1)^k surface grid points, s = ⌈2/γ⌉."""
    cells = math.ceil(2 / resolution)
    return (cells + 1) ** k - (cells - 1) ** k


def private_correlation(
    features: np.ndarray, labels: np.ndarray, clip_norm: float, privacy: tuple[Fraction, Fraction] | None, rng: Randomness
) -> tuple[np.ndarray, DiscreteGaussian | None]:
    """Step 5: ĉ = (1/m)Σ y_i φ(x_i) + exact discrete Gaussian noise of scale σ on a grid
    (:func:`~dpledger.learners.noise.gaussian_noise`), Δ₂ = 2B/m (module doc)."""
    m, n_features = features.shape
    correlation = features.T @ labels / m
    if privacy is None:
        return correlation, None
    epsilon, delta = privacy
    sensitivity = 2 * Fraction(clip_norm) / m
    sigma = sigma_for(sensitivity, certified_ratio(epsilon, delta), n_features)
    return gaussian_noise(correlation, sigma, sensitivity, delta, rng)


def top_subspace(coef: np.ndarray, indices: np.ndarray, k: int) -> np.ndarray:
    """Step 6: the top-k eigenvectors of E[∇p ∇pᵀ] as a (d, k) orthonormal matrix."""
    values, vectors = np.linalg.eigh(gradient_gram(coef, indices))
    return vectors[:, np.argsort(values)[::-1][:k]]


class PrivateProperLearner(HalfspaceLearnerBase):
    """Algorithm 2: private polynomial → subspace → finite cover → exponential mechanism."""

    statement = "Theorem 3.1"

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        degree: int = 2,
        subspace_dim: int = 2,
        cover_resolution: float = 0.05,
        n_thresholds: int = 61,
        threshold_range: float = 3.0,
        validation_fraction: float = 0.5,
        clip_norm: float | None = None,
        labels: tuple[Any, Any] = (-1, 1),
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.subspace_dim = subspace_dim
        self.cover_resolution = cover_resolution
        self.n_thresholds = n_thresholds
        self.threshold_range = threshold_range
        self.validation_fraction = validation_fraction
        self.clip_norm = clip_norm
        self.labels = labels
        self.random_state = random_state

    def _fit(self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None) -> Event | None:
        n, dim = X.shape
        k = min(check_int(self.subspace_dim, "subspace_dim", 1, 6), dim)
        resolution = check_real(self.cover_resolution, "cover_resolution", 0.0, 2.0)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        tau = check_real(self.threshold_range, "threshold_range", 0.0, 100.0)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        check_real(self.clip_norm, "clip_norm", 0.0, 1e12, optional=True)
        candidates = cover_size(k, resolution) * n_thresholds
        if candidates > MAX_CANDIDATES:
            raise ValueError(
                f"cover_resolution={resolution} in subspace_dim={k} with n_thresholds={n_thresholds} gives "
                f"{candidates} candidate halfspaces, more than {MAX_CANDIDATES}"
            )
        basis = HermiteBasis(dim, check_int(self.degree, "degree", 1, 50))
        n_val = max(1, int(fraction * n))
        if n - n_val < 2:
            raise ValueError(f"n={n} leaves no training block; increase n")
        rng = self._sampler()
        train, validation = partition(n, [n - n_val, n_val], rng)
        features, self.clip_norm_ = clipped_features(basis, X[train], self.clip_norm)
        self.polynomial_, gaussian = private_correlation(features, labels[train], self.clip_norm_, privacy, rng)
        self.subspace_ = top_subspace(self.polynomial_, basis.indices, k)
        self.directions_ = sphere_cover(k, resolution) @ self.subspace_.T
        self.thresholds_ = np.linspace(-tau, tau, n_thresholds)
        projections = X[validation] @ self.directions_.T
        errors = np.concatenate([threshold_errors(p, labels[validation], self.thresholds_) for p in projections.T])
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        direction, threshold = divmod(index, n_thresholds)
        self.coef_ = self.directions_[direction]
        self.intercept_ = -float(self.thresholds_[threshold])
        if privacy is None:
            return None
        return ParallelComposition(children=(gaussian, em_event))

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, x⟩ + b for the selected unit normal w and intercept b = −t."""
        return self._checked(X) @ self.coef_ + self.intercept_
