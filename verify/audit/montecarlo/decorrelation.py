"""Innovations: a vector output's coordinates decorrelated in their order, for the learned statistics.

:class:`~dpledger.verify.audit.montecarlo.events.LearnedScore` and
:class:`~dpledger.verify.audit.montecarlo.events.CountAbove` look at one coordinate at a time
(its value, square, sign about its centre) and at the max and min: they express the privacy loss
of a mechanism whose coordinates carry independent noise. A mechanism that releases a linear
post-processing of such coordinates hides that loss in combinations of coordinates. The prefix
sums of Laplace-noised answers (Wang, Ding, Wang, Kifer, Zhang 2019, "Proving differential privacy
with shadow execution", PLDI; DP-Sniper's PrefixSum, Bichsel et al. 2021) are the example: their
log-likelihood ratio is ``Σ_j (|d_j − b_j| − |d_j − a_j|) / scale`` on the successive differences
``d_j = y_j − y_{j−1}``, a sum of signs and clipped values of the differences that no
per-coordinate feature of the prefix sums expresses.

The *innovations* of an output vector are its coordinates whitened in their order by the
Cholesky factor of the pooled covariance: with ``Σ = L Lᵀ``, ``u = L⁻¹ (y − c)``, so that
``u_j`` is the standardised residual of ``y_j`` after its linear prediction from ``y_1 … y_{j−1}``
(Gram–Schmidt on the coordinates; the innovations of linear prediction). For prefix sums of
independent noise ``Σ = s² C Cᵀ`` with ``C`` the lower-triangular matrix of ones, so ``L = s C``
and ``u = (d − mean) / s``: the innovations are the noisy answers themselves, up to scale, and the
learned statistics fitted on them express the likelihood ratio. Centre and covariance are
fitted on split 1's fitting rows only (:func:`fit_innovations`), so a statistic of the
innovations (:class:`OnInnovations`) is a fixed function on split 2.

Innovations are offered only when some pair of coordinates is correlated (:data:`CORRELATED`): on
a vector of independent coordinates the whitening would only mix sampling noise into them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import solve_triangular

from dpledger.verify.audit.montecarlo.events import Block, BlockStatistic

CORRELATED = 0.1
"""The smallest absolute correlation between two coordinates, on split 1's fitting rows, for which
the innovations are offered (sampling noise of a correlation is ~0.01 on 2·10⁴ runs per input)."""

RIDGE = 1e-9
"""Added to the correlation matrix's diagonal, so that collinear coordinates keep a Cholesky factor."""


@dataclass(frozen=True, eq=False)
class Innovations:
    """``u = (y − centre) @ whitening``: the whitening is ``diag(1/scale) L⁻ᵀ`` with ``L Lᵀ`` the
    correlation matrix of the standardised coordinates, an upper-triangular matrix (``u_j``
    reads ``y_1 … y_j`` only)."""

    centre: np.ndarray
    whitening: np.ndarray

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return np.subtract(rows, self.centre, dtype=float) @ self.whitening

    def describe(self) -> dict[str, Any]:
        return {"centre": self.centre.tolist(), "whitening": self.whitening.tolist()}


def fit_innovations(a: np.ndarray, b: np.ndarray) -> Innovations | None:
    """The innovations of the pooled runs of a and b (their mean and covariance), or None when no
    two coordinates have an absolute correlation of at least :data:`CORRELATED` (or there is one
    coordinate)."""
    rows = np.concatenate([np.asarray(runs, dtype=float).reshape(len(runs), -1) for runs in (a, b)])
    if rows.shape[1] < 2 or len(rows) < 2:
        return None
    centre = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale[scale == 0] = 1.0
    standard = (rows - centre) / scale
    correlation = standard.T @ standard / len(rows)
    if np.max(np.abs(correlation - np.diag(np.diag(correlation)))) < CORRELATED:
        return None
    correlation[np.diag_indices_from(correlation)] = np.where(
        np.diag(correlation) > 0, np.diag(correlation), 1.0
    )
    factor = np.linalg.cholesky(correlation + RIDGE * np.eye(len(correlation)))
    inverse = solve_triangular(factor, np.eye(len(factor)), lower=True)
    return Innovations(centre, inverse.T / scale[:, None])


@dataclass(frozen=True, eq=False)
class OnInnovations(BlockStatistic):
    """A block statistic (a learned score, a count) of the innovations of the output vector; the
    statistics of one block that read the same innovations share them (:meth:`events.Block.view`)."""

    innovations: Innovations
    statistic: BlockStatistic

    def on_block(self, block: Block) -> np.ndarray:
        return self.statistic.on_block(block.view(self.innovations))

    def describe(self) -> dict[str, Any]:
        inner = self.statistic.describe()
        return {
            **inner,
            "statistic": f"{inner['statistic']}, of the innovations (coordinates decorrelated in "
            f"their order by the Cholesky factor of the pooled covariance)",
            "innovations": self.innovations.describe(),
        }
