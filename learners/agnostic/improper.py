"""Private improper agnostic learner: Theorem 2.1, Algorithm 1 (Gaussian marginal) and its
log-concave variant, Theorem D.1 (known marginal, moment-matrix basis, Appendix D.1).

Algorithm 1 (as implemented; the seed lost the formulas, constants are ours unless cited):

1. Partition S value-independently into k training blocks of size m and a validation block of
   size m_val = ⌊validation_fraction·n⌋ (:mod:`dpledger.learners.agnostic.blocks`). k =
   ``n_blocks`` × (number of candidate degrees): **model selection** — ``degree`` is one degree or
   a tuple of candidates (default (1, 2)); block j is fitted at degree D_{j mod |degrees|}, so the
   seed's own boosting-and-selection step (repeat on independent blocks, choose on validation)
   also chooses the degree, at no extra privacy cost (the blocks are disjoint). The theorem's
   D = ⌈1/α²⌉ is out of reach at d = 10; which low degree is best depends on the noise (degree 1
   under random noise, degree 2 when flips sit far from the boundary), hence the selection.
2. On each training block j, features φ(x) (orthonormal, degree ≤ D_j, clipped to B = 2√F by
   default) and the private L1 regression over the ball ‖w‖ ≤ R (R = 1: Lemma B.10 puts a good
   approximation of every halfspace in the unit ball of Hermite coefficients; for
   Theorem D.1 the seed's radius constant from Lemma D.3 is unstated, so R stays a parameter,
   default 1 — a substitute) → w_j, (ε, δ)-DP on block j with T = ``steps`` (default 30; at n = 100 000, d = 10 thirty
   steps are as accurate as 300 — less noise per step — and ten times faster, issue 19)
   adaptively composed discrete Gaussian steps (:mod:`dpledger.learners.agnostic.private_l1`); ``composition``
   = "optimal" (default: zCDP composition of the exact discrete Gaussian steps,
   Bun–Steinke 2016 / Canonne–Kamath–Steinke 2020) or "advanced" (Theorem 3.20) selects the rule the noise is
   calibrated to.
3. Candidates h_{j,θ}(x) = sign(⟨w_j, φ_j(x)⟩ − θ) for θ in n_thresholds (default 101) evenly
   spaced points of [−1, 1] (Kalai et al. 2008 threshold the regression polynomial at a θ ∈ [−1, 1];
   a grid of 21 points cost up to 0.03 in error, issue 19).
4. Exponential mechanism on the validation block over all (block/degree, θ), score −#errors
   (sensitivity 1): ε-DP. ``selections_`` shows the candidates and the choice.

Privacy: every step touches one block; the blocks are disjoint and value-independent, so the
learner is (ε, δ)-DP by parallel composition (Proposition C.1; Proposition D.2 for D.1).
Trace: Claim(Theorem 2.1 | D.1, ParallelComposition(regression_1, …, regression_k, EM)).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpledger.accountant.events import Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real
from dpledger.learners.agnostic.blocks import equal_blocks, partition
from dpledger.learners.calibration.agnostic_noise import COMPOSITION_METHODS
from dpledger.learners.agnostic.hermite import clip_rows
from dpledger.learners.agnostic.logconcave_basis import ProductMarginal, clipped_features, make_basis
from dpledger.learners.agnostic.private_l1 import private_l1_regression
from dpledger.learners.agnostic.selection import Selection, grid_text, select, threshold_errors


class PrivateImproperLearner(HalfspaceLearnerBase):
    """Algorithm 1: blockwise private L1 polynomial regression, thresholds, private validation."""

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        degree: int | tuple[int, ...] = (1, 2),
        n_blocks: int = 1,
        n_thresholds: int = 101,
        validation_fraction: float = 0.25,
        steps: int = 30,
        clip_norm: float | None = None,
        radius: float = 1.0,
        marginal: ProductMarginal | None = None,
        composition: str = "optimal",
        labels: tuple[Any, Any] = (-1, 1),
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.degree = degree
        self.n_blocks = n_blocks
        self.n_thresholds = n_thresholds
        self.validation_fraction = validation_fraction
        self.steps = steps
        self.clip_norm = clip_norm
        self.radius = radius
        self.marginal = marginal
        self.composition = composition
        self.labels = labels
        self.random_state = random_state

    def _statement(self) -> str:
        return "Theorem 2.1" if self.marginal is None or self.marginal.name == "gaussian" else "Theorem D.1"

    def _fit(self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None) -> Event | None:
        k = check_int(self.n_blocks, "n_blocks", 1, 1000)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        steps = check_int(self.steps, "steps", 1, 100_000)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        check_real(self.clip_norm, "clip_norm", 0.0, 1e12, optional=True)
        radius = check_real(self.radius, "radius", 0.0, 1e6)
        if self.composition not in COMPOSITION_METHODS:
            raise ValueError(f"composition must be one of {COMPOSITION_METHODS}, got {self.composition!r}")
        if self.marginal is not None and not isinstance(self.marginal, ProductMarginal):
            raise ValueError(f"marginal must be None or a ProductMarginal, got {self.marginal!r}")
        degrees = candidate_degrees(self.degree)
        self.bases_ = [make_basis(self.marginal, X.shape[1], D) for D in degrees]
        n = X.shape[0]
        n_val = max(1, int(fraction * n))
        blocks = k * len(degrees)
        m = equal_blocks(n - n_val, blocks, 2, "n")
        rng = self._sampler()
        *training, validation = partition(n, [m] * blocks + [n_val], rng)
        fits = []
        self.block_degrees_ = np.array([degrees[j % len(degrees)] for j in range(blocks)])
        self.clip_norms_ = np.zeros(blocks)
        for j, block in enumerate(training):
            features, self.clip_norms_[j] = clipped_features(self.bases_[j % len(degrees)], X[block], self.clip_norm)
            fits.append(private_l1_regression(
                features, labels[block], clip_norm=float(self.clip_norms_[j]), radius=radius, steps=steps,
                rng=rng, privacy=privacy, composition=self.composition,
            ))
        self.block_coefs_ = [fit.coef for fit in fits]
        self.noise_sigmas_ = np.array([fit.sigma for fit in fits])
        self.thresholds_ = np.linspace(-1.0, 1.0, n_thresholds)
        errors = np.concatenate([threshold_errors(self._block_scores(X[validation], j), labels[validation], self.thresholds_)
                                 for j in range(blocks)])
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        self.block_, threshold = divmod(index, n_thresholds)
        self.degree_ = int(self.block_degrees_[self.block_])
        self.coef_ = self.block_coefs_[self.block_]
        self.threshold_ = float(self.thresholds_[threshold])
        self.selections_ = [Selection(
            "Algorithm 1, validation: block (degree) and threshold",
            tuple(f"block {j + 1} (degree {D}) × {grid_text(self.thresholds_)}" for j, D in enumerate(self.block_degrees_)),
            blocks * n_thresholds, f"block {self.block_ + 1} (degree {self.degree_}), θ = {self.threshold_:.4g}",
            privacy is not None)]
        if privacy is None:
            return None
        return ParallelComposition(children=(*[fit.event for fit in fits], em_event))

    def _block_scores(self, X: np.ndarray, block: int) -> np.ndarray:
        """p_j(x) = ⟨w_j, clip(φ_j(x))⟩ for training block j."""
        basis = self.bases_[block % len(self.bases_)]
        return clip_rows(basis.features(X), self.clip_norms_[block]) @ self.block_coefs_[block]

    def decision_function(self, X: Any) -> np.ndarray:
        """p(x) − θ for the selected block's polynomial p and threshold θ."""
        return self._block_scores(self._checked(X), self.block_) - self.threshold_


def candidate_degrees(degree: Any) -> tuple[int, ...]:
    """``degree`` as a tuple of distinct candidate degrees in [1, 50] (an int is one candidate)."""
    values = degree if isinstance(degree, (tuple, list)) else (degree,)
    if not values:
        raise ValueError("degree must be an integer or a non-empty tuple of integers")
    checked = tuple(check_int(value, "degree", 1, 50) for value in values)
    if len(set(checked)) != len(checked):
        raise ValueError(f"degree candidates must be distinct, got {degree!r}")
    return checked
