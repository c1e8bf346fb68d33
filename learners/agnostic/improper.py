"""Private improper agnostic learner: Theorem 2.1, Algorithm 1 (Gaussian marginal) and its
log-concave variant, Theorem D.1 (known marginal, moment-matrix basis, Appendix D.1).

Algorithm 1 (as implemented; the seed lost the formulas, constants are ours unless cited):

1. Partition S value-independently into k training blocks of size m and a validation block of
   size m_val = ⌊validation_fraction·n⌋ (:mod:`dpledger.learners.agnostic.blocks`).
2. On each training block j, features φ(x) (orthonormal, degree ≤ D, clipped to B = 2√F by
   default; default D = 1, because at d = 10, n = 20 000 the private noise on C(d+D, D)
   coefficients outweighs the approximation gain of D = 2, see ``benchmarks/bench_agnostic.py``)
   and the private L1 regression over the ball ‖w‖ ≤ R (R = 1: Lemma B.10 puts a good
   approximation of every halfspace in the unit ball of Hermite coefficients; for
   Theorem D.1 the seed's radius constant from Lemma D.3 is unstated, so R stays a parameter,
   default 1 — a substitute) → w_j, (ε, δ)-DP on block j with T = ``steps`` (default 300)
   adaptively composed discrete Gaussian steps (:mod:`dpledger.learners.agnostic.private_l1`); ``composition``
   = "optimal" (default: zCDP composition of the exact discrete Gaussian steps,
   Bun–Steinke 2016 / Canonne–Kamath–Steinke 2020) or "advanced" (Theorem 3.20) selects the rule the noise is
   calibrated to.
3. Candidates h_{j,θ}(x) = sign(⟨w_j, φ(x)⟩ − θ) for θ in n_thresholds evenly spaced points of
   [−1, 1] (Kalai et al. 2008 threshold the regression polynomial at a θ ∈ [−1, 1]).
4. Exponential mechanism on the validation block, score −#errors (sensitivity 1): ε-DP.

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
from dpledger.learners.agnostic.selection import select, threshold_errors


class PrivateImproperLearner(HalfspaceLearnerBase):
    """Algorithm 1: blockwise private L1 polynomial regression, thresholds, private validation."""

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        degree: int = 1,
        n_blocks: int = 3,
        n_thresholds: int = 21,
        validation_fraction: float = 0.25,
        steps: int = 300,
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
        self.basis_ = make_basis(self.marginal, X.shape[1], check_int(self.degree, "degree", 1, 50))
        n = X.shape[0]
        n_val = max(1, int(fraction * n))
        m = equal_blocks(n - n_val, k, 2, "n")
        rng = self._sampler()
        *training, validation = partition(n, [m] * k + [n_val], rng)
        fits = []
        for block in training:
            features, self.clip_norm_ = clipped_features(self.basis_, X[block], self.clip_norm)
            fits.append(private_l1_regression(
                features, labels[block], clip_norm=self.clip_norm_, radius=radius, steps=steps,
                rng=rng, privacy=privacy, composition=self.composition,
            ))
        self.block_coefs_ = np.array([fit.coef for fit in fits])
        self.noise_sigma_ = fits[0].sigma
        self.thresholds_ = np.linspace(-1.0, 1.0, n_thresholds)
        scores = self._scores(X[validation], self.block_coefs_)
        errors = np.concatenate([threshold_errors(s, labels[validation], self.thresholds_) for s in scores.T])
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        block, threshold = divmod(index, n_thresholds)
        self.coef_ = self.block_coefs_[block]
        self.threshold_ = float(self.thresholds_[threshold])
        if privacy is None:
            return None
        return ParallelComposition(children=(*[fit.event for fit in fits], em_event))

    def _scores(self, X: np.ndarray, coefs: np.ndarray) -> np.ndarray:
        return clip_rows(self.basis_.features(X), self.clip_norm_) @ coefs.T

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, φ(x)⟩ − θ for the selected block coefficients w and threshold θ."""
        return self._scores(self._checked(X), self.coef_[None, :])[:, 0] - self.threshold_
