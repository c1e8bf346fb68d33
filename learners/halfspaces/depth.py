"""Depth and the coordinate objective Q_i^S of Definition 8.1, exactly (seed 000, Appendix C).

Reduction (Appendix C, Lemma C.1): a labeled example (x, ℓ), ℓ = 2y − 1 ∈ {−1, 1}, induces the
constraint ℓ(⟨a, x⟩ − w) ≥ 0 on the parameters y = (w, a_1, …, a_d); depth_S counts satisfied
constraints with multiplicity (:func:`depth`).

After fixing the prefix (w, a_1, …, a_{i−2}) (rationals, cleared by their common denominator),
constraint j reads α_j·z + ⟨β_j, u⟩ + γ_j ≥ 0 in the next coordinate z = a_{i−1} and the free
coefficients u = (a_i, …, a_d) (:func:`coordinate_constraints`, integers).
Q_i^S(z) = max_u #{j : α_j z + ⟨β_j, u⟩ + γ_j ≥ 0} is piecewise constant in z: on the sorted
breakpoints b_0 < … < b_{r−1} it takes one value at each b_j and one on each open interval
between them (:class:`SlotScores`, 2r + 1 slots). Exact combinatorial method, integer and
rational arithmetic only:

* no free coefficient (the last coordinate): each constraint is a closed half-line in z; O(m log m);
* one free coefficient u: along the line of constraint i (β_i ≠ 0), constraint k holds on a
  closed half-line of z; the maximum over u at fixed z is attained on one of these lines
  (closed constraints: a point between two crossings satisfies a subset of what its endpoint
  does), so Q = max_i depth along line i: O(m²) breakpoints, O(m³) integer work done in
  chunks of 4·10⁶ cells (m = 200: ~0.5 s; m = 400: 1–4 s, up to 75 000 breakpoints).

Q_1(w) (the threshold, two candidates) is max_z of the slots of coordinate 2 under prefix (w).
Hence every Q_i^S is exact for d ≤ 2; d ≥ 3 (two or more free coefficients) is refused.
For any d, :func:`feasible_interval` gives the full-depth interval of z by two LPs (floats).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import linprog

from dpledger.learners.halfspaces.domains import Slot

SUPPORTED_DIMENSIONS = (1, 2)
"""Dimensions d for which Q_i^S and the restricted traces are exact (see the module docstring)."""


def signed_labels(y: Any) -> np.ndarray:
    """{0, 1} labels as ℓ ∈ {−1, 1} (Section 8.1 identifies the two)."""
    return 2 * np.asarray(y, dtype=np.int64) - 1


def _integer_array(values: list[int]) -> np.ndarray:
    """int64 when products of two entries cannot overflow, Python ints (object) otherwise."""
    largest = max((abs(v) for v in values), default=0)
    return np.array(values, dtype=np.int64 if largest < 2**30 else object)


def depth(X: np.ndarray, y: np.ndarray, parameters: tuple) -> int:
    """depth_S(w, a) = #{j : ℓ_j(⟨a, x_j⟩ − w) ≥ 0} (Appendix C), exactly."""
    w, a = Fraction(parameters[0]), [Fraction(v) for v in parameters[1:]]
    scale = math.lcm(w.denominator, *(v.denominator for v in a))
    weights = [int(v * scale) for v in a]
    margin = np.asarray(X, dtype=object).reshape(len(y), -1) @ np.array(weights, dtype=object) - int(
        w * scale
    )
    return int(np.sum(signed_labels(y) * margin >= 0))


@dataclass(frozen=True)
class CoordinateConstraints:
    """α_j z + ⟨β_j, u⟩ + γ_j ≥ 0, j = 1..m: the constraints of S in the next coordinate z and the
    free coefficients u (``beta`` has one column per free coefficient)."""

    alpha: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray


