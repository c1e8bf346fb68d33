"""Private logistic regression by noisy clipped gradient descent: the logistic-loss candidate that the
private selection step of each seed-002 learner may choose (not in the seed: a DP-ERM candidate of
ours, named as such in the learners' traces and the CLI).

Why: under random label flips the seed's estimators — the L1 polynomial regression of Algorithm 1,
the correlation (Chow) vector of Algorithm 2, the Chow initialisation and ramp steps of Algorithm 3 —
are consistent for the target direction only under the Gaussian (rotation-invariant) marginal;
on a uniform cube or a heavy-tailed product marginal their population direction is biased, and a
private logistic regression's much less so (d = 10, 10 % random flips on the cube, n = 100 000,
privacy off, three datasets: the improper learner with degrees (1, 2) and no logistic candidate
was a median 0.0080 over OPT, with it 0.0038 — ``tests/learners/test_agnostic_logistic.py``).
Each learner spends one disjoint block on this candidate and lets its own private
selection choose between it and the seed's candidates, so the candidate costs records, not ε.

Noisy gradient descent (full batch; Bassily–Smith–Thakurta 2014, with per-example gradient clipping
as in Abadi et al. 2016), :func:`~dpledger.learners.agnostic.noisy_descent.noisy_descent`:

    w₀ = 0;  w_{k+1} = w_k − η (ḡ(w_k) + z_k);  output w̄ = the mean of w_{⌊T/2⌋+1}, …, w_T,
    ḡ(w) = (1/m) Σ_i clip_C(−y_i σ(−y_i⟨w, φ_i⟩) φ_i),   clip_C(g) = g·min(1, C/‖g‖),

σ the logistic function and φ_i the caller's features (for the learners: (1, x) clipped to a public
norm, which only keeps ⟨w, φ⟩ finite). Each clipped term has norm ≤ C, so substituting one example
moves ḡ by at most Δ = 2C/m in L2: the sensitivity every step declares. The clipped term is, for
each example, the gradient of a convex function of ⟨w, φ_i⟩ (its derivative min(σ(−y z), C/‖φ_i‖)
is monotone in z), so the iteration is gradient descent on a convex, Huber-like logistic loss.

Our constants (public, not tuned per dataset): C = 1 (a term is clipped only when σ(−yz)‖φ‖ > 1,
i.e. for confidently misclassified or large records; the noise scales with C), η = 4 = 1/L for the
logistic loss's curvature bound ¼ on features with E[φφᵀ] ≈ I, T = 40 steps, and the output the
suffix average of the last half of the iterates (Rakhlin–Shamir–Sridharan 2012): the average keeps
the early iterates' optimisation error out and averages the late ones' noise, so more steps cost
little in noise (σ grows as √T, the average runs over T/2 iterates) and buy optimisation. Measured
at d = 10, 10 % random flips, Gaussian, uniform and Student-t(5) marginals, n = 20 000 (a block of
half the records) and 100 000 (a third), ε ∈ {0.5, 1, 4}, 6 datasets per cell, the candidate's
error − OPT at its best threshold: largest median 0.0111 and largest spread over the datasets
0.0073 with T = 40; 0.0127 and 0.0100 with T = 20; with the last of T = 10 iterates instead of an
average (8 datasets, ε ∈ {0.5, 1}) 0.0134 and 0.0131. Forty steps take about 0.05 s of CPU on
34 000 records.
The candidate's score is p(x) = 2σ(⟨w, φ(x)⟩) − 1 = tanh(⟨w, φ(x)⟩/2) ∈ (−1, 1), the fitted
estimate of E[y | x], thresholded like Algorithm 1's regression polynomial.

Privacy: (ε, δ)-DP on its block by the certified composition of the T steps (zCDP of the exact
discrete Gaussian steps, or advanced composition), as the private L1 regression. Certification: σ
is the one the accountant certifies for that composition with the grid's rounding term (√F grid
units per step) paid (:mod:`dpledger.learners.calibration.agnostic_noise`); the descent's float
arithmetic after each release (the step, the suffix average) is post-processing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import expit

from dpledger.accountant.events import Event
from dpledger.learners.agnostic.hermite import HermiteBasis, clip_rows
from dpledger.learners.agnostic.logconcave_basis import clipped_features
from dpledger.learners.agnostic.noisy_descent import noisy_descent, step_noise
from dpledger.learners.randomness import Randomness

GRADIENT_CLIP = 1.0
"""C: the norm every per-example gradient is clipped to."""
STEPS = 40
STEP_SIZE = 4.0
LOGISTIC_GROUP = "the private logistic regression's direction (a candidate of ours, not in the seed)"
"""How the learners' selections name the candidate."""


