"""Input validation of the agnostic learners' features, and the synthetic agnostic halfspace data of the
command line and benchmarks.

Synthetic data: x from the ``marginal`` — ``gaussian`` N(0, I_d) (the theorems' assumption),
``uniform`` (the cube [−√3, √3]^d) or ``student-t`` (independent Student-t coordinates with 5
degrees of freedom scaled to variance 1, a heavy-tailed marginal outside every theorem); target h*(x) = sign(⟨w*, x⟩ − t*) with w* uniform on the sphere
and t* ∼ N(0, 1/4); then ⌊noise·n⌋ labels are flipped —
``random``: a uniformly random subset (random classification noise at rate exactly ``noise``);
``adversarial`` (far one-sided): the points farthest from the boundary on the positive side along
a tilted direction, score ⟨w*, x⟩ − t* + ⟨v, x⟩ with v ⊥ w* a random unit vector (flips placed far
from the boundary, which drag convex surrogates such as the logistic loss);
``two-sided`` (far two-sided): half of the flips as in ``adversarial``, the other half the points
farthest on the negative side along the same tilt, score −(⟨w*, x⟩ − t*) + ⟨v, x⟩ (a record is
flipped at most once). Either way the target's error on the sample is exactly ⌊noise·n⌋/n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr

from dpledger.learners.estimator import check_features
from dpledger.learners.randomness import Randomness

NOISE_MODELS = ("random", "adversarial", "two-sided")
DATA_MARGINALS = ("gaussian", "uniform", "student-t")
STUDENT_DOF = 5
MAX_DIM = 1000


@dataclass(frozen=True)
class HalfspaceSample:
    """A labelled sample with its generating halfspace sign(⟨w, x⟩ − t) (before label noise) and the
    tilt v of its far flips (``None`` under random noise or without flips)."""

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    t: float
    tilt: np.ndarray | None = None

    def target_predictions(self, X: np.ndarray) -> np.ndarray:
        return np.where(X @ self.w - self.t >= 0, 1, -1)


def check_X(X: Any, min_samples: int = 2) -> np.ndarray:
    """X as a finite float (n, d) array with n ≥ ``min_samples`` and d ≤ 1000
    (:func:`~dpledger.learners.estimator.check_features`); ``ValueError`` naming X otherwise."""
    array = check_features(X, min_samples=min_samples)
    if array.shape[1] > MAX_DIM:
        raise ValueError(f"X has d={array.shape[1]} columns; at most {MAX_DIM} dimensions are supported")
    return array


def sample_marginal(marginal: str, n: int, dim: int, rng: Randomness) -> np.ndarray:
    """n points of the named marginal (module doc), each coordinate of mean 0 and variance 1."""
    if marginal == "gaussian":
        return np.asarray(rng.gaussian(1.0, (n, dim)))
    if marginal == "uniform":
        return math.sqrt(3.0) * (2.0 * ndtr(np.asarray(rng.gaussian(1.0, (n, dim)))) - 1.0)
    if marginal == "student-t":
        chi_square = np.sum(np.asarray(rng.gaussian(1.0, (STUDENT_DOF, n, dim))) ** 2, axis=0)
        t = np.asarray(rng.gaussian(1.0, (n, dim))) / np.sqrt(chi_square / STUDENT_DOF)
        return t / math.sqrt(STUDENT_DOF / (STUDENT_DOF - 2))
    raise ValueError(f"marginal must be one of {DATA_MARGINALS}, got {marginal!r}")


def halfspace_data(
    n: int, dim: int, noise: float, noise_model: str, rng: Randomness, marginal: str = "gaussian"
) -> HalfspaceSample:
    """n points of ``marginal`` labelled by a random halfspace with ⌊noise·n⌋ labels flipped."""
    if marginal not in DATA_MARGINALS:
        raise ValueError(f"marginal must be one of {DATA_MARGINALS}, got {marginal!r}")
    if noise_model not in NOISE_MODELS:
        raise ValueError(f"noise_model must be one of {NOISE_MODELS}, got {noise_model!r}")
    if not 0 <= noise < 0.5:
        raise ValueError(f"noise must be in [0, 0.5), got {noise}")
    w = np.asarray(rng.gaussian(1.0, dim))
    w /= np.linalg.norm(w)
    t = float(rng.gaussian(0.5))
    return labelled_sample(n, w, t, noise, noise_model, rng, marginal)


def labelled_sample(
    n: int,
    w: np.ndarray,
    t: float,
    noise: float,
    noise_model: str,
    rng: Randomness,
    marginal: str = "gaussian",
    tilt: np.ndarray | None = None,
) -> HalfspaceSample:
    """n fresh points of ``marginal`` for the halfspace (w, t), labels flipped as in the module doc.

    Far flips follow ``tilt`` (a unit vector ⊥ w, e.g. a training sample's ``tilt``, so that a test set
    comes from the training distribution); a fresh random tilt is drawn when it is ``None``."""
    X = sample_marginal(marginal, n, w.size, rng)
    margin = X @ w - t
    y = np.where(margin >= 0, 1.0, -1.0)
    flips = int(np.floor(noise * n))
    if flips:
        if noise_model == "random":
            chosen = rng.subset(n, flips)
        else:
            tilt = random_tilt(w, rng) if tilt is None else tilt
            chosen = far_flips(margin, X @ tilt, flips, two_sided=noise_model == "two-sided")
        y[chosen] *= -1
    return HalfspaceSample(X, y, w, t, tilt if noise_model != "random" else None)


def random_tilt(w: np.ndarray, rng: Randomness) -> np.ndarray:
    """A random unit vector v ⊥ w (v = 0 when d = 1: no direction is orthogonal)."""
    v = np.asarray(rng.gaussian(1.0, w.size))
    v -= (v @ w) * w
    v /= np.linalg.norm(v) if w.size > 1 else 1.0
    return v


def far_flips(margin: np.ndarray, tilt: np.ndarray, flips: int, *, two_sided: bool) -> np.ndarray:
    """Indices of the ``flips`` records farthest from the boundary along the tilt (module doc)."""
    positive_side = np.argsort(-(margin + tilt), kind="stable")
    if not two_sided:
        return positive_side[:flips]
    chosen = positive_side[: flips - flips // 2]
    taken = np.zeros(margin.size, dtype=bool)
    taken[chosen] = True
    negative_side = np.argsort(-(tilt - margin), kind="stable")
    return np.concatenate([chosen, negative_side[~taken[negative_side]][: flips // 2]])