def coordinate_constraints(X: np.ndarray, y: np.ndarray, prefix: tuple) -> CoordinateConstraints:
    """The constraints of S for coordinate i = len(prefix) + 1 ≥ 2 (prefix = (w, a_1, …, a_{i−2})),
    multiplied by the positive common denominator L of the fixed coefficients."""
    X = np.asarray(X, dtype=np.int64).reshape(len(y), -1)
    fixed = [Fraction(v) for v in prefix]
    L = math.lcm(*(v.denominator for v in fixed))
    labels = signed_labels(y).tolist()
    rows = X.tolist()
    position = len(prefix) - 1  # index of z among a_1..a_d
    alpha, beta, gamma = [], [], []
    for label, x in zip(labels, rows, strict=True):
        # the fixed coefficients a_1..a_{i−1} meet the first coordinates of x only
        fixed_part = sum(int(v * L) * xv for v, xv in zip(fixed[1:], x, strict=False)) - int(fixed[0] * L)
        alpha.append(label * L * x[position])
        beta.append([label * L * xv for xv in x[position + 1 :]])
        gamma.append(label * fixed_part)
    free = X.shape[1] - position - 1
    flat = _integer_array(alpha + [v for row in beta for v in row] + gamma)
    m = len(labels)
    return CoordinateConstraints(flat[:m], flat[m : m + m * free].reshape(m, free), flat[m + m * free :])


@dataclass(frozen=True)
class SlotScores:
    """A piecewise-constant function of z: ``scores[2j + 1]`` at the breakpoint b_j,
    ``scores[2j]`` on the open interval (b_{j−1}, b_j) (b_{−1} = −∞, b_r = +∞)."""

    breakpoints: list[Fraction]
    scores: np.ndarray

    def slot(self, index: int) -> Slot:
        """Slot ``index`` as a point or an open interval."""
        j, at_point = divmod(index, 2)
        if at_point:
            return Slot(self.breakpoints[j], self.breakpoints[j], True)
        low = self.breakpoints[j - 1] if j > 0 else None
        high = self.breakpoints[j] if j < len(self.breakpoints) else None
        return Slot(low, high)

    def index(self, z: Fraction) -> int:
        """The slot holding z."""
        j = bisect.bisect_left(self.breakpoints, z)
        return 2 * j + 1 if j < len(self.breakpoints) and self.breakpoints[j] == z else 2 * j

    def __call__(self, z: Any) -> int:
        return int(self.scores[self.index(Fraction(z))])

    @property
    def maximum(self) -> int:
        return int(self.scores.max())


_CELLS = 4_000_000
"""Rows × slots processed at once by :func:`_halfline_scores` (bounds its memory to ~32 MB)."""


def _sorted_ends(A: np.ndarray, B: np.ndarray) -> tuple[list[Fraction], np.ndarray]:
    """The distinct values −B_k/A_k (A_k ≠ 0) in increasing order and each entry's rank: in int64
    (gcd-normalised pairs, float order certified by exact cross-multiplication) when the
    magnitudes allow it, by Python fractions otherwise."""
    if not len(A):
        return [], np.zeros(0, dtype=np.int64)
    if A.dtype == np.int64 and max(int(np.abs(A).max()), int(np.abs(B).max())) < 2**31:
        num, den = -B * np.sign(A), np.abs(A)
        g = np.gcd(num, den)
        # one int64 code per pair (0 < den < 2^31, |num| < 2^31: injective), a 1-D unique is ~10× faster
        codes, inverse = np.unique((num // g) * 2**32 + den // g, return_inverse=True)
        pairs = np.stack([codes >> 32, codes & (2**32 - 1)], axis=1)
        order = np.argsort(pairs[:, 0] / pairs[:, 1], kind="stable")
        ordered = pairs[order]
        if np.all(ordered[:-1, 0] * ordered[1:, 1] < ordered[1:, 0] * ordered[:-1, 1]):
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order))
            return [Fraction(int(n), int(d)) for n, d in ordered.tolist()], rank[inverse.reshape(-1)]
    ends = [Fraction(-int(b), int(a)) for a, b in zip(A.tolist(), B.tolist(), strict=True)]
    breakpoints = sorted(set(ends))
    where = {b: j for j, b in enumerate(breakpoints)}
    return breakpoints, np.array([where[e] for e in ends], dtype=np.int64)