@dataclass(frozen=True)
class LogisticFit:
    """The averaged iterate w̄ (intercept first when φ = (1, x)), the noise scale and the event."""

    coef: np.ndarray
    sigma: float
    steps: int
    event: Event | None


def logistic_score(linear: np.ndarray) -> np.ndarray:
    """p = 2σ(z) − 1 = tanh(z/2) of the linear predictor z = ⟨w, φ(x)⟩: the fitted E[y | x]."""
    return np.tanh(np.asarray(linear) / 2.0)


def clipped_gradients(w: np.ndarray, features: np.ndarray, labels: np.ndarray, clip: float) -> np.ndarray:
    """The per-example gradients −y σ(−y⟨w, φ⟩) φ of the logistic loss, each clipped to norm ≤ C."""
    weights = -labels * expit(-labels * np.einsum("ij,j->i", features, w))
    return clip_rows(features * weights[:, None], clip)


def private_logistic_regression(
    features: np.ndarray,
    labels: np.ndarray,
    *,
    rng: Randomness,
    privacy: tuple[Fraction, Fraction] | None,
    gradient_clip: float = GRADIENT_CLIP,
    steps: int = STEPS,
    step_size: float = STEP_SIZE,
    composition: str = "optimal",
) -> LogisticFit:
    """Noisy clipped gradient descent on the logistic loss (module doc); ``privacy=None`` runs it
    without noise.

    Args:
        features: φ(x_i), one row per example (finite).
        labels: y_i ∈ {−1, +1}.
        rng: The exact sampler.
        privacy: (ε, δ) of the block, or None.
        gradient_clip: C.
        steps: T.
        step_size: η.
        composition: The composition rule the noise is calibrated to (``"optimal"``: zCDP).

    Returns:
        The :class:`LogisticFit`.
    """
    m, n_features = features.shape
    sensitivity = 2 * Fraction(gradient_clip) / m
    noise = step_noise(sensitivity, privacy, steps, composition, n_features)
    iterates, event = noisy_descent(
        lambda w: clipped_gradients(w, features, labels, gradient_clip).mean(axis=0),
        lambda w, noisy: w - step_size * noisy,
        np.zeros(n_features),
        steps,
        noise,
        rng,
    )
    suffix = iterates[steps // 2 + 1 :]
    coef = sum(suffix, np.zeros(n_features)) / len(suffix)
    return LogisticFit(coef, 0.0 if noise is None else noise.sigma, steps, event)


def logistic_candidate(
    X: np.ndarray,
    labels: np.ndarray,
    *,
    rng: Randomness,
    privacy: tuple[Fraction, Fraction] | None,
    clip_norm: float | None = None,
    composition: str = "optimal",
) -> tuple[LogisticFit, HermiteBasis, float]:
    """The learners' logistic candidate on one block: :func:`private_logistic_regression` on the
    features φ(x) = (1, x) (the degree-1 Hermite features) clipped to B (default 2√(d + 1)).

    Returns:
        The fit, the feature basis and B.
    """
    basis = HermiteBasis(X.shape[1], 1)
    features, bound = clipped_features(basis, X, clip_norm)
    fit = private_logistic_regression(features, labels, rng=rng, privacy=privacy, composition=composition)
    return fit, basis, bound


def unit_normal(coef: np.ndarray) -> np.ndarray:
    """The unit normal v/‖v‖ of the halfspace ⟨v, x⟩ + b ≥ 0 for coef = (b, v) (e₁ when v = 0)."""
    normal = np.asarray(coef[1:], dtype=float)
    norm = float(np.linalg.norm(normal))
    return normal / norm if norm > 0 else np.eye(normal.size)[0]
