"""Private proper semi-agnostic learner: Theorem 4.1, Algorithms 3–4 (the online gradient
descent learner of Diakonikolas–Kontonis–Tzamos–Zarifis 2022, privatised). Convention:
h(x) = sign(⟨w, x⟩ − t), so E[y] = 1 − 2Φ(t) for the noiseless halfspace with unit w.

Algorithm 3 (one guess ŏ of OPT; block size b; every block used once, in this order):

* Step 11, initial direction: u = mean of y·clip_R(x) over block 0 + N(0, σ₀²I), Δ₂ = 2R/b,
  w₀ = u/‖u‖. R² = d + 2√(d·u) + 2u with u = ln(100n) (Laurent–Massart 2000, Lemma 1; so with
  probability ≥ 0.99 no point is clipped, Section F.2).
* Step 7, threshold, on block 1. ``threshold="erm"`` (default): t̂ = the private empirical risk
  minimiser of the one-dimensional threshold along w₀ — the exponential mechanism over an evenly
  spaced grid θ ∈ [−τ, τ] (τ = ``threshold_range`` = 3, ``n_thresholds`` points) with score
  −#{i : sign(⟨w₀, x_i⟩ − θ) ≠ y_i} (sensitivity 1; ε-DP). ``threshold="label-mean"``: the
  estimator of DKTZ22 and the seed, t̂ = Φ⁻¹(clip((1 − μ̂)/2, ρ, 1 − ρ)), μ̂ the label mean plus
  exact discrete Laplace noise (Δ₁ = 2/b; ρ = 0.01, our choice of the seed's small constant).
  Why ERM is the default: E[y] = 1 − 2Φ(t*) holds for the noiseless halfspace only; under
  agnostic noise the label mean moves by up to 2·OPT (far one-sided flips: t̂ = 0.23 for t* = 0,
  issue 19), a bias that does not shrink with n and that DKTZ22's O(OPT) guarantee absorbs. The
  ERM threshold is consistent for the best threshold along w₀, whatever the noise.
* Steps 13–19, T steps, block 2 + k for step k: the ramp surrogate ℓ(w; x, y) = r_s(y(⟨w, x⟩ − t̂))
  with r_s(z) = clip((s − z)/(2s), 0, 1) and width s = ŏ (our stand-in for the seed's
  Equation 12, which is lost: a ramp of width proportional to the OPT guess as in DKTZ22),
  per-example gradient −y·x·1{|z| < s}/(2s) of norm ≤ R/(2s), so the block mean has Δ₂ = R/(s·b);
  ĝ = mean + N(0, σ_k²I); w ← normalise(w − η_k P_{w⊥} ĝ) with η_k = η/√(k+1) (η = 0.5).
  The noise projected on w⊥ (Claim 4.3) is post-processing.

Every noise draw is exact (discrete Gaussian / discrete Laplace on a grid,
:mod:`dpledger.learners.noise`; the exponential mechanism by exact sampling); each Gaussian step
is calibrated for (ε, δ) through zCDP (:mod:`dpledger.learners.calibration.agnostic_noise`). All
blocks are disjoint, so Algorithm 3 is (ε, δ)-DP by parallel composition (Proposition F.1).

Algorithm 4: guesses ŏ_j = ŏ₀·2^{−j}, j < J (ŏ₀ = 1/4, J = 2, T = 8 steps, validation fraction 0.1;
the seed's grid starts at a universal constant; at n = 100 000, d = 10, ε = 1 these had the lowest
median error among (J, T) ∈ {(3, 4), (3, 8), (2, 8), (2, 12)} and fractions {0.2, 0.1}: the gradient
steps' noise, not the selection, dominates; issue 19), one run of Algorithm 3 per guess on disjoint data, and the exponential
mechanism on a validation block (score −#errors, sensitivity 1) over the pairs (run j, θ), θ on the
threshold grid along w_j: the seed selects among the runs' halfspaces; letting the same step also
re-choose each run's threshold (as Algorithm 1 chooses coefficients and threshold jointly) costs
no privacy (one ε-DP selection on the same block) and removes what is left of the threshold's
error. Parallel composition: (ε, δ).
Trace: Claim(Theorem 4.1, ParallelComposition(Alg3_1, …, Alg3_J, EM)), each
Alg3_j = ParallelComposition(DiscreteGaussian, EM | DiscreteLaplace, DiscreteGaussian × T);
``selections_`` lists every exponential-mechanism step's candidates and choice.
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
from dpledger.learners.agnostic.selection import Selection, grid_text, select, threshold_errors
from dpledger.learners.randomness import Randomness

RHO = 0.01
STEP_SIZE = 0.5
THRESHOLD_ESTIMATORS = ("erm", "label-mean")


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


def erm_threshold(
    projections: np.ndarray, labels: np.ndarray, thresholds: np.ndarray, privacy: tuple[Fraction, Fraction] | None,
    rng: Randomness,
) -> tuple[float, Event | None]:
    """Step 7, ``threshold="erm"``: θ on the grid chosen by the exponential mechanism with score
    −#errors of sign(⟨w₀, x⟩ − θ) (sensitivity 1; arg-min with privacy off)."""
    index, event = select(threshold_errors(projections, labels, thresholds), None if privacy is None else privacy[0], rng)
    return float(thresholds[index]), event


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
    thresholds: np.ndarray | None, privacy: tuple[Fraction, Fraction] | None, rng: Randomness,
) -> RunResult:
    """Algorithm 3 on the blocks [initial, threshold, step 1, …, step T] (module doc);
    ``thresholds`` is the ERM grid, None for the label-mean estimator."""
    b = blocks[0].size
    clipped = clip_rows(X[blocks[0]], radius)
    u, initial = noisy_mean(labels[blocks[0], None] * clipped, 2 * Fraction(radius) / b, privacy, rng)
    w = normalise(u)
    if thresholds is None:
        t, threshold_event = private_threshold(labels[blocks[1]], privacy, rng)
    else:
        t, threshold_event = erm_threshold(X[blocks[1]] @ w, labels[blocks[1]], thresholds, privacy, rng)
    events = [initial, threshold_event]
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
        n_guesses: int = 2,
        first_guess: float = 0.25,
        steps: int = 8,
        validation_fraction: float = 0.1,
        clip_radius: float | None = None,
        threshold: str = "erm",
        n_thresholds: int = 121,
        threshold_range: float = 3.0,
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
        self.threshold = threshold
        self.n_thresholds = n_thresholds
        self.threshold_range = threshold_range
        self.labels = labels
        self.random_state = random_state

    def _fit(self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None) -> Event | None:
        n, dim = X.shape
        guesses = check_int(self.n_guesses, "n_guesses", 1, 30)
        first = check_real(self.first_guess, "first_guess", 0.0, 1.0)
        steps = check_int(self.steps, "steps", 1, 10_000)
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        radius = check_real(self.clip_radius, "clip_radius", 0.0, 1e12, optional=True)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        tau = check_real(self.threshold_range, "threshold_range", 0.0, 100.0)
        if self.threshold not in THRESHOLD_ESTIMATORS:
            raise ValueError(f"threshold must be one of {THRESHOLD_ESTIMATORS}, got {self.threshold!r}")
        self.clip_radius_ = default_clip_radius(n, dim) if radius is None else radius
        self.thresholds_ = np.linspace(-tau, tau, n_thresholds)
        n_val = max(1, int(fraction * n))
        per_run = equal_blocks(n - n_val, guesses, steps + 2, "n")
        b = equal_blocks(per_run, steps + 2, 1, "n")
        rng = self._sampler()
        validation, *rest = partition(n, [n_val] + [b] * ((steps + 2) * guesses), rng)
        self.guesses_ = first * 2.0 ** -np.arange(guesses)
        erm_grid = self.thresholds_ if self.threshold == "erm" else None
        runs = [
            algorithm3(X, labels, rest[j * (steps + 2):(j + 1) * (steps + 2)], width=float(g),
                       radius=self.clip_radius_, thresholds=erm_grid, privacy=privacy, rng=rng)
            for j, g in enumerate(self.guesses_)
        ]
        self.run_coefs_ = np.array([r.w for r in runs])
        self.run_thresholds_ = np.array([r.t for r in runs])
        projections = X[validation] @ self.run_coefs_.T
        errors = np.concatenate([threshold_errors(p, labels[validation], self.thresholds_) for p in projections.T])
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        run, threshold = divmod(index, n_thresholds)
        self.coef_ = self.run_coefs_[run]
        self.intercept_ = -float(self.thresholds_[threshold])
        self.selections_ = self._selections(runs, run, threshold, private=privacy is not None)
        if privacy is None:
            return None
        return ParallelComposition(children=(*[r.event for r in runs], em_event))

    def _selections(self, runs: list[RunResult], run: int, threshold: int, *, private: bool) -> list[Selection]:
        steps = []
        if self.threshold == "erm":
            steps = [Selection(f"Algorithm 3, OPT guess {g:g}: threshold t̂ along w₀ (private ERM)",
                               (grid_text(self.thresholds_),), self.thresholds_.size, f"θ = {r.t:.4g}", private)
                     for g, r in zip(self.guesses_, runs)]
        groups = tuple(f"run {j + 1} (OPT guess {g:g}) × {grid_text(self.thresholds_)}" for j, g in enumerate(self.guesses_))
        return [*steps, Selection("Algorithm 4: run and threshold on the validation block", groups,
                                  len(runs) * self.thresholds_.size,
                                  f"run {run + 1} (OPT guess {self.guesses_[run]:g}), θ = {self.thresholds_[threshold]:.4g}", private)]

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, x⟩ − t for the selected run."""
        return self._checked(X) @ self.coef_ + self.intercept_
