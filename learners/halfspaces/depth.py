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

* two free coefficients u ∈ R² (d = 3 after (w), the constraints' lines in the u-plane have
  point-dependent offsets α_j z + γ_j): unless every β_j ≠ 0 is parallel to one direction, the
  maximum over u at fixed z is attained at the crossing v_ik(z) of the lines of two constraints
  with det(β_i, β_k) ≠ 0 — the satisfied set T of a maximizer is a closed polyhedron; if the β_j
  of T span R² it has a vertex, where T still holds; otherwise it contains a line along which a
  constraint k with β_k not parallel to them becomes satisfied, contradicting maximality. v_ik(z)
  is affine in z, so constraint l holds at it on a closed half-line of z (Cramer: D·(β_l·v + α_l z
  + γ_l) = A_l z + B_l with D = det(β_i, β_k), A_l = Dα_l − α_i det(β_l, β_k) − α_k det(β_i, β_l),
  B_l likewise with γ, integers). Q = max over pairs of these step functions (:func:`_plane_scores`):
  O(m³) integer half-lines; their ends −B/A (the triple concurrencies) are reduced int64 pairs,
  ordered by float keys whose order is certified by exact cross-multiplication (Fractions sort
  them when it is not); each pair's step function as pieces, the maximum over pieces by a table of
  power-of-two windows (two per piece); breakpoints where the maximum does not change are dropped
  (the function is unchanged). All β_j parallel to a primitive e: β_j = λ_j e and t = ⟨e, u⟩ is one
  free coefficient. Coefficients below 2^9 (grids X ≤ 256) keep every product in int64.
  m = 200 on [[±8]]³: ~2–3 s CPU, ~0.6 GB; Q_1^S(w) needs only the largest piece (:func:`plane_maximum`).

Q_1(w) (the threshold, two candidates) is max_z of the slots of coordinate 2 under prefix (w).
Hence every Q_i^S is exact for d ≤ 3; d ≥ 4 (three or more free coefficients) is refused.
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

SUPPORTED_DIMENSIONS = (1, 2, 3)
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
    """Q_i^S on every slot of the real line (Definition 8.1), exactly, for ≤ 2 free coefficients.

    Raises:
        ValueError: more than two free coefficients, or (two) coefficients of 2^9 or more."""
    alpha, beta, gamma = constraints.alpha, constraints.beta, constraints.gamma
    m = len(alpha)
    if m == 0:
        return SlotScores([], np.zeros(1, dtype=np.int64))
    free = beta.shape[1]
    if free == 0:
        return _halfline_scores(alpha, gamma, np.zeros(m, dtype=np.int64), 1)
    if free > 2:
        raise ValueError(f"dimension: exact Q_i^S supports at most two free coefficients (d ≤ 3), got {free}")
    if free == 2:
        return _plane_scores(constraints)
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


_PAIR_ENTRIES = 500_000
"""Pairs × constraints whose crossings :func:`_plane_pieces` evaluates at once (~50 MB of
temporaries); what it keeps is O(m³): ~0.6 GB peak at m = 200."""


