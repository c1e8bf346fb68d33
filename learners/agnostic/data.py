"""Input validation shared by the learners, and the synthetic agnostic halfspace data of the
command line and benchmarks.

Synthetic data: x ∼ N(0, I_d); target h*(x) = sign(⟨w*, x⟩ − t*) with w* uniform on the sphere
and t* ∼ N(0, 1/4); then ⌊noise·n⌋ labels are flipped —
``random``: a uniformly random subset (random classification noise at rate exactly ``noise``);
``adversarial``: the points farthest from the boundary on the positive side along a tilted
direction, score ⟨w*, x⟩ − t* + ⟨v, x⟩ with v ⊥ w* a random unit vector (flips placed far
from the boundary, which drag convex surrogates such as the logistic loss). Either way the
target's error on the sample is exactly ⌊noise·n⌋/n.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.learners.randomness import Randomness

NOISE_MODELS = ("random", "adversarial")
MAX_DIM = 1000


@dataclass(frozen=True)
class HalfspaceSample:
    """A labelled sample with its generating halfspace sign(⟨w, x⟩ − t) (before label noise)."""

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    t: float

    def target_predictions(self, X: np.ndarray) -> np.ndarray:
        return np.where(X @ self.w - self.t >= 0, 1, -1)


def check_X(X: Any, dim: int | None = None) -> np.ndarray:
    """X as a finite float (n, d) array; ``ValueError`` naming X otherwise."""
    array = np.asarray(X, dtype=float)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-d array (n, d), got shape {array.shape}")
    if array.shape[1] > MAX_DIM:
        raise ValueError(f"X has d={array.shape[1]} columns; at most {MAX_DIM} dimensions are supported")
    if dim is not None and array.shape[1] != dim:
        raise ValueError(f"X must have {dim} columns (as in fit), got {array.shape[1]}")
    if not np.all(np.isfinite(array)):
        raise ValueError("X contains non-finite values (NaN or infinity)")
    return array


def check_label_set(labels: Any) -> tuple[Any, Any]:
    """The declared label set (negative, positive): two distinct labels, both numbers (not NaN)
    or both strings; ``ValueError`` naming ``labels`` otherwise. Only what the user passed is echoed."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (tuple, list)) or len(labels) != 2:
        raise ValueError(f"labels must be a pair (negative, positive), got {labels!r}")
    numbers = [isinstance(label, (int, float, np.integer, np.floating)) and not np.isnan(label) for label in labels]
    if not (all(numbers) or all(isinstance(label, str) for label in labels)):
        raise ValueError(f"labels must be two numbers or two strings, got {labels!r}")
    negative, positive = labels
    if negative == positive:
        raise ValueError(f"labels must be two distinct labels, got {labels!r}")
    return negative, positive


def check_labels(y: Any, n: int, labels: tuple[Any, Any]) -> np.ndarray:
    """y as a ±1 array: ``labels`` = (negative, positive), declared by the user, never read from y.

    A label outside the declared set raises ``ValueError`` with a fixed message: an error is an
    output, so it names neither the offending value nor its position or count (only n, which
    neighbouring datasets share). Whether an error is raised at all does depend on the data: a
    dataset with such a label is outside the domain the privacy guarantee is stated on."""
    array = np.asarray(y, dtype=object)
    if array.ndim != 1 or array.shape[0] != n:
        raise ValueError(f"y must be a 1-d array of length n={n}, got shape {array.shape}")
    negative, positive = labels
    is_positive = array == positive
    if not np.all(is_positive | (array == negative)):
        raise ValueError(f"y contains a label outside the declared labels {labels!r}")
    return np.where(is_positive, 1.0, -1.0)


def halfspace_data(n: int, dim: int, noise: float, noise_model: str, rng: Randomness) -> HalfspaceSample:
    """n Gaussian points labelled by a random halfspace with ⌊noise·n⌋ labels flipped."""
    if noise_model not in NOISE_MODELS:
        raise ValueError(f"noise_model must be one of {NOISE_MODELS}, got {noise_model!r}")
    if not 0 <= noise < 0.5:
        raise ValueError(f"noise must be in [0, 0.5), got {noise}")
    w = np.asarray(rng.gaussian(1.0, dim))
    w /= np.linalg.norm(w)
    t = float(rng.gaussian(0.5))
    return labelled_sample(n, w, t, noise, noise_model, rng)


def labelled_sample(
    n: int, w: np.ndarray, t: float, noise: float, noise_model: str, rng: Randomness
) -> HalfspaceSample:
    """n fresh Gaussian points for the halfspace (w, t), labels flipped as in the module doc."""
    X = np.asarray(rng.gaussian(1.0, (n, w.size)))
    margin = X @ w - t
    y = np.where(margin >= 0, 1.0, -1.0)
    flips = int(np.floor(noise * n))
    if flips:
        if noise_model == "random":
            chosen = rng.subset(n, flips)
        else:
            v = np.asarray(rng.gaussian(1.0, w.size))
            v -= (v @ w) * w
            v /= np.linalg.norm(v) if w.size > 1 else 1.0
            chosen = np.argsort(-(margin + X @ v), kind="stable")[:flips]
        y[chosen] *= -1
    return HalfspaceSample(X, y, w, t)
