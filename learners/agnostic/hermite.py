"""Orthonormal Hermite features of total degree ≤ D on ℝ^d (seed 002, Section 2 and Lemma B.8).

For a multi-index α ∈ ℕ^d with |α| ≤ D the feature is h_α(x) = Π_j h_{α_j}(x_j), where
h_k = He_k/√(k!) is the normalised probabilists' Hermite polynomial, computed with the stable
three-term recurrence h_0 = 1, h_1 = x, h_{k+1} = (x·h_k − √k·h_{k−1})/√(k+1). Under N(0, I_d)
the h_α are orthonormal (O'Donnell 2014, Ch. 11), there are C(d+D, D) of them, and so
E‖h(x)‖² = C(d+D, D). Features are clipped to a public Euclidean norm bound B (Lemma C.2), so
the regression loss is B-Lipschitz in the coefficients.
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np

MAX_FEATURES = 2000
"""Largest supported C(d+D, D): an n × 2000 float matrix is 320 MB at n = 20 000."""


def feature_count(dim: int, degree: int) -> int:
    """C(d+D, D), the number of monomials (equivalently Hermite products) of degree ≤ D in d variables."""
    return math.comb(dim + degree, degree)


def check_feasible(dim: int, degree: int) -> int:
    """The feature count C(d+D, D); ``ValueError`` naming the parameter when out of range."""
    for name, value in (("dim", dim), ("degree", degree)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
    count = feature_count(int(dim), int(degree))
    if count > MAX_FEATURES:
        raise ValueError(
            f"degree D={degree} in d={dim} dimensions needs C(d+D, D) = {count} features, "
            f"more than the supported {MAX_FEATURES}; lower degree"
        )
    return count


def multi_indices(dim: int, degree: int) -> np.ndarray:
    """All α ∈ ℕ^d with |α| ≤ D, graded by total degree, as an (F, d) integer array."""
    rows = []
    for total in range(degree + 1):
        for coordinates in combinations_with_replacement(range(dim), total):
            alpha = np.zeros(dim, dtype=np.int64)
            np.add.at(alpha, list(coordinates), 1)
            rows.append(alpha)
    return np.array(rows, dtype=np.int64).reshape(-1, dim)


def hermite_1d(x: np.ndarray, degree: int) -> np.ndarray:
    """h_0(x), …, h_D(x) stacked on a new last axis (the normalised recurrence above)."""
    values = np.empty((*x.shape, degree + 1), dtype=float)
    values[..., 0] = 1.0
    if degree >= 1:
        values[..., 1] = x
    for k in range(1, degree):
        values[..., k + 1] = (x * values[..., k] - math.sqrt(k) * values[..., k - 1]) / math.sqrt(k + 1)
    return values


def products(univariate: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Π_j univariate[:, j, α_j] for every row α of ``indices``: an (n, F) matrix. A multi-index of
    total degree ≤ D has at most D non-zero entries, so the product runs over D "slots" (slot s
    holds the s-th non-zero coordinate of α, or degree 0 — the factor 1 — when α has fewer): D
    column gathers instead of d."""
    n, dim, width = univariate.shape
    flat = univariate.reshape(n, dim * width)
    slots = max(int(indices.sum(axis=1).max(initial=0)), 1)
    columns = np.zeros((slots, indices.shape[0]), dtype=np.int64)  # column j·width + 0 has h_0 = 1
    for row, alpha in enumerate(indices):
        support = np.flatnonzero(alpha)
        columns[: support.size, row] = support * width + alpha[support]
    out = flat[:, columns[0]]
    for slot in columns[1:]:
        out *= flat[:, slot]
    return out


class HermiteBasis:
    """Orthonormal Hermite features of total degree ≤ D under N(0, I_d) (Lemma B.8)."""

    def __init__(self, dim: int, degree: int) -> None:
        self.n_features = check_feasible(dim, degree)
        self.dim, self.degree = dim, degree
        self.indices = multi_indices(dim, degree)

    def features(self, X: np.ndarray) -> np.ndarray:
        """The (n, C(d+D, D)) matrix of h_α(x_i), graded order."""
        return products(hermite_1d(np.asarray(X, dtype=float), self.degree), self.indices)


def hermite_features(X: np.ndarray, degree: int) -> np.ndarray:
    """The (n, C(d+D, D)) matrix of orthonormal Hermite features h_α(x_i), graded order."""
    X = np.asarray(X, dtype=float)
    return HermiteBasis(X.shape[1], degree).features(X)


def clip_rows(features: np.ndarray, bound: float) -> np.ndarray:
    """Each row scaled to Euclidean norm ≤ ``bound`` (rows already inside are unchanged)."""
    norms = np.linalg.norm(features, axis=1)
    scale = np.minimum(1.0, bound / np.maximum(norms, np.finfo(float).tiny))
    return features * scale[:, None]


def default_clip_norm(n_features: int) -> float:
    """B = 2√F. For F features orthonormal under the marginal, E‖φ(x)‖² = F, so Markov's
    inequality bounds the clipping probability by F/B² = 1/4 (the role of Lemma C.2; at low
    degree it is far smaller)."""
    return 2.0 * math.sqrt(n_features)


def gradient_gram(coef: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """M = E_{x∼N(0,I)}[∇p(x) ∇p(x)ᵀ] for p = Σ_α c_α h_α, exactly: ∂_i h_α = √α_i · h_{α−e_i}
    and orthonormality give M_ij = ⟨v_i, v_j⟩ with v_i[β] = c_{β+e_i} √(β_i + 1)
    (the influence matrix of Diakonikolas et al. 2021a, Section 3)."""
    position = {tuple(alpha): row for row, alpha in enumerate(indices.tolist())}
    dim = indices.shape[1]
    v = np.zeros((dim, len(position)))
    for row, alpha in enumerate(indices.tolist()):
        for i in range(dim):
            if alpha[i] > 0:
                beta = list(alpha)
                beta[i] -= 1
                v[i, position[tuple(beta)]] += coef[row] * math.sqrt(alpha[i])
    return v @ v.T


def top_subspace(coef: np.ndarray, indices: np.ndarray, k: int) -> np.ndarray:
    """The top-k eigenvectors of E[∇p ∇pᵀ] (:func:`gradient_gram`) as a (d, min(k, d))
    orthonormal matrix (the subspace of Diakonikolas et al. 2021a, Section 3)."""
    values, vectors = np.linalg.eigh(gradient_gram(coef, indices))
    return vectors[:, np.argsort(values)[::-1][:k]]
