"""Halfspace traces counted by score without listing them (seed 000, Algorithm 1 line 5
and Appendix C): the exact exponential mechanism over Π_C(P) for halfspaces 1[⟨a, x⟩ ≥ w] on
[[±X]]², in O(|P|² log |P|) integer work instead of the O(|P|³) listing of
:mod:`~dpledger.learners.halfspaces.geometry`.

**Cells.** For fixed w the labelings are the faces of the arrangement of the lines
ℓ_j = {a ∈ R² : ⟨a, x_j⟩ = w} (x_j ≠ 0; x_j = 0 has the constant label [0 ≥ w]). For w ≠ 0 every
face's labeling is that of a cell (open face): the normals x_j of the lines through a face satisfy
⟨a/w, x_j⟩ = 1 > 0, so a step along a·sign(w) enters a cell with those labels 1 and no other
changed; distinct cells differ on a separating line. So T_w = {labelings of cells}, and
T_{−1} = {1 − g : g ∈ T_1} (b = −a maps the cells of w = 1 to those of w = −1, labels reversed).
Only the arrangement of w = 1 is built.

**Enumeration** (each cell once). A generic height h(a) = ⟨c, a⟩, c = (1, K), K = max|x| + 1
(no line is a level set, since x_j ∦ c), orients every line upward (direction d_j = ±x_j⊥ with
⟨c, d_j⟩ > 0) and ranks points of a line by t = ⟨a, d_j⟩. A cell either has a lowest vertex or is
unbounded below. At a vertex v where r lines meet, the cells with lowest vertex v are the r − 1
sectors between consecutive upward rays; each is the cell just clockwise of the upward ray of a
line j through v that is not the clockwise-most (some other line's upward direction has
cross(d_j, d_k) < 0). The cells unbounded below are the intervals of a line far below: the one
just clockwise of each line's lowest edge, and the leftmost, labeled [⟨e, x⟩ < 0] with
e = (K, −1) ⊥ c (it contains −2e). Hence |T_1| = 1 + #lines + Σ_v (r_v − 1), and a cell is named by
(j, v) (v = None: below every vertex of ℓ_j; j = −1: the leftmost cell).

**Scores.** q(S, g) = Σ_j n_{g_j}(x_j) (n_b(x): labeled records at x with label b). Walking up ℓ_j
from t = −∞ (where point k has label [⟨d_j, x_k⟩ < 0], or, parallel, [⟨x_k, x_j⟩ > |x_j|²]),
the lines through a vertex flip together, so the score of every edge of ℓ_j is a prefix sum over
its vertices sorted by t; a cell clockwise of ℓ_j adds n_{b_j}(x_j), b_j its label on that side.
Crossing parameters t_jk = (|x_j|² − ⟨x_j, x_k⟩)/⟨d_j, x_k⟩ are compared through the exact integer
keys ⌊t·B²⌋ (B > every |⟨d_j, x_k⟩|: distinct such fractions differ by ≥ 1/B²) — no float decides.

**Union over w** (the class without prefix): Π_C(P) = T_{−1} ∪ T_1, and T_1 ∩ T_{−1} is the set of
labelings [⟨u, x⟩ > 0] of the open cells u of the central arrangement {⟨u, x_j⟩ = 0} (empty when
0 ∈ P): if a, b realize g strictly at w = 1 and w = −1, then u = a + b separates strictly;
conversely Ru realizes such a g at both for R large. Those labelings are marked among the cells of
T_1 through an integer linear hash verified exactly. Union ranks of score s: first T_{−1}'s, then
T_1's cells of score s outside T_{−1}.

**Draws and representatives.** ``labeling(score, rank)`` is the rank-th cell of that score in the
enumeration order (stored as (j, partner line, score): ≈ |P|²/2 cells). The representative is
*not* the listed trace's choice: it is an exact rational point strictly inside the cell, computed
from the cell alone — v + u/K' near its lowest vertex v for u just clockwise of d_j (or a point
of ℓ_j below its vertices, or −2e) — and :meth:`PlaneCells.locate` finds (j, v) from the labels
alone (the per-line feasible intervals), so the representative is a function of the labeling. It
is only CarryForwardLearner's internal witness (the released output is the final prefix); the
exact auditor (Enumerated randomness) keeps the listed trace and its representatives.

With one free coefficient (d = 1 after w, d = 2 after (w, a_1)) the ≤ 2|P| + 1 labelings of
[α_j u + γ_j ≥ 0] are counted by a sweep over the sorted breakpoints −γ_j/α_j
(:class:`LineCells`), with the listed trace's representative exactly.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpledger.learners.concept_classes import Components
from dpledger.learners.halfspaces.arrangement3d import HalfspaceTrace3D
from dpledger.learners.halfspaces.depth import coordinate_constraints
from dpledger.learners.halfspaces.domains import simplest_between
from dpledger.learners.score_counts import ScoreCounts, SignUnion

_ROWS = 256
"""Lines swept per chunk (the chunk's matrices are _ROWS × |P| integers)."""

_INT64_SAFE = 2**62
_HASH_BITS = 40
_HASH_SEED = 20  # fixed weights of the membership filter of T_1 ∩ T_{−1}; every hit is verified exactly


@dataclass(frozen=True)
class _Chunk:
    """The rows ``J`` (lines) of the sweep against every point k: ⟨d_j, x_k⟩, ⟨x_j, x_k⟩, the
    crossing keys (``_FAR`` where ℓ_k does not cross ℓ_j) and the labels at t = −∞ on ℓ_j."""

    J: np.ndarray
    dot: np.ndarray
    key: np.ndarray
    below: np.ndarray


_FAR = np.iinfo(np.int64).max


def record_counts(size: int, index: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n_0, n_1): the labeled records with label 0 / 1 at each of ``size`` points (q(S, g) = Σ_j n_{g_j})."""
    return np.bincount(index[labels == 0], minlength=size), np.bincount(index[labels == 1], minlength=size)


class PlaneCells:
    """The cells of the arrangement {a : ⟨a, x_j⟩ = 1} of the points ``P`` (n × 2 integers,
    distinct), scored by n0/n1 (records labeled 0/1 at each point); see the module docstring."""

    def __init__(self, P: np.ndarray, n0: np.ndarray, n1: np.ndarray) -> None:
        self.P = np.asarray(P, dtype=np.int64).reshape(-1, 2)
        self.n0, self.n1 = np.asarray(n0, dtype=np.int64), np.asarray(n1, dtype=np.int64)
        bound = int(np.abs(self.P).max()) if len(self.P) else 0
        self.K = bound + 1
        self.scale = (2 * bound * bound + 1) ** 2  # B² with B > |⟨d_j, x_k⟩|
        if 4 * bound * bound * self.scale >= _INT64_SAFE or len(self.P) >= 2 ** (62 - _HASH_BITS):
            raise ValueError(f"grid bound {bound} too large for the int64 crossing keys")
        self.lines = np.flatnonzero(np.any(self.P != 0, axis=1))
        raw = np.stack([-self.P[:, 1], self.P[:, 0]], axis=1)
        upward = raw[:, 0] + self.K * raw[:, 1] > 0
        self.d = np.where(upward[:, None], raw, -raw)  # d_j = ±x_j⊥ with ⟨c, d_j⟩ > 0
        self.b = upward  # label of x_j just clockwise of the upward ℓ_j: sign⟨(d_j1, −d_j0), x_j⟩ = ±|x_j|²
        self.norm = (self.P * self.P).sum(axis=1)
        self.weights = np.random.default_rng(_HASH_SEED).integers(1, 2**_HASH_BITS, len(self.P))
        self.left = (self.K * self.P[:, 0] - self.P[:, 1] < 0).astype(np.int8)  # the leftmost cell
        self._enumerate()

    # -- the sweep ---------------------------------------------------------------------------

    def _chunks(self) -> Iterator[_Chunk]:
        P = self.P
        for start in range(0, len(self.lines), _ROWS):
            J = self.lines[start : start + _ROWS]
            dot = self.d[J] @ P.T
            inner = P[J] @ P.T
            num = self.norm[J][:, None] - inner
            crossing = dot != 0
            safe = np.where(crossing, dot, 1)
            key = np.where(crossing, (num * np.sign(safe) * self.scale) // np.abs(safe), _FAR)
            below = np.where(crossing, dot < 0, inner > self.norm[J][:, None])
            below[np.arange(len(J)), J] = False
            yield _Chunk(J, dot, key, below)

    def _enumerate(self) -> None:
        """Every cell once, in the order: leftmost, the lowest cell clockwise of each line, then
        the cells with a lowest vertex, line by line in increasing t."""
        gain = self.n1 - self.n0
        nb = np.where(self.b, self.n1, self.n0)
        lines, partners, scores, hashes = (
            [np.array([-1])],
            [np.array([-1])],
            [np.array([self._score(self.left)])],
            [np.array([int(self.left @ self.weights)])],
        )
        vertex_parts: list[tuple[np.ndarray, ...]] = []
        for chunk in self._chunks():
            J = chunk.J
            base = np.where(chunk.below, self.n1, self.n0).sum(axis=1) - self.n0[J] + nb[J]
            hbase = (chunk.below * self.weights).sum(axis=1) + self.b[J] * self.weights[J]
            lines.append(J)
            partners.append(np.full(len(J), -1))
            scores.append(base)
            hashes.append(hbase)
            order = np.argsort(chunk.key, axis=1, kind="stable")
            key = np.take_along_axis(chunk.key, order, axis=1)
            sign = np.sign(np.take_along_axis(chunk.dot, order, axis=1))
            turn = np.multiply.outer(self.d[J, 0], self.d[:, 1]) - np.multiply.outer(
                self.d[J, 1], self.d[:, 0]
            )
            cw = np.take_along_axis(turn < 0, order, axis=1)  # cross(d_j, d_k) < 0: d_k clockwise of d_j
            valid = key != _FAR
            row, _ = np.nonzero(valid)
            k, key, sign, cw = order[valid], key[valid], sign[valid], cw[valid]
            if not len(k):
                continue
            last = np.ones(len(k), dtype=bool)
            last[:-1] = (key[1:] != key[:-1]) | (row[1:] != row[:-1])
            starts = np.searchsorted(row, np.arange(len(J)))
            delta, hdelta = np.cumsum(sign * gain[k]), np.cumsum(sign * self.weights[k])
            delta_before = np.concatenate(([0], delta))[starts]
            hdelta_before = np.concatenate(([0], hdelta))[starts]
            ends = np.flatnonzero(last)
            turns = np.cumsum(cw)[ends]
            keep = ends[np.diff(np.concatenate(([0], turns))) > 0]  # some upward ray clockwise of d_j
            r = row[keep]
            vertex_parts.append(
                (
                    J[r],
                    k[keep],
                    base[r] + delta[keep] - delta_before[r],
                    hbase[r] + hdelta[keep] - hdelta_before[r],
                )
            )
        for part in vertex_parts:
            for store, values in zip((lines, partners, scores, hashes), part, strict=True):
                store.append(values)
        self.cell_line = np.concatenate(lines).astype(np.int32)
        self.cell_partner = np.concatenate(partners).astype(np.int32)
        self.cell_score = np.concatenate(scores).astype(np.int64)
        self.cell_hash = np.concatenate(hashes).astype(np.int64)

    def _score(self, labels: np.ndarray) -> int:
        return int(np.where(labels == 1, self.n1, self.n0).sum())

    # -- cells: labels and witnesses ---------------------------------------------------------

    def vertex(self, j: int, k: int) -> tuple[int, int, int]:
        """ℓ_j ∩ ℓ_k as (p0, p1, D) = p/D in lowest terms, D > 0 (Cramer's rule)."""
        xj, xk = self.P[j].tolist(), self.P[k].tolist()
        D = xj[0] * xk[1] - xj[1] * xk[0]
        p0, p1 = xk[1] - xj[1], xj[0] - xk[0]
        g = math.gcd(p0, p1, D) * (1 if D > 0 else -1)
        return p0 // g, p1 // g, D // g

    def cell_labels(self, j: int, v: tuple[int, int, int] | None) -> np.ndarray:
        """The labeling of the cell named (j, v) (integer arithmetic)."""
        if j < 0:
            return self.left.copy()
        dot = self.P @ self.d[j]
        if v is None:
            inner = self.P @ self.P[j]
            labels = np.where(dot != 0, dot < 0, inner > self.norm[j])
        else:
            value = self.P @ np.array(v[:2], dtype=np.int64) - v[2]
            labels = np.where(value != 0, value > 0, dot > 0)
        labels = labels.astype(np.int8)
        labels[j] = self.b[j]
        return labels

    def cell(self, index: int) -> tuple[int, tuple[int, int, int] | None]:
        """The name (j, v) of the index-th enumerated cell."""
        j, k = int(self.cell_line[index]), int(self.cell_partner[index])
        return j, (None if k < 0 else self.vertex(j, k))

    def witness(self, j: int, v: tuple[int, int, int] | None) -> tuple[Fraction, Fraction]:
        """A rational a strictly inside the cell (j, v): ⟨a, x⟩ > 1 where it is labeled 1, < 1 else."""
        if j < 0:
            return Fraction(-2 * self.K), Fraction(2)
        xj, dj = self.P[j].tolist(), self.d[j].tolist()
        normal = [dj[1], -dj[0]]  # clockwise of d_j
        if v is None:
            dot = self.P @ self.d[j]
            num = self.norm[j] - self.P @ self.P[j]
            crossing = np.flatnonzero(dot != 0)
            t = min((Fraction(int(num[k]), int(dot[k])) for k in crossing), default=Fraction(1)) - 1
            q = [
                (Fraction(xj[0]) + t * dj[0]) / int(self.norm[j]),
                (Fraction(xj[1]) + t * dj[1]) / int(self.norm[j]),
            ]
            u = normal
        else:
            q = [Fraction(v[0], v[2]), Fraction(v[1], v[2])]
            M = int(np.abs(self.P @ np.array(normal)).max()) + 1
            u = [M * dj[0] + normal[0], M * dj[1] + normal[1]]
        return _step(self.P, q, u)

    def locate(self, labels: np.ndarray) -> tuple[int, tuple[int, int, int] | None] | None:
        """The name (j, v) of the cell labeled ``labels``, from the labels alone (None when no
        cell has them): the edges of the cell's closure are the lines ℓ_j whose feasible interval
        [lo_j, hi_j] (max of the lower, min of the upper crossing bounds) is proper; the cell is
        clockwise of ℓ_j iff labels_j = b_j; its lowest vertex starts the lowest such edge."""
        g = np.asarray(labels, dtype=np.int8).reshape(-1)
        if np.array_equal(g, self.left):
            return -1, None
        if (g[~np.any(self.P != 0, axis=1)] != 0).any():
            return None
        sign = np.where(g == 1, 1, -1)
        unbounded, bounded = [], []
        for chunk in self._chunks():
            J, rows = chunk.J, np.arange(len(chunk.J))
            crossing = chunk.key != _FAR
            lower = crossing & (sign[None, :] * chunk.dot > 0)
            upper = crossing & (sign[None, :] * chunk.dot < 0)
            parallel = ~crossing
            parallel[rows, J] = False
            consistent = ~(parallel & (chunk.below != g[None, :])).any(axis=1)
            low_key = np.where(lower, chunk.key, -_FAR)
            lo, hi = low_key.max(axis=1), np.where(upper, chunk.key, _FAR).min(axis=1)
            edge = consistent & (lo < hi) & (self.b[J] == g[J])
            for r in np.flatnonzero(edge):
                if lo[r] == -_FAR:
                    unbounded.append(int(J[r]))
                else:
                    bounded.append((*self.vertex(int(J[r]), int(np.argmax(low_key[r]))), int(J[r])))
        name: tuple[int, tuple[int, int, int] | None]
        if unbounded:
            name = (min(unbounded), None)
        elif bounded:
            p0, p1, D, j = min(bounded, key=lambda b: Fraction(b[0] + self.K * b[1], b[2]))
            name = (j, (p0, p1, D))
        else:
            return None
        return name if np.array_equal(self.cell_labels(*name), g) else None


def _step(P: np.ndarray, q: list[Fraction], u: list[int]) -> tuple[Fraction, Fraction]:
    """q + u/K with K the least integer making the step cross no line ℓ_l not through q
    (K > max_l |⟨u, x_l⟩| / min_{l off q} |⟨q, x_l⟩ − 1|): lines through q take the side of u."""
    rows = P.tolist()
    off = [abs(q[0] * x + q[1] * y - 1) for x, y in rows]
    gap = min((o for o in off if o), default=Fraction(1))
    reach = max((abs(u[0] * x + u[1] * y) for x, y in rows), default=0)
    K = math.floor(reach / gap) + 1
    return q[0] + Fraction(u[0], K), q[1] + Fraction(u[1], K)


class PlaneTrace(SignUnion):
    """Π_{C(prefix)}(P) for halfspaces on [[±X]]² with two free coefficients, counted by score:
    ``signs`` = (w,) for the prefix (w,), (−1, 1) for the class itself (see the module docstring)."""

    def __init__(self, P: np.ndarray, index: np.ndarray, labels: np.ndarray, signs: tuple[int, ...]) -> None:
        n0, n1 = record_counts(len(P), index, labels)
        self.cells = PlaneCells(P, n0, n1)
        super().__init__(self.cells.cell_score, len(labels), signs, self._shared_cells)

    def _shared_cells(self) -> np.ndarray:
        """Which cells of T_1 are also labelings of T_{−1}: the central arrangement's cells,
        found through the linear hash of their labelings and verified exactly."""
        cells, P = self.cells, self.cells.P
        shared = np.zeros(len(cells.cell_score), dtype=bool)
        if not np.any(P != 0, axis=1).all():
            return shared
        central = {labels.tobytes() for labels in central_labelings(P)}
        codes = {int(np.frombuffer(c, dtype=np.int8) @ cells.weights) for c in central}
        for i in np.flatnonzero(np.isin(cells.cell_hash, list(codes))):
            shared[i] = cells.cell_labels(*cells.cell(int(i))).tobytes() in central
        return shared

    def labeling(self, score: int, rank: int) -> np.ndarray:
        cell, complemented = self.cell(score, rank)
        labels = self.cells.cell_labels(*self.cells.cell(cell))
        return 1 - labels if complemented else labels

    def representative(self, labels: np.ndarray) -> Components:
        """(w, a_1, a_2): w = −1 when the labeling is in T_{−1} (as the listed trace prefers),
        a strictly inside its cell (see :meth:`PlaneCells.witness`)."""
        w, name = self.located(np.asarray(labels, dtype=np.int8).reshape(-1), self.cells.locate)
        a = self.cells.witness(*name)
        return (w, a[0], a[1]) if w == 1 else (w, -a[0], -a[1])


def central_labelings(P: np.ndarray) -> list[np.ndarray]:
    """[⟨u, x⟩ > 0] over the open cells u of the central arrangement {⟨u, x_j⟩ = 0} (x_j ≠ 0):
    one direction per sector between consecutive rays ±x_j⊥, sorted by angle exactly."""
    rays = set()
    for x, y in P.tolist():
        g = math.gcd(x, y)
        rays |= {(-y // g, x // g), (y // g, -x // g)}
    ordered = sorted(rays, key=functools.cmp_to_key(_by_angle))
    directions = []
    for r, s in zip(ordered, ordered[1:] + ordered[:1], strict=True):
        turn = r[0] * s[1] - r[1] * s[0]
        directions.append((r[0] + s[0], r[1] + s[1]) if turn > 0 else (-r[1], r[0]))
    return [(P @ np.array(u) > 0).astype(np.int8) for u in directions]


def _by_angle(r: tuple[int, int], s: tuple[int, int]) -> int:
    half = [0 if (v[1] > 0 or (v[1] == 0 and v[0] > 0)) else 1 for v in (r, s)]
    if half[0] != half[1]:
        return half[0] - half[1]
    return -(r[0] * s[1] - r[1] * s[0])


class LineCells:
    """Π_{C(prefix)}(P) with one free coefficient u: labels [α_j u + γ_j ≥ 0], counted by score.
    Slots in increasing u: 2i the open interval (e_{i−1}, e_i), 2i + 1 the breakpoint e_i
    (e_0 < … < e_{r−1} the distinct −γ_j/α_j); a slot is kept unless an earlier one has its
    labeling — the listed trace's candidates and order, so the representative (the simplest
    rational of the interval, or the breakpoint) is exactly the listed one."""

    def __init__(self, P: np.ndarray, index: np.ndarray, labels: np.ndarray, prefix: Components) -> None:
        self.prefix = tuple(prefix)
        system = coordinate_constraints(P, np.ones(len(P), dtype=np.int64), self.prefix)
        alpha, gamma = system.alpha.tolist(), system.gamma.tolist()
        n0, n1 = record_counts(len(P), index, labels)
        ends = [Fraction(-g, a) if a else None for a, g in zip(alpha, gamma, strict=True)]
        self.breakpoints = sorted({e for e in ends if e is not None})
        position = {e: i for i, e in enumerate(self.breakpoints)}
        r = len(self.breakpoints)
        self.rank = np.array([position[e] if e is not None else -1 for e in ends], dtype=np.int64)
        self.sign = np.array([int(a > 0) - int(a < 0) for a in alpha], dtype=np.int64)
        self.constant = np.array([int(g >= 0) for g in gamma], dtype=np.int8)
        gain = n1 - n0
        up, down = self.sign > 0, self.sign < 0
        fixed = int(np.where(self.constant == 1, n1, n0)[self.sign == 0].sum()) + int(n0[up | down].sum())
        up_gain = np.bincount(self.rank[up], weights=gain[up], minlength=r).astype(np.int64)
        down_gain = np.bincount(self.rank[down], weights=gain[down], minlength=r).astype(np.int64)
        has_up = np.bincount(self.rank[up], minlength=r) > 0
        has_down = np.bincount(self.rank[down], minlength=r) > 0
        up_before = np.concatenate(([0], np.cumsum(up_gain)))  # α > 0 labeled 1 on interval i: rank < i
        down_from = np.concatenate((np.cumsum(down_gain[::-1])[::-1], [0]))  # α < 0 labeled 1: rank ≥ i
        interval = fixed + up_before + down_from
        point = fixed + up_before[1:] + down_from[:-1]
        scores = np.empty(2 * r + 1, dtype=np.int64)
        scores[0::2], scores[1::2] = interval, point
        kept = np.ones(2 * r + 1, dtype=bool)
        kept[1::2] = has_up
        kept[2::2] = ~(has_up & ~has_down)
        self.slots = np.flatnonzero(kept)
        self.slot_score = scores[self.slots]
        self.histogram = np.bincount(self.slot_score, minlength=len(labels) + 1)

    def score_counts(self) -> ScoreCounts:
        return ScoreCounts.of_histogram(self.histogram)

    def _slot_labels(self, slot: int) -> np.ndarray:
        i, point = divmod(slot, 2)
        up = self.rank < i + point  # α > 0: u ≥ e_j
        down = self.rank >= i  # α < 0: u ≤ e_j
        return np.where(self.sign > 0, up, np.where(self.sign < 0, down, self.constant == 1)).astype(np.int8)

    def labeling(self, score: int, rank: int) -> np.ndarray:
        matches = np.flatnonzero(self.slot_score == score)
        if not 0 <= rank < len(matches):
            raise ValueError(f"rank out of range for score {score}")
        return self._slot_labels(int(self.slots[matches[rank]]))

    def representative(self, labels: np.ndarray) -> Components:
        """The first slot realizing ``labels`` (the listed trace's representative)."""
        g = np.asarray(labels, dtype=np.int8).reshape(-1)
        up, down = self.sign > 0, self.sign < 0
        bounds_low = np.concatenate(
            (2 * self.rank[up & (g == 1)] + 1, 2 * self.rank[down & (g == 0)] + 2, [0])
        )
        bounds_high = np.concatenate(
            (2 * self.rank[up & (g == 0)], 2 * self.rank[down & (g == 1)] + 1, [2 * len(self.breakpoints)])
        )
        slot = int(bounds_low.max())
        if slot > bounds_high.min() or not np.array_equal(self._slot_labels(slot), g):
            raise ValueError("labels is not a labeling of the trace")
        i, point = divmod(slot, 2)
        if point:
            return (*self.prefix, self.breakpoints[i])
        e = self.breakpoints
        return (*self.prefix, simplest_between(e[i - 1] if i else None, e[i] if i < len(e) else None))


def halfspace_counted_trace(
    dimension: int, prefix: Components, P: np.ndarray, index: np.ndarray, labels: np.ndarray
) -> PlaneTrace | LineCells | HalfspaceTrace3D | None:
    """The counted trace of halfspaces on [[±X]]^d restricted to ``prefix``, d ≤ 3 (d = 3 by
    :mod:`~dpledger.learners.halfspaces.arrangement3d`, prefixes () and (w,)); None: not counted
    here — d = 1 without prefix, whose ≤ 4|P| + 2 labelings the listing handles, or no free
    coefficient. d = 3 after (w, a_1) (two free coefficients whose lines have point-dependent
    offsets) is refused."""
    free = dimension + 1 - len(prefix)
    P = np.asarray(P, dtype=np.int64).reshape(len(P), dimension)
    if free == 1:
        return LineCells(P, index, labels, prefix)
    if dimension == 2 and free == 2:
        return PlaneTrace(P, index, labels, (int(prefix[0]),))
    if dimension == 2 and free == 3:
        return PlaneTrace(P, index, labels, (-1, 1))
    if dimension == 3 and free == 4:
        return HalfspaceTrace3D(P, index, labels, (-1, 1))
    if dimension == 3 and free == 3:
        return HalfspaceTrace3D(P, index, labels, (int(prefix[0]),))
    if dimension == 3:
        raise ValueError(
            "halfspaces in d = 3: the trace restricted to (w, a_1) is neither counted nor listed"
        )
    return None
