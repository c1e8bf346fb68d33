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
  agnostic noise the label mean moves by up to 2·OPT (far one-sided flips: t̂ = 0.23 for t* = 0), a bias that does not shrink with n and that DKTZ22's O(OPT) guarantee absorbs. The
  ERM threshold is consistent for the best threshold along w₀, whatever the noise.
* Steps 13–19, T steps, block 2 + k for step k: the ramp surrogate ℓ(w; x, y) = r_s(y(⟨w, x⟩ − t̂))
  with r_s(z) = clip((s − z)/(2s), 0, 1) and width s = ŏ (our stand-in for the seed's
  Equation 12, which is lost: a ramp of width proportional to the OPT guess as in DKTZ22),
  per-example gradient −y·x·1{|z| < s}/(2s) of norm ≤ R/(2s), so the block mean has Δ₂ = R/(s·b);
  ĝ = mean + N(0, σ_k²I); w ← normalise(w − η_k P_{w⊥} ĝ) with η_k = η/√(k+1) (η = 1, ours: at
  d = 10 under far one-sided flips the steps start from a Chow direction the flips pull away, and
  η = 0.5 left the last iterate short of the target — median error − OPT over 3 seeds at n = 100 000,
  ε = 1, Gaussian / uniform marginal: 0.025 / 0.021 at η = 0.5, 0.011 / 0.012 at η = 1, 0.013 / 0.013
  at η = 2).
  The noise projected on w⊥ (Claim 4.3) is post-processing.

Every noise draw is exact (discrete Gaussian / discrete Laplace on a grid,
:mod:`dpledger.learners.noise`; the exponential mechanism by exact sampling); each Gaussian step
is calibrated for (ε, δ) through zCDP (:mod:`dpledger.learners.calibration.agnostic_noise`). All
blocks are disjoint, so Algorithm 3 is (ε, δ)-DP by parallel composition (Proposition F.1).