def _halfline_scores(A: np.ndarray, B: np.ndarray, rows: np.ndarray, count: int) -> SlotScores:
    """For every row r < count, the number of k with A_k z + B_k ≥ 0 (k of that row), on the common
    slots; max over rows. A, B, rows are flat arrays of (row, k) entries."""
    moving = A != 0
    breakpoints, position = _sorted_ends(A[moving], B[moving])
    width = 2 * len(breakpoints) + 2
    up, moving_rows = A[moving] > 0, rows[moving].astype(np.int64)
    constant_rows = rows[(~moving) & (B >= 0)].astype(np.int64)
    scores = np.zeros(width - 1, dtype=np.int64)
    chunk = max(1, _CELLS // width)
    for first in range(0, count, chunk):
        last = min(first + chunk, count)
        diff = np.zeros((last - first) * width, dtype=np.int64)
        here = (moving_rows >= first) & (moving_rows < last)
        row = (moving_rows - first) * width
        np.add.at(diff, (row + 2 * position + 1)[here & up], 1)  # z ≥ e: from the point b_e on
        np.add.at(diff, row[here & ~up], 1)  # z ≤ e: up to and including the point b_e
        np.add.at(diff, (row + 2 * position + 2)[here & ~up], -1)
        kept = constant_rows[(constant_rows >= first) & (constant_rows < last)]
        np.add.at(diff, (kept - first) * width, 1)
        block = np.cumsum(diff.reshape(last - first, width), axis=1)[:, : width - 1].max(axis=0)
        scores = np.maximum(scores, block)
    return SlotScores(breakpoints, scores)


def coordinate_scores(constraints: CoordinateConstraints) -> SlotScores:
    """Q_i^S on every slot of the real line (Definition 8.1), exactly, for ≤ 1 free coefficient."""
    alpha, beta, gamma = constraints.alpha, constraints.beta, constraints.gamma
    m = len(alpha)
    if m == 0:
        return SlotScores([], np.zeros(1, dtype=np.int64))
    free = beta.shape[1]
    if free == 0:
        return _halfline_scores(alpha, gamma, np.zeros(m, dtype=np.int64), 1)
    if free > 1:
        raise ValueError(f"dimension: exact Q_i^S supports at most one free coefficient (d ≤ 2), got {free}")
    b = beta[:, 0]
    lines = np.flatnonzero(b != 0)
    if not len(lines):  # every constraint is independent of u
        return _halfline_scores(alpha, gamma, np.zeros(m, dtype=np.int64), 1)
    # along line i (β_i u = −α_i z − γ_i), constraint k holds iff sign(β_i)·(A z + B) ≥ 0
    bi, ai, gi = b[lines][:, None], alpha[lines][:, None], gamma[lines][:, None]
    sign = np.where(bi > 0, 1, -1)
    A = (sign * (bi * alpha[None, :] - b[None, :] * ai)).reshape(-1)
    B = (sign * (bi * gamma[None, :] - b[None, :] * gi)).reshape(-1)
    rows = np.repeat(np.arange(len(lines)), m)
    return _halfline_scores(A, B, rows, len(lines))


def feasible_interval(constraints: CoordinateConstraints) -> tuple[float, float] | None:
    """I_[m] of Proposition A.1 by two LPs (HiGHS): the smallest and largest z with a completion
    satisfying every constraint, ±inf when unbounded, None when infeasible. Any number of free
    coefficients, in floating point (HiGHS tolerances, ~1e−9): the exact maximizer slots of
    :func:`coordinate_scores` are what the oracles use; this is the general-d cross-check."""
    alpha = np.asarray(constraints.alpha, dtype=float)
    matrix = -np.hstack([alpha[:, None], np.asarray(constraints.beta, dtype=float)])
    bound = np.asarray(constraints.gamma, dtype=float)
    ends = []
    for direction in (1.0, -1.0):
        objective = np.zeros(matrix.shape[1])
        objective[0] = direction
        result = linprog(objective, A_ub=matrix, b_ub=bound, bounds=(None, None), method="highs")
        if result.status == 2:
            return None
        ends.append(-direction * math.inf if result.status == 3 else float(result.x[0]))
    return ends[0], ends[1]


def coordinate_objective(X: np.ndarray, y: np.ndarray, prefix: tuple) -> SlotScores:
    """Q_i^S for coordinate i = len(prefix) + 1 ≥ 2 under ``prefix`` (Definition 8.1)."""
    return coordinate_scores(coordinate_constraints(X, y, prefix))


def threshold_objective(X: np.ndarray, y: np.ndarray, w: int) -> int:
    """Q_1^S(w) = max_a depth_S(w, a) (Definition 8.1 with i = 1): the maximum of the slots of
    coordinate 2 under the prefix (w)."""
    return coordinate_objective(X, y, (w,)).maximum