def _pair_halflines(
    constraints: CoordinateConstraints, i: np.ndarray, k: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A, B (rows: the pairs (i, k), columns: l) with constraint l at the crossing v_ik(z) of the
    lines of i and k iff A z + B ≥ 0 (see the module docstring; sign(D) folded in)."""
    alpha, gamma = constraints.alpha, constraints.gamma
    b1, b2 = constraints.beta[:, 0], constraints.beta[:, 1]
    D = b1[i] * b2[k] - b2[i] * b1[k]
    det_lk = b1[None, :] * b2[k][:, None] - b2[None, :] * b1[k][:, None]
    det_il = b1[i][:, None] * b2[None, :] - b2[i][:, None] * b1[None, :]
    sign = np.sign(D)[:, None]
    A = sign * (D[:, None] * alpha[None, :] - alpha[i][:, None] * det_lk - alpha[k][:, None] * det_il)
    B = sign * (D[:, None] * gamma[None, :] - gamma[i][:, None] * det_lk - gamma[k][:, None] * det_il)
    return A, B


def _end_codes(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """One int64 per end −B/A (A ≠ 0): the reduced pair (numerator, denominator) packed injectively."""
    num, den = -B * np.sign(A), np.abs(A)
    g = np.gcd(num, den)
    return (num // g) * 2**32 + den // g


def _range_maximum(width: int, low: np.ndarray, high: np.ndarray, value: np.ndarray) -> np.ndarray:
    """max of ``value`` (≥ 0) over the pieces [low, high] covering each of ``width`` slots (0 where
    none): a piece of length ℓ, 2^k ≤ ℓ < 2^{k+1}, sets the two level-k windows [low, low + 2^k) and
    (high − 2^k, high] that cover it; level k is then pushed onto level k − 1's two halves."""
    levels = max(1, int(width).bit_length())
    dtype = np.int16 if int(value.max(initial=0)) < 2**15 else np.int64
    table = np.zeros(levels * width, dtype=dtype)
    k = np.floor(np.log2(high - low + 1)).astype(np.int64)
    k -= (1 << k) > high - low + 1  # float log2 rounding: 2^k ≤ ℓ exactly
    k += (2 << k) <= high - low + 1
    np.maximum.at(
        table,
        np.concatenate((k * width + low, k * width + high - (1 << k) + 1)),
        np.tile(value, 2).astype(dtype),
    )
    grid = table.reshape(levels, width)
    for level in range(levels - 1, 0, -1):
        half = 1 << (level - 1)
        window = grid[level, : width - (1 << level) + 1]
        below = grid[level - 1]
        np.maximum(below[: len(window)], window, out=below[: len(window)])
        np.maximum(below[half : half + len(window)], window, out=below[half : half + len(window)])
    return grid[0].astype(np.int64)


def _plane_pieces(constraints: CoordinateConstraints) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """For every pair of non-parallel constraints (module docstring), its depth step function as
    pieces: the sorted distinct breakpoints (reduced (numerator, denominator) rows) and the
    arrays (first slot, last slot, value); None when every β_j ≠ 0 is parallel."""
    beta = constraints.beta
    m = len(beta)
    entries = (constraints.alpha, beta, constraints.gamma)
    if any(v.dtype != np.int64 or int(np.abs(v).max(initial=0)) >= 2**9 for v in entries):
        # |A|, |B| < 3·2^28: the packed ends and their cross-multiplied comparisons stay in int64
        raise ValueError("coefficients: two free coefficients need constraint coefficients below 2^9")
    i, k = np.triu_indices(m, 1)
    crossing = beta[i, 0] * beta[k, 1] - beta[i, 1] * beta[k, 0] != 0
    i, k = i[crossing], k[crossing]
    if not len(i):
        return None
    step = max(1, _PAIR_ENTRIES // m)
    starts, rows, codes, ups = [], [], [], []
    for first in range(0, len(i), step):
        A, B = _pair_halflines(constraints, i[first : first + step], k[first : first + step])
        starts.append(((A == 0) & (B >= 0)).sum(axis=1) + (A < 0).sum(axis=1))  # the value at z → −∞
        row, col = np.nonzero(A)
        rows.append(row + first)
        codes.append(_end_codes(A[row, col], B[row, col]))
        ups.append(A[row, col] > 0)
    start, row, code, up = (np.concatenate(v) for v in (starts, rows, codes, ups))
    del rows, codes, ups
    distinct, inverse = np.unique(code, return_inverse=True)
    del code
    pairs = np.stack([distinct >> 32, distinct & (2**32 - 1)], axis=1)
    order = np.argsort(pairs[:, 0] / pairs[:, 1], kind="stable")
    ordered = pairs[order]
    if not np.all(ordered[:-1, 0] * ordered[1:, 1] < ordered[1:, 0] * ordered[:-1, 1]):
        order = np.array(
            sorted(range(len(pairs)), key=lambda j: Fraction(*pairs[j].tolist())), dtype=np.int64
        )
        ordered = pairs[order]
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    rank = rank_of[inverse.reshape(-1)]
    width = 2 * len(order) + 1
    slot = np.where(up, 2 * rank + 1, 2 * rank + 2)  # z ≥ e from the point b_e on; z ≤ e up to it
    del rank, inverse
    keys, change = np.unique(row * (width + 1) + slot, return_inverse=True)
    del row, slot
    delta = np.bincount(change.reshape(-1), weights=np.where(up, 1, -1), minlength=len(keys)).astype(np.int64)
    key_row, key_slot = keys // (width + 1), keys % (width + 1)
    count = len(start)
    first_key = np.searchsorted(key_row, np.arange(count))
    running = np.cumsum(delta)
    before = np.concatenate(([0], running))[first_key]  # Σ delta over the earlier rows
    value = start[key_row] + running - before[key_row]
    following = np.append(key_slot, width)[1:]  # the next change of the same row, or the end
    following[np.append(key_row, -1)[1:] != key_row] = width
    has = np.append(key_row, count)[first_key] == np.arange(count)
    head = np.where(has, np.append(key_slot, width)[first_key], width)  # each row's first change
    low = np.concatenate((key_slot, np.zeros(count, dtype=np.int64)))
    high = np.concatenate((following - 1, head - 1))
    values = np.concatenate((value, start))
    present = low <= high
    return ordered, [low[present], high[present], values[present]]


def _plane_scores(constraints: CoordinateConstraints) -> SlotScores:
    """Q on the slots of z for two free coefficients: the maximum over pairs of non-parallel
    constraints of the depth at their crossing (module docstring), exactly; breakpoints where the
    maximum does not change are dropped."""
    found = _plane_pieces(constraints)
    if found is None:
        return coordinate_scores(_parallel_reduction(constraints))
    ordered, (low, high, value) = found
    scores = _range_maximum(2 * len(ordered) + 1, low, high, value)
    # breakpoint j is kept unless the point and both neighbouring intervals score the same
    kept = ~((scores[1::2] == scores[0:-1:2]) & (scores[1::2] == scores[2::2]))
    slots = np.concatenate(([0], np.flatnonzero(np.repeat(kept, 2)) + 1))
    breakpoints = [Fraction(int(n), int(d)) for n, d in ordered[kept].tolist()]
    return SlotScores(breakpoints, scores[slots])


def plane_maximum(constraints: CoordinateConstraints) -> int:
    """max_z Q(z) for two free coefficients (the maximum depth over every completion), without
    the range maximum: the largest value of any pair's step function."""
    found = _plane_pieces(constraints)
    if found is None:
        return coordinate_scores(_parallel_reduction(constraints)).maximum
    return int(found[1][2].max())


def _parallel_reduction(constraints: CoordinateConstraints) -> CoordinateConstraints:
    """Every β_j ≠ 0 parallel to a primitive e: β_j = λ_j e, one free coefficient t = ⟨e, u⟩."""
    beta = constraints.beta
    nonzero = np.flatnonzero(np.any(beta != 0, axis=1))
    if not len(nonzero):
        return CoordinateConstraints(constraints.alpha, beta[:, :0], constraints.gamma)
    first = beta[nonzero[0]].tolist()
    g = math.gcd(*first)
    e = np.array([v // g for v in first], dtype=np.int64)
    lam = (beta @ e) // int(e @ e)
    return CoordinateConstraints(constraints.alpha, lam[:, None], constraints.gamma)


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
    coordinate 2 under the prefix (w) (for d = 3 by :func:`plane_maximum`)."""
    constraints = coordinate_constraints(X, y, (w,))
    if constraints.beta.shape[1] == 2:
        return plane_maximum(constraints)
    return coordinate_scores(constraints).maximum
