"""Private proper semi-agnostic learner: Theorem 4.1, Algorithms 3–4 (the online gradient
descent learner of Diakonikolas–Kontonis–Tzamos–Zarifis 2022, privatised). Convention:
h(x) = sign(⟨w, x⟩ − t), so E[y] = 1 − 2Φ(t) for the noiseless halfspace with unit w.

Algorithm 3 (one guess ŏ of OPT; block size b; every block used once):

* Step 7, threshold: μ̂ = mean of the labels of block 0 + exact discrete Laplace noise of scale
  b ≈ 2/(bε) on a grid (labels ±1: Δ₁ = 2/b; ε-DP with the grid term, :mod:`dpledger.learners.noise`); t̂ = Φ⁻¹(clip((1 − μ̂)/2, ρ, 1 − ρ)) with ρ = 0.01 (the seed clips the
  argument of Φ⁻¹ by a small universal constant; 0.01 is our choice).
* Step 11, initial direction: u = mean of y·clip_R(x) over block 1 + N(0, σ₀²I), Δ₂ = 2R/b,
  w₀ = u/‖u‖. R² = d + 2√(d·u) + 2u with u = ln(100n) (Laurent–Massart 2000, Lemma 1; so with
  probability ≥ 0.99 no point is clipped, Section F.2).
* Steps 13–19, T steps, block 1 + k for step k: the ramp surrogate ℓ(w; x, y) = r_s(y(⟨w, x⟩ − t̂))
  with r_s(z) = clip((s − z)/(2s), 0, 1) and width s = ŏ (our stand-in for the seed's
  Equation 12, which is lost: a ramp of width proportional to the OPT guess as in DKTZ22),
  per-example gradient −y·x·1{|z| < s}/(2s) of norm ≤ R/(2s), so the block mean has Δ₂ = R/(s·b);
  ĝ = mean + N(0, σ_k²I); w ← normalise(w − η_k P_{w⊥} ĝ) with η_k = η/√(k+1) (η = 0.5).
  The noise projected on w⊥ (Claim 4.3) is post-processing.

Every noise draw is exact (discrete Gaussian / discrete Laplace on a grid,
:mod:`dpledger.learners.noise`); each Gaussian step is calibrated for (ε, δ) through zCDP
(:mod:`dpledger.learners.calibration.agnostic_noise`). All blocks are disjoint, so
Algorithm 3 is (ε, δ)-DP by parallel composition (Proposition F.1).

Algorithm 4: guesses ŏ_j = ŏ₀·2^{−j}, j < J (ŏ₀ = 1/4, J = 3; the seed's grid starts at a
universal constant), one run of Algorithm 3 per guess on disjoint data, and the exponential
mechanism on a validation block (score −#errors, sensitivity 1). Parallel composition: (ε, δ).
Trace: Claim(Theorem 4.1, ParallelComposition(Alg3_1, …, Alg3_J, EM)), each
Alg3_j = ParallelComposition(DiscreteLaplace, DiscreteGaussian, DiscreteGaussian × T).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import ndtri

from dpledger.accountant.events import DiscreteGaussian, DiscreteLaplace, Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real
from dpledger.learners.agnostic.blocks import equal_blocks, partition
from dpledger.learners.calibration.agnostic_noise import certified_ratio, laplace_scale, sigma_for
from dpledger.learners.noise import gaussian_noise, laplace_noise
from dpledger.learners.agnostic.hermite import clip_rows
from dpledger.learners.agnostic.selection import select
from dpledger.learners.randomness import Randomness

RHO = 0.01
STEP_SIZE = 0.5


def default_clip_radius(n: int, dim: int) -> float:
    """R = √(d + 2√(d·u) + 2u), u = ln(100n) (Laurent–Massart; module doc)."""
    u = math.log(100 * n)
    return math.sqrt(dim + 2 * math.sqrt(dim * u) + 2 * u)


def private_threshold(
    labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None, rng: Randomness
) -> tuple[float, DiscreteLaplace | None]:
    """Step 7: t̂ = Φ⁻¹(clip((1 − μ̂)/2, ρ, 1 − ρ)), μ̂ the label mean with exact discrete Laplace noise
    (:func:`~dpledger.learners.noise.laplace_noise`)."""
    b = labels.size
    mean, event = float(np.mean(labels)), None
    if privacy is not None:
        sensitivity = Fraction(2, b)
        scale = laplace_scale(sensitivity, privacy[0])
        mean, event = laplace_noise(mean, scale, sensitivity, rng)
    return float(ndtri(np.clip((1 - mean) / 2, RHO, 1 - RHO))), event


def noisy_mean(
    vectors: np.ndarray, sensitivity: Fraction, privacy: tuple[Fraction, Fraction] | None, rng: Randomness
) -> tuple[np.ndarray, DiscreteGaussian | None]:
    """The row mean plus exact discrete Gaussian noise (:func:`~dpledger.learners.noise.gaussian_noise`) calibrated for (ε, δ) at L2 sensitivity Δ₂."""
    mean = vectors.mean(axis=0)
    if privacy is None:
        return mean, None
    epsilon, delta = privacy
    sigma = sigma_for(sensitivity, certified_ratio(epsilon, delta), mean.size)
    return gaussian_noise(mean, sigma, sensitivity, delta, rng)


def normalise(w: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(w)
    if norm == 0:
        out = np.zeros_like(w)
        out[0] = 1.0
        return out
    return w / norm


def ramp_gradient(w: np.ndarray, X: np.ndarray, labels: np.ndarray, t: float, width: float) -> np.ndarray:
    """Per-example gradients −y·x·1{|y(⟨w,x⟩ − t)| < s}/(2s) of the ramp surrogate, as rows."""
    z = labels * (X @ w - t)
    active = np.abs(z) < width
    return -(labels * active)[:, None] * X / (2 * width)


@dataclass(frozen=True)
class RunResult:
    """One run of Algorithm 3: the halfspace sign(⟨w, x⟩ − t) and its event."""

    w: np.ndarray
    t: float
    event: Event | None


def algorithm3(
    X: np.ndarray, labels: np.ndarray, blocks: list[np.ndarray], *, width: float, radius: float,
    privacy: tuple[Fraction, Fraction] | None, rng: Randomness,
) -> RunResult:
    """Algorithm 3 on the blocks [threshold, initial, step 1, …, step T] (module doc)."""
    t, laplace = private_threshold(labels[blocks[0]], privacy, rng)
    b = blocks[1].size
    clipped = clip_rows(X[blocks[1]], radius)
    u, initial = noisy_mean(labels[blocks[1], None] * clipped, 2 * Fraction(radius) / b, privacy, rng)
    w = normalise(u)
    events = [laplace, initial]
    for k, block in enumerate(blocks[2:]):
        per_example = ramp_gradient(w, clip_rows(X[block], radius), labels[block], t, width)
        gradient, event = noisy_mean(per_example, Fraction(radius) / (Fraction(width) * block.size), privacy, rng)
        events.append(event)
        gradient -= (gradient @ w) * w
        w = normalise(w - STEP_SIZE / math.sqrt(k + 1) * gradient)
    return RunResult(w, t, None if privacy is None else ParallelComposition(children=tuple(events)))


class PrivateSemiAgnosticLearner(HalfspaceLearnerBase):
    """Algorithm 4: a grid of OPT guesses, Algorithm 3 per guess, exponential-mechanism choice."""

    statement = "Theorem 4.1"

    def __init__(
        self,
        epsilon: Any = 1.0,
        delta: Any = 1e-5,
        *,
        n_guesses: int = 3,
        first_guess: float = 0.25,
        steps: int = 4,
        validation_fraction: float = 0.2,
        clip_radius: float | None = None,
        labels: tuple[Any, Any] = (-1, 1),
        random_state: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_guesses = n_guesses
        self.first_guess = first_guess
        self.steps = steps
        self.validation_fraction = validation_fraction
        self.clip_radius = clip_radius
        self.labels = labels
        self.random_state = random_state

    def _fit(self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None) -> Event | None:
        n, dim = X.shape
        guesses = check_int(self.n_guesses, "n_guesses", 1, 30)
        first = check_real(self.first_guess, "first_guess", 0.0, 1.0)
        steps = check_int(self.steps, "steps", 1, 10_000)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        radius = check_real(self.clip_radius, "clip_radius", 0.0, 1e12, optional=True)
        self.clip_radius_ = default_clip_radius(n, dim) if radius is None else radius
        n_val = max(1, int(fraction * n))
        per_run = equal_blocks(n - n_val, guesses, steps + 2, "n")
        b = equal_blocks(per_run, steps + 2, 1, "n")
        rng = self._sampler()
        validation, *rest = partition(n, [n_val] + [b] * ((steps + 2) * guesses), rng)
        self.guesses_ = first * 2.0 ** -np.arange(guesses)
        runs = [
            algorithm3(X, labels, rest[j * (steps + 2):(j + 1) * (steps + 2)], width=float(g),
                       radius=self.clip_radius_, privacy=privacy, rng=rng)
            for j, g in enumerate(self.guesses_)
        ]
        self.run_coefs_ = np.array([r.w for r in runs])
        self.run_thresholds_ = np.array([r.t for r in runs])
        predictions = np.where(X[validation] @ self.run_coefs_.T - self.run_thresholds_ >= 0, 1.0, -1.0)
        errors = np.sum(predictions != labels[validation, None], axis=0)
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        self.coef_ = self.run_coefs_[index]
        self.intercept_ = -float(self.run_thresholds_[index])
        if privacy is None:
            return None
        return ParallelComposition(children=(*[r.event for r in runs], em_event))

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, x⟩ − t for the selected run."""
        return self._checked(X) @ self.coef_ + self.intercept_
