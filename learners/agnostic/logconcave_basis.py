"""Feature maps for the improper learner: the Hermite basis under N(0, I_d) (Theorem 2.1) and,
for a known log-concave marginal, the orthonormal basis from its moment matrix (Theorem D.1,
Appendix D.1; Dunkl–Xu 2014): with m(x) the monomials of degree ≤ D, G = E[m mᵀ] (entries are
moments of the marginal through degree 2D), G = L Lᵀ (Cholesky; G ≻ 0 for a full-dimensional
marginal) and φ(x) = L⁻¹ m(x), so E[φ φᵀ] = L⁻¹ G L⁻ᵀ = I.

Known marginals are product measures of standardised (mean 0, variance 1) log-concave factors
with closed-form moments: Gaussian, uniform on [−√3, √3], Laplace with scale 1/√2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from scipy.special import ndtr

from dpledger.learners.agnostic.hermite import (
    HermiteBasis,
    check_feasible,
    clip_rows,
    default_clip_norm,
    multi_indices,
    products,
)
from dpledger.learners.randomness import Randomness

MARGINALS = ("gaussian", "uniform", "laplace")


class Basis(Protocol):
    """A public feature map of ``n_features`` orthonormal polynomials under a known marginal."""

    n_features: int

    def features(self, X: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class ProductMarginal:
    """The product of d standardised copies of a one-dimensional log-concave law."""

    name: str = "gaussian"

    def __post_init__(self) -> None:
        if self.name not in MARGINALS:
            raise ValueError(f"marginal must be one of {MARGINALS}, got {self.name!r}")

    def moment(self, k: int) -> float:
        """E[X^k] of the standardised one-dimensional factor."""
        if k % 2:
            return 0.0
        if self.name == "gaussian":
            return float(math.prod(range(k - 1, 0, -2)))
        if self.name == "uniform":
            return math.sqrt(3.0) ** k / (k + 1)
        return math.factorial(k) * (1 / math.sqrt(2.0)) ** k

    def sample(self, n: int, dim: int, rng: Randomness) -> np.ndarray:
        """n draws from the d-fold product (uniform via Φ of a Gaussian draw)."""
        if self.name == "gaussian":
            return np.asarray(rng.gaussian(1.0, (n, dim)))
        if self.name == "uniform":
            return math.sqrt(3.0) * (2.0 * ndtr(np.asarray(rng.gaussian(1.0, (n, dim)))) - 1.0)
        return np.asarray(rng.laplace(1 / math.sqrt(2.0), (n, dim)))


class MomentBasis:
    """φ = L⁻¹ m for a known product log-concave marginal (Appendix D.1)."""

    def __init__(self, marginal: ProductMarginal, dim: int, degree: int) -> None:
        self.n_features = check_feasible(dim, degree)
        self.dim, self.degree, self.marginal = dim, degree, marginal
        self.indices = multi_indices(dim, degree)
        sums = self.indices[:, None, :] + self.indices[None, :, :]
        table = np.array([marginal.moment(k) for k in range(2 * degree + 1)])
        gram = np.prod(table[sums], axis=2)
        self.cholesky = cholesky(gram, lower=True)

    def monomials(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        powers = X[..., None] ** np.arange(self.degree + 1)
        return products(powers, self.indices)

    def features(self, X: np.ndarray) -> np.ndarray:
        return solve_triangular(self.cholesky, self.monomials(X).T, lower=True).T


def make_basis(marginal: ProductMarginal | None, dim: int, degree: int) -> HermiteBasis | MomentBasis:
    """Hermite features for the Gaussian marginal (or ``None``), the moment basis otherwise."""
    if marginal is None or marginal.name == "gaussian":
        return HermiteBasis(dim, degree)
    return MomentBasis(marginal, dim, degree)


def clipped_features(basis: Basis, X: np.ndarray, clip_norm: float | None) -> tuple[np.ndarray, float]:
    """The basis features of X clipped to B (default 2√F, see :func:`default_clip_norm`), and B."""
    bound = default_clip_norm(basis.n_features) if clip_norm is None else float(clip_norm)
    return clip_rows(basis.features(X), bound), bound