Algorithm 4: guesses ŏ_j = ŏ₀·2^{−j}, j < J (ŏ₀ = 1/4, at most J₀ = 2 guesses and T₀ = 8 steps,
validation fraction 0.1; the seed's grid starts at a universal constant; at n = 100 000, d = 10,
ε = 1 these had the lowest median error among (J, T) ∈ {(3, 4), (3, 8), (2, 8), (2, 12)} and
fractions {0.2, 0.1}: the gradient steps' noise, not the selection, dominates), one run of
Algorithm 3 per guess on disjoint data, and the exponential mechanism on a validation block
(score −#errors, sensitivity 1) over the triples (run j, iterate k, θ), θ on the threshold grid
along the iterate w_{j,k} (k = 0 is the initial direction): the seed selects among the runs' final
halfspaces; letting the same step also choose an earlier iterate and re-choose the threshold (as
Algorithm 1 chooses coefficients and threshold jointly) costs no privacy (one ε-DP selection on the
same block; every iterate is already released by Algorithm 3) and keeps a run whose last noisy
steps wandered off from costing its best halfspace. Parallel composition: (ε, δ).

Block schedule (``max_step_noise``): Algorithm 3 gives every statistic a fresh block, so
its (J + J·T + 2J) blocks shrink with J and T, and a gradient step's noise σ (Δ₂ = R/(s·b)) grows
as 1/b. The learner takes the first schedule of (J₀, T₀), (J₀ − 1, T₀), …, (1, T₀), (1, ⌊T₀/2⌋),
(1, ⌊T₀/4⌋), …, (1, 1) whose gradient-step noise norm √d·σ at the narrowest ramp s = ŏ_{J−1} is at
most ``max_step_noise`` (default 0.2), the last one if none is: fewer, larger blocks when n·ε is
small. The choice depends on n, d, ε, δ, R and the parameters only — never on the data values —
so the privacy argument is unchanged. At d = 10, δ = 10⁻⁵, with the logistic candidate's block taken
first (below), it takes (1, 8) at n = 100 000, ε ∈ {0.5, 1}, (2, 8) at ε = 4 and (1, 2) at
n = 20 000, ε = 1; without that block (2, 8) at n = 100 000, ε ≥ 1 and (1, 4) at n = 20 000, ε = 1
(there the noise norm went 0.90 → 0.14 from (2, 8), and the median error − OPT under random flips
0.034 → 0.010). ``max_step_noise=None``: always (J₀, T₀), the seed's fixed schedule.

**Logistic candidate** (ours, not in Algorithms 3–4; on unless ``logistic_fraction=None``): a
block of ⌊``logistic_fraction``·(n − m_val)⌋ records (default ½) is spent on a private logistic
regression (:mod:`dpledger.learners.agnostic.private_logistic`, (ε, δ)-DP on its block), and its
unit normal joins the iterates in Algorithm 4's final exponential mechanism (× the threshold grid;
one ε-DP selection on the same validation block, as before). Why: under random flips on a
non-Gaussian marginal the Chow initialisation is biased and the ramp steps' noise is large at
moderate n; the logistic fit is neither. Under far one-sided flips the ramp iterates are chosen
and pay with fewer records per block (the schedules above). Budget: records, not ε — every block is
(ε, δ)-DP and the blocks are disjoint.

Trace: Claim(Theorem 4.1, ParallelComposition(Alg3_1, …, Alg3_J, [logistic,] EM)), each
Alg3_j = ParallelComposition(DiscreteGaussian, EM | DiscreteLaplace, DiscreteGaussian × T);
``selections_`` lists every exponential-mechanism step's candidates and choice, ``schedule_`` the
(J, T) used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import ndtri

from dpledger.accountant.events import DiscreteGaussian, DiscreteLaplace, Event, ParallelComposition
from dpledger.learners.agnostic.base import HalfspaceLearnerBase, check_int, check_real, private_events
from dpledger.learners.agnostic.blocks import equal_blocks, partition
from dpledger.learners.agnostic.hermite import clip_rows
from dpledger.learners.agnostic.private_logistic import LOGISTIC_GROUP, logistic_candidate, unit_normal
from dpledger.learners.agnostic.selection import Selection, grid_text, select, threshold_errors
from dpledger.learners.calibration.agnostic_noise import (
    certified_ratio,
    check_privacy,
    laplace_scale,
    sigma_for,
)
from dpledger.learners.noise import gaussian_noise, laplace_noise
from dpledger.learners.randomness import Randomness

RHO = 0.01
STEP_SIZE = 1.0
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
        noisy, event = laplace_noise(mean, scale, sensitivity, rng)
        mean = float(noisy)
    return float(ndtri(np.clip((1 - mean) / 2, RHO, 1 - RHO))), event


def erm_threshold(
    projections: np.ndarray,
    labels: np.ndarray,
    thresholds: np.ndarray,
    privacy: tuple[Fraction, Fraction] | None,
    rng: Randomness,
) -> tuple[float, Event | None]:
    """Step 7, ``threshold="erm"``: θ on the grid chosen by the exponential mechanism with score
    −#errors of sign(⟨w₀, x⟩ − θ) (sensitivity 1; arg-min with privacy off)."""
    index, event = select(
        threshold_errors(projections, labels, thresholds), None if privacy is None else privacy[0], rng
    )
    return float(thresholds[index]), event


def noise_scale(sensitivity: Fraction, privacy: tuple[Fraction, Fraction], dimension: int) -> float:
    """σ of the discrete Gaussian that makes a D-dimensional statistic of L2 sensitivity Δ₂ (ε, δ)-DP."""
    return sigma_for(sensitivity, certified_ratio(*privacy), dimension)


def gradient_sensitivity(radius: float, width: float, block: int) -> Fraction:
    """Δ₂ = R/(s·b) of a gradient step's block mean (module doc)."""
    return Fraction(radius) / (Fraction(width) * block)


def noisy_mean(
    vectors: np.ndarray, sensitivity: Fraction, privacy: tuple[Fraction, Fraction] | None, rng: Randomness
) -> tuple[np.ndarray, DiscreteGaussian | None]:
    """The row mean plus exact discrete Gaussian noise (:func:`~dpledger.learners.noise.gaussian_noise`) calibrated for (ε, δ) at L2 sensitivity Δ₂."""
    mean = vectors.mean(axis=0)
    if privacy is None:
        return mean, None
    noisy, event = gaussian_noise(
        mean, noise_scale(sensitivity, privacy, mean.size), sensitivity, privacy[1], rng
    )
    return np.asarray(noisy), event


def block_schedule(
    records: int,
    dim: int,
    *,
    guesses: int,
    steps: int,
    radius: float,
    first_guess: float,
    privacy: tuple[Fraction, Fraction] | None,
    max_step_noise: float | None,
) -> tuple[int, int]:
    """(J, T): the first schedule of (J₀, T₀), …, (1, T₀), (1, ⌊T₀/2⌋), …, (1, 1) whose gradient-step
    noise norm √d·σ at the narrowest ramp is ≤ ``max_step_noise`` (the last if none; module doc),
    for ``records`` training records; (J₀, T₀) with privacy off or ``max_step_noise=None``."""
    schedules = [(j, steps) for j in range(guesses, 0, -1)]
    while schedules[-1][1] > 1:
        schedules.append((1, schedules[-1][1] // 2))
    if privacy is None or max_step_noise is None:
        return schedules[0]
    for j, t in schedules:
        block = records // j // (t + 2)
        width = first_guess * 2.0 ** -(j - 1)
        if (
            block >= 1
            and math.sqrt(dim) * noise_scale(gradient_sensitivity(radius, width, block), privacy, dim)
            <= max_step_noise
        ):
            return j, t
    return schedules[-1]


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
    """One run of Algorithm 3: its iterates w₀, …, w_T (rows; w_T is the run's halfspace
    sign(⟨w_T, x⟩ − t)), its threshold t and its event."""

    iterates: np.ndarray
    t: float
    event: Event | None

    @property
    def w(self) -> np.ndarray:
        return self.iterates[-1]


def algorithm3(
    X: np.ndarray,
    labels: np.ndarray,
    blocks: list[np.ndarray],
    *,
    width: float,
    radius: float,
    thresholds: np.ndarray | None,
    privacy: tuple[Fraction, Fraction] | None,
    rng: Randomness,
) -> RunResult:
    """Algorithm 3 on the blocks [initial, threshold, step 1, …, step T] (module doc);
    ``thresholds`` is the ERM grid, None for the label-mean estimator."""
    b = blocks[0].size
    clipped = clip_rows(X[blocks[0]], radius)
    u, initial = noisy_mean(labels[blocks[0], None] * clipped, 2 * Fraction(radius) / b, privacy, rng)
    w = normalise(u)
    threshold_event: Event | None
    if thresholds is None:
        t, threshold_event = private_threshold(labels[blocks[1]], privacy, rng)
    else:
        t, threshold_event = erm_threshold(X[blocks[1]] @ w, labels[blocks[1]], thresholds, privacy, rng)
    events, iterates = [initial, threshold_event], [w]
    for k, block in enumerate(blocks[2:]):
        per_example = ramp_gradient(w, clip_rows(X[block], radius), labels[block], t, width)
        gradient, event = noisy_mean(
            per_example, gradient_sensitivity(radius, width, block.size), privacy, rng
        )
        events.append(event)
        gradient -= (gradient @ w) * w
        w = normalise(w - STEP_SIZE / math.sqrt(k + 1) * gradient)
        iterates.append(w)
    return RunResult(
        np.array(iterates),
        t,
        None if privacy is None else ParallelComposition(children=private_events(*events)),
    )


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
        max_step_noise: float | None = 0.2,
        logistic_fraction: float | None = 0.5,
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
        self.max_step_noise = max_step_noise
        self.logistic_fraction = logistic_fraction
        self.labels = labels
        self.random_state = random_state

    def _fit(
        self, X: np.ndarray, labels: np.ndarray, privacy: tuple[Fraction, Fraction] | None
    ) -> Event | None:
        n, dim = X.shape
        guesses, steps = self.schedule_ = self.planned_schedule(n, dim)
        first = check_real(self.first_guess, "first_guess", 0.0, 1.0)
        radius = check_real(self.clip_radius, "clip_radius", 0.0, 1e12, optional=True)
        n_thresholds = check_int(self.n_thresholds, "n_thresholds", 1, 10_000)
        tau = check_real(self.threshold_range, "threshold_range", 0.0, 100.0)
        if self.threshold not in THRESHOLD_ESTIMATORS:
            raise ValueError(f"threshold must be one of {THRESHOLD_ESTIMATORS}, got {self.threshold!r}")
        self.clip_radius_ = default_clip_radius(n, dim) if radius is None else radius
        self.thresholds_ = np.linspace(-tau, tau, n_thresholds)
        n_val, n_logistic = self._reserved(n)
        per_run = equal_blocks(n - n_val - n_logistic, guesses, steps + 2, "n")
        b = equal_blocks(per_run, steps + 2, 1, "n")
        rng = self._sampler()
        run_blocks = (steps + 2) * guesses
        validation, *rest = partition(
            n, [n_val] + [b] * run_blocks + ([n_logistic] if n_logistic else []), rng
        )
        self.guesses_ = first * 2.0 ** -np.arange(guesses)
        erm_grid = self.thresholds_ if self.threshold == "erm" else None
        runs = [
            algorithm3(
                X,
                labels,
                rest[j * (steps + 2) : (j + 1) * (steps + 2)],
                width=float(g),
                radius=self.clip_radius_,
                thresholds=erm_grid,
                privacy=privacy,
                rng=rng,
            )
            for j, g in enumerate(self.guesses_)
        ]
        events = [r.event for r in runs]
        self.iterates_ = np.array([r.iterates for r in runs])
        self.run_coefs_ = self.iterates_[:, -1]
        self.run_thresholds_ = np.array([r.t for r in runs])
        candidates = self.iterates_.reshape(-1, dim)
        self.logistic_coef_: np.ndarray | None = None
        if n_logistic:
            logistic = rest[run_blocks]
            fit, _, _ = logistic_candidate(X[logistic], labels[logistic], rng=rng, privacy=privacy)
            self.logistic_coef_ = fit.coef
            candidates = np.vstack([candidates, unit_normal(fit.coef)])
            events.append(fit.event)
        projections = X[validation] @ candidates.T
        errors = np.concatenate(
            [threshold_errors(p, labels[validation], self.thresholds_) for p in projections.T]
        )
        index, em_event = select(errors, None if privacy is None else privacy[0], rng)
        candidate, threshold = divmod(index, n_thresholds)
        self.coef_ = candidates[candidate]
        self.intercept_ = -float(self.thresholds_[threshold])
        self.selections_ = self._selections(
            runs, candidate, threshold, logistic=n_logistic > 0, private=privacy is not None
        )
        if privacy is None:
            return None
        return ParallelComposition(children=private_events(*events, em_event))

    def _reserved(self, n: int) -> tuple[int, int]:
        """The validation and logistic blocks' sizes (public: n and the parameters)."""
        fraction = check_real(self.validation_fraction, "validation_fraction", 0.0, 0.9)
        logistic_fraction = check_real(self.logistic_fraction, "logistic_fraction", 0.0, 0.9, optional=True)
        n_val = max(1, int(fraction * n))
        n_logistic = 0 if logistic_fraction is None else int(logistic_fraction * (n - n_val))
        if logistic_fraction is not None and n_logistic < 2:
            raise ValueError(
                f"n={n} leaves the logistic candidate a block of {n_logistic} < 2 records; increase n"
            )
        return n_val, n_logistic

    def planned_schedule(self, n: int, dim: int) -> tuple[int, int]:
        """The block schedule (J, T) that ``fit`` takes on n records in d dimensions: a function of
        n, d, ε, δ and the parameters only (module doc)."""
        check_int(n, "n", 2)
        check_int(dim, "dim", 1)
        radius = check_real(self.clip_radius, "clip_radius", 0.0, 1e12, optional=True)
        return block_schedule(
            n - sum(self._reserved(n)),
            dim,
            guesses=check_int(self.n_guesses, "n_guesses", 1, 30),
            steps=check_int(self.steps, "steps", 1, 10_000),
            radius=default_clip_radius(n, dim) if radius is None else radius,
            first_guess=check_real(self.first_guess, "first_guess", 0.0, 1.0),
            privacy=check_privacy(self.epsilon, self.delta),
            max_step_noise=check_real(self.max_step_noise, "max_step_noise", 0.0, 1e6, optional=True),
        )

    def _selections(
        self, runs: list[RunResult], candidate: int, threshold: int, *, logistic: bool, private: bool
    ) -> list[Selection]:
        steps = []
        if self.threshold == "erm":
            steps = [
                Selection(
                    f"Algorithm 3, OPT guess {g:g}: threshold t̂ along w₀ (private ERM)",
                    (grid_text(self.thresholds_),),
                    self.thresholds_.size,
                    f"θ = {r.t:.4g}",
                    private,
                )
                for g, r in zip(self.guesses_, runs, strict=True)
            ]
        last = self.schedule_[1]
        grid = grid_text(self.thresholds_)
        groups = [
            f"run {j + 1} (OPT guess {g:g}): iterates w₀, …, w_{last} × {grid}"
            for j, g in enumerate(self.guesses_)
        ]
        run, iterate = divmod(candidate, last + 1)
        if run < len(runs):
            chosen = f"run {run + 1} (OPT guess {self.guesses_[run]:g}), iterate w_{iterate}"
        else:
            chosen = LOGISTIC_GROUP
        if logistic:
            groups.append(f"{LOGISTIC_GROUP} × {grid}")
        return [
            *steps,
            Selection(
                "Algorithm 4: run, iterate and threshold on the validation block (or the logistic candidate)",
                tuple(groups),
                (len(runs) * (last + 1) + int(logistic)) * self.thresholds_.size,
                f"{chosen}, θ = {self.thresholds_[threshold]:.4g}",
                private,
            ),
        ]

    def decision_function(self, X: Any) -> np.ndarray:
        """⟨w, x⟩ − t for the selected run."""
        return self._checked(X) @ self.coef_ + self.intercept_
