"""Halfspaces in d = 3: the trace Π_C(P) counted by score and drawn by rank, never listed
(seed 000, Algorithm 1 line 5 and Appendix C).

C = {x ↦ 1[⟨a, x⟩ ≥ w] : w ∈ {−1, 1}, a ∈ Q³} on distinct integer points P ⊂ [[±256]]³. Exact:
integer arithmetic (int64 where bounded below 2^62, Python ints and Fractions otherwise); no
float decides anything (floats only pre-sort keys whose ties are settled exactly).

**Cells.** For fixed w ≠ 0 the labelings are the cells of the arrangement A_w of the planes
{a : ⟨a, x_j⟩ = w} (x_j ≠ 0; x_j = 0 has the constant label [0 ≥ w]): a point on planes J can step
along a·sign(w), which raises every ⟨·, x_j⟩ − w, j ∈ J, and changes nothing else, so every face's
≥-labeling is a cell's; distinct cells are separated by a plane (distinct points give distinct
planes). T_{−1} = {1 − g : g ∈ T_1} (b = −a). Only A := A_1 is built.

**Each cell once.** The height h(a) = ⟨c, a⟩, c = (1, K, K²) with K = 4X² + 1 (X = max |x|), is
generic: ⟨c, y⟩ ≠ 0 for every non-zero integer y with |y| ≤ 2X² (its sign is that of the last
non-zero coordinate of y: :func:`_lexsign`), so no line of A (direction x_i × x_j) and no plane is
level. A cell either

1. has a lowest point, a vertex v of A (a 1- or 2-dimensional lowest face would be level); the
   cells with lowest vertex v are the cells σ of the local central arrangement {⟨u, x_l⟩ = 0},
   l ∈ I(v), whose closed cone is h-positive. Three planes (the general case): exactly one, the
   octant σ_l = sign(det)·sign⟨c, x_m × x_n⟩ (c ∈ int cone{σ_l x_l}). More planes: every local cell
   is found next to one of its extreme rays ±r (r a local line, the planes J_r through it) by the
   slightly rotated critical directions ±(r × x_l) ± x_l/K₂, and kept when each ray ±r in its
   closure is h-positive (:func:`_local_cells`); there are S − k + 1 of them (k planes, S = Σ over
   local lines of (#planes − 1), Zaslavsky);
2. or is unbounded below: it meets the plane H = {h = −T} (T below every vertex) in one cell of the
   line arrangement A ∩ H, with coordinates (α, β) ↦ (−T + Kα + K²β, −α, −β) and lines
   ⟨(α, β), n_l⟩ = 1 + T x_l1, n_l = (K x_l1 − x_l2, K² x_l1 − x_l3). With c₂ = (1, M) (M ≥ 0 the
   first with no n_l ∥ c₂) a cell of A ∩ H
   a. has a c₂-lowest vertex: the point where a line L of A (planes J_L) crosses H — the sectors
      between consecutive upward rays of the lines n_l, l ∈ J_L (|J_L| − 1 of them; for two planes
      σ_i = ε·sign τ_j, σ_j = −ε·sign τ_i with τ_l = det(c₂, n_l), ε = sign det(n_i, n_j) =
      sign⟨c, x_i × x_j⟩); every other plane has there its sign at the lower end of L;
   b. or is unbounded below in H: an interval of the line {c₂·(α, β) = −T₂} of H, T₂ below every
      vertex of A ∩ H, between consecutive crossings (all distinct): |lines| + 1 intervals.

**Scores** q(S, g) = Σ_j n_{g_j}(x_j) and a linear 64-bit hash Σ_j g_j R_j (for membership only;
every hit is verified exactly) are prefix sums along each line of A: on the line of planes i < j
the other planes' crossings are sorted (float keys −F/G of exact integers, correctly rounded so
monotone; equal keys compared exactly by cross-multiplication; a row with an unresolved
collision goes to the exact path) and a vertex of exactly three planes gets its score in O(1).
Vertices of more planes, lines of more than two planes and collision rows take the exact slow
path. Vertex v is built on the line of the two smallest planes through it; line L on the row of
its two smallest planes. O(|P|³ log |P|) vectorised integer work in chunks; |T_1| ≈ |P|³/6 cells,
three-plane vertices stored implicitly as (i, j, k) with their score and hash (≈ 30 bytes each).
Measured (benchmarks/bench_labelboost_3d.py, random points of [[±256]]³, 2 shared cores): |P| = 400,
|Π_C(P)| ≈ 2.1·10⁷ counted in ≈ 15 s CPU (≈ 1.2 GB peak), one draw < 0.1 s. The slow path costs
≈ 0.2–1 ms per degenerate vertex: on dense small grids (|P| = 120 on [[±4]]³, 18% of the cells
on the slow path) counting takes ≈ 16 s CPU.

**Union over w** (no prefix): Π_C(P) = T_{−1} ∪ T_1; g ∈ T_1 ∩ T_{−1} iff g and 1 − g are both in
T_1 (then u = a + b for a realizing g at w = 1 and b realizing it at w = −1 separates strictly: the
central arrangement's cells; none when 0 ∈ P). Those cells of T_1 are marked through the hash and
verified exactly. Ranks of score s: first T_{−1}'s (complements of T_1 of score |S| − s), then the
cells of T_1 of score s outside T_{−1} — the ordering of :mod:`~dpledger.learners.halfspaces.
arrangement_counting` (d ≤ 2).

**Representatives**: an exact rational point strictly inside the cell, found from the labeling
alone (hash lookup, verified): w = −1 when the labeling is in T_{−1}. Vertex cells v + u/K'
(u into the local cell), line cells a point far down the line plus such a step, far cells a point
of H ∩ {c₂·(α, β) = −T₂} (large integers). Not the listed trace's choice (d = 3 has no listing);
each is checked by evaluating the halfspace exactly.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dpledger.learners.concept_classes import Components
from dpledger.learners.score_counts import SignUnion

GRID_BOUND = 256
"""Largest |coordinate|: keeps every sweep quantity below 2^47 (int64 and float-exact)."""

_CELLS = 1 << 19
"""Entries of a chunk's rows × |P| matrices."""

_HASH_SEED = 3
_OTHER = np.array([[1, 2], [0, 2], [0, 1]])


def _lexsign(y: np.ndarray) -> np.ndarray:
    """sign⟨c, y⟩ for c = (1, K, K²), K > 2·max|y| + 1: the sign of y's last non-zero coordinate."""
    y = np.asarray(y)
    return np.where(
        y[..., 2] != 0, np.sign(y[..., 2]), np.where(y[..., 1] != 0, np.sign(y[..., 1]), np.sign(y[..., 0]))
    )


def _cross(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Row-wise p × q of integer arrays (…, 3)."""
    return np.stack(
        [
            p[..., 1] * q[..., 2] - p[..., 2] * q[..., 1],
            p[..., 2] * q[..., 0] - p[..., 0] * q[..., 2],
            p[..., 0] * q[..., 1] - p[..., 1] * q[..., 0],
        ],
        axis=-1,
    )


@functools.lru_cache(maxsize=64)
def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs a < b of k planes (cached: every degenerate vertex asks for them)."""
    a, b = np.triu_indices(k, 1)
    return a, b


_LOCAL = 1 << 21
"""Candidate cells × local lines × 64-plane words that :func:`_local_cells` tests at once (~16 MB
each)."""


def _dot(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Row-wise ⟨p, q⟩ of integer arrays (…, 3), broadcasting."""
    return p[..., 0] * q[..., 0] + p[..., 1] * q[..., 1] + p[..., 2] * q[..., 2]


def _words(bits: np.ndarray) -> np.ndarray:
    """Boolean arrays (…, k) as (…, ⌈k/64⌉) uint64 words, the same packing for every k."""
    packed = np.packbits(bits, axis=-1)
    pad = np.zeros((*packed.shape[:-1], -packed.shape[-1] % 8), dtype=np.uint8)
    return np.ascontiguousarray(np.concatenate([packed, pad], axis=-1)).view(np.uint64)


def _local_cells(XI: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells whose closed cone is h-positive of the central arrangements {⟨u, x_l⟩ = 0}, one
    per row of XI (vertices × k × 3, each of rank 3, k distinct planes; module docstring, case 1).

    The local lines are r_p = x_a × x_b (pairs p = (a, b); a line of more planes has several),
    oriented h-positive by :func:`_lexsign`. Next to r, with J the planes through it, lie the cells
    of the directions u = K₁r + K₂s₂(r × x_ℓ) + t·x_ℓ, ℓ ∈ J, s₂, t = ±1 (:func:`_local_direction`):
    σ_m = sign⟨r, x_m⟩ off J, σ_m = s₂·sign⟨r, x_ℓ × x_m⟩ on J ∖ {ℓ}, σ_ℓ = t — the four sectors
    around r beside the plane ℓ; every sector is bounded by two planes of J, so ℓ ranges over J but
    its last plane. A closed cone {σ_l⟨u, x_l⟩ ≥ 0} has local lines as its extreme rays; it holds
    ±r_q iff Σ_l ±σ_l·sign⟨r_q, x_l⟩ = Σ_l |sign⟨r_q, x_l⟩|, and it is h-positive iff it holds no
    −r_q. Each h-positive cell is kept from its first pair p with r_p in it (and, on a line of
    three or more planes, once among its sectors).

    Returns:
        (vertex, σ, recipe): per cell, its row of XI, its signs (cells × k, ±1) and (a, b, ℓ, s₂, t)
        (a, b, ℓ indices into the row's planes) for :func:`_local_direction`.
    """
    k = XI.shape[1]
    a, b = _pairs(k)
    R = _cross(XI[:, a], XI[:, b])
    R *= _lexsign(R)[..., None]
    side = np.sign(_dot(R[:, :, None, :], XI[:, None, :, :])).astype(np.int8)  # (vertex, line, plane)
    through = side == 0
    last = k - 1 - np.argmax(through[..., ::-1], axis=2)
    v, p, ell = np.nonzero(through & (np.arange(k) != last[..., None]))  # ℓ on r_p, not its last plane
    turn = np.sign(_dot(_cross(R[v, p], XI[v, ell])[:, None, :], XI[v])).astype(np.int8)
    off = side[v, p]
    unit = (np.arange(k) == ell[:, None]).astype(np.int8)
    combos = ((1, 1), (1, -1), (-1, 1), (-1, -1))  # (s₂, t)
    sigma = np.concatenate([s2 * np.where(off == 0, turn, 0) + off + t * unit for s2, t in combos])
    vertex, line = np.tile(v, 4), np.tile(p, 4)
    recipe = np.concatenate(
        [np.stack([a[p], b[p], ell, np.full_like(ell, s2), np.full_like(ell, t)], axis=1) for s2, t in combos]
    )
    # the cone holds r_q (resp. −r_q) iff σ_l = sign⟨r_q, x_l⟩ (resp. −sign) wherever that is ≠ 0
    support, positive = _words(~through), _words(side > 0)
    negative = positive ^ support
    up = _words(sigma > 0)
    keep = np.zeros(len(vertex), dtype=bool)
    step = max(1, _LOCAL // (len(a) * up.shape[1]))
    for start in range(0, len(vertex), step):
        c = slice(start, start + step)
        mine, held = up[c, None, :], support[vertex[c]]
        holds_minus = np.all((mine ^ negative[vertex[c]]) & held == 0, axis=2)
        holds_plus = np.all((mine ^ positive[vertex[c]]) & held == 0, axis=2)
        keep[c] = ~holds_minus.any(axis=1) & (np.argmax(holds_plus, axis=1) == line[c])
    vertex, line, sigma, recipe, up = vertex[keep], line[keep], sigma[keep], recipe[keep], up[keep]
    # a line of three or more planes gives a sector from both planes bounding it: keep one
    multi = np.flatnonzero(through.sum(axis=2)[vertex, line] > 2)
    if len(multi):
        key = np.hstack([vertex[multi, None].astype(np.uint64), up[multi]])
        order = np.lexsort(key.T[::-1])
        key = key[order]
        repeat = np.concatenate(([False], np.all(key[1:] == key[:-1], axis=1)))
        dropped = np.ones(len(vertex), dtype=bool)
        dropped[multi[order[repeat]]] = False
        vertex, sigma, recipe = vertex[dropped], sigma[dropped], recipe[dropped]
    return vertex, sigma, recipe


def _local_direction(XI: np.ndarray, r: list[int], ell: int, s2: int, t: int) -> list[int]:
    """u = K₁·r + K₂·s₂·(r × x_ℓ) + t·x_ℓ, strictly inside the local cell of (r, ℓ, s₂, t)
    (:func:`_local_cells`; r any positive multiple of the local line)."""
    X = [[int(v) for v in x] for x in XI.tolist()]
    J = [m for m in range(len(X)) if sum(p * q for p, q in zip(r, X[m], strict=True)) == 0]
    K2 = max(abs(sum(p * q for p, q in zip(X[ell], X[m], strict=True))) for m in J) + 1
    rx = _cross_ints(r, X[ell])
    omega = [K2 * s2 * p + t * q for p, q in zip(rx, X[ell], strict=True)]
    K1 = max(abs(sum(p * q for p, q in zip(omega, x, strict=True))) for x in X) + 1
    return [K1 * p + q for p, q in zip(r, omega, strict=True)]


class UpperCells:
    """The cells T_1 of A = {a : ⟨a, x_j⟩ = 1} for the distinct points ``P`` (n × 3 integers),
    scored by n0/n1 (records labeled 0/1 at each point), each once (module docstring)."""

    def __init__(self, P: np.ndarray, n0: np.ndarray, n1: np.ndarray) -> None:
        self.P = np.asarray(P, dtype=np.int64).reshape(-1, 3)
        self.n = len(self.P)
        self.planes = np.flatnonzero(np.any(self.P != 0, axis=1))
        self.X = self.P[self.planes]
        self.m = len(self.planes)
        bound = max(int(np.abs(self.P).max()) if self.n else 1, 1)
        self.K = 4 * bound * bound + 1
        self.T = (1 + self.K + self.K**2) * 6 * bound * bound + 1
        self.M = next(M for M in range(self.m + 1) if not np.any(self.X @ self._psi(M) == 0))
        self.tau = self.X @ self._psi(self.M)  # det(c₂, n_l)
        self.turn = _lexsign(_cross(self.X[:, None, :], self.X[None, :, :])).astype(
            np.int8
        )  # sign⟨c, x_a × x_b⟩
        self.floor = int(np.asarray(n0).sum())  # score of the all-zero labeling
        self.gain = (np.asarray(n1, dtype=np.int64) - np.asarray(n0, dtype=np.int64))[self.planes]
        weights = (
            np.random.default_rng(_HASH_SEED).integers(0, 2**63, self.n, dtype=np.int64).astype(np.uint64)
        )
        self.weights = weights * np.uint64(2) + np.uint64(1)
        self.hw = self.weights[self.planes]
        self._simple: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (i, j, k), score, hash per chunk
        self._lines_found: list[np.ndarray] = []  # (i, j, score, hash) per chunk
        # explicit cells, (packed labelings, scores, hashes) per batch: at degenerate vertices
        # (with their recipes as rows V, D, a, b, ℓ, s₂, t) and on lines or far (recipe tuples)
        self._vertex_cells: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._other_cells: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._recipes: list[tuple] = []
        pairs = np.stack(np.triu_indices(self.m, 1), axis=1)
        pairs = pairs[np.any(_cross(self.X[pairs[:, 0]], self.X[pairs[:, 1]]) != 0, axis=1)]
        step = max(1, _CELLS // max(self.m, 1))
        for start in range(0, len(pairs), step):
            self._sweep(pairs[start : start + step, 0], pairs[start : start + step, 1])
        self._far()
        self._finish()

    def _psi(self, M: int) -> np.ndarray:
        """ψ with ⟨ψ, x⟩ = det(c₂, n(x)) for c₂ = (1, M)."""
        return np.array([self.K * self.K - M * self.K, M, -1], dtype=np.int64)

    # -- storage -----------------------------------------------------------------------------

    def _packed(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cells given by their labels over the planes (rows of 0/1): their labelings over P
        (packed bits), scores and hashes."""
        full = np.zeros((len(labels), self.n), dtype=np.int8)
        full[:, self.planes] = labels
        return (
            np.packbits(full, axis=1),
            self.floor + labels.astype(np.int64) @ self.gain,
            self._hash_rows(labels),
        )

    def _explicit(self, labels: np.ndarray, recipe: tuple) -> None:
        """Record a cell by its labels over the planes (0/1) and how to rebuild a point in it."""
        self._other_cells.append(self._packed(labels[None, :]))
        self._recipes.append(recipe)

    # -- the sweep over lines --------------------------------------------------------------

    def _lines(self, ii: np.ndarray, jj: np.ndarray) -> tuple[np.ndarray, ...]:
        """For the lines of planes i < j: d = x_i × x_j, a point num/den on it (den > 0) and, per
        plane l, F = den·(⟨p, x_l⟩ − 1), G = ⟨d, x_l⟩: at p + (s/den)·d, den·f_l = F + s·G."""
        xi, xj = self.X[ii], self.X[jj]
        d = _cross(xi, xj)
        r = np.arange(len(ii))
        star = np.abs(d).argmax(axis=1)
        a, b = _OTHER[star, 0], _OTHER[star, 1]
        den = xi[r, a] * xj[r, b] - xi[r, b] * xj[r, a]
        num = np.zeros((len(ii), 3), dtype=np.int64)
        num[r, a] = xj[r, b] - xi[r, b]
        num[r, b] = xi[r, a] - xj[r, a]
        flip = np.sign(den)
        den, num = den * flip, num * flip[:, None]
        return d, num, den, num @ self.X.T - den[:, None], d @ self.X.T

    def _sweep(self, ii: np.ndarray, jj: np.ndarray) -> None:
        d, num, den, F, G = self._lines(ii, jj)
        cols = np.arange(self.m)
        on = (G == 0) & (F == 0)
        crossing = G != 0
        eps = _lexsign(d)
        count_on = on.sum(axis=1)
        lower = (on & (cols < jj[:, None])).sum(axis=1) == 1  # no plane of the line below j
        positive_parallel = ((G == 0) & (F > 0)) * 1
        below = np.where(crossing, eps[:, None] * G < 0, F > 0).astype(np.int8)
        two = lower & (count_on == 2)
        if two.any():
            labels = self._line_labels(ii[two], jj[two], below[two], eps[two])
            self._lines_found.append(
                np.stack(
                    [
                        ii[two],
                        jj[two],
                        self.floor + labels @ self.gain,
                        self._hash_rows(labels).view(np.int64),
                    ],
                    axis=1,
                )
            )
        for row in np.flatnonzero(lower & (count_on > 2)):
            on_row = np.flatnonzero(on[row])
            labels = below[row].copy()
            for sigma, u in self._sectors(on_row):
                labels[on_row] = sigma > 0
                self._explicit(labels, ("line", int(ii[row]), int(jj[row]), u))
        key = self._keys(F, G)
        order = np.argsort(key, axis=1)
        sk, sF, sG = (np.take_along_axis(A, order, axis=1) for A in (key, F, G))
        valid = np.isfinite(sk)
        same = valid[:, 1:] & (sk[:, 1:] == sk[:, :-1])
        exact = sF[:, 1:] * sG[:, :-1] == sF[:, :-1] * sG[:, 1:]
        hard = np.any(same & ~exact, axis=1)
        tie = same & exact
        pad = np.zeros((len(ii), 1), dtype=bool)
        alone = valid & ~np.hstack([pad, tie]) & ~np.hstack([tie, pad])
        fast = alone & (count_on == 2)[:, None] & ~hard[:, None] & (order > jj[:, None]) & lower[:, None]
        rr, pp = np.nonzero(fast)
        if len(rr):
            self._simple_vertices(ii, jj, rr, pp, order, sG, valid, positive_parallel)
        for row in np.flatnonzero(hard & lower):
            self._exact_row(
                int(ii[row]), int(jj[row]), num[row], int(den[row]), d[row], F[row], G[row], on[row]
            )
        positions = np.arange(self.m)
        last = np.minimum.accumulate(np.where(np.hstack([~tie, ~pad]), positions, self.m)[:, ::-1], axis=1)[
            :, ::-1
        ]
        # the other vertices built here: a crossing of ≥ 2 planes, or of one on a line of ≥ 3, whose
        # planes all come after j (the line's own planes: i, j, then later ones, as ``lower``)
        r, s = np.nonzero(valid & ~np.hstack([pad, tie]))  # each vertex's first crossing
        size = last[r, s] - s + 1
        lowest = np.minimum.reduceat(np.where(valid, order, self.m).ravel(), r * self.m + s)
        keep = lower[r] & ~hard[r] & ((size > 1) | (count_on[r] > 2)) & (lowest > jj[r])
        r, s, size = r[keep], s[keep], size[keep]
        on_r, on_c = np.nonzero(on)
        own = count_on[r]
        lengths = own + size
        g = np.repeat(np.arange(len(r)), lengths)
        t = np.arange(len(g)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        line_part = on_c[np.minimum(np.searchsorted(on_r, r)[g] + t, max(len(on_c) - 1, 0))]
        crossing_part = order[r[g], np.minimum(s[g] + t - own[g], self.m - 1)]
        flat = np.where(t < own[g], line_part, crossing_part)
        self._vertices(np.stack([ii[r], jj[r], order[r, s]], axis=1), flat, lengths)

    @staticmethod
    def _keys(F: np.ndarray, G: np.ndarray) -> np.ndarray:
        """Float pre-sort keys of the crossings s = −F/G (∞: no crossing). Division of integers
        below 2^53 is correctly rounded, hence monotone: unequal keys are ordered exactly; equal
        keys are compared exactly by the caller."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(G != 0, -F / G, np.inf)

    def _simple_vertices(self, ii, jj, rr, pp, order, sG, valid, positive_parallel) -> None:
        """Vertices of exactly three planes i < j < k: one cell each, scored by prefix sums."""
        gain, hw = self.gain[order], self.hw[order]
        up, down = valid & (sG > 0), valid & (sG < 0)
        zero = np.uint64(0)
        # before + after = Σ_{up, <π} + Σ_{down, >π} = Σ_down + cumsum(up − down)[π] − up[π]
        walk = np.cumsum(np.where(up, gain, 0) - np.where(down, gain, 0), axis=1) - np.where(up, gain, 0)
        walk += np.where(down, gain, 0).sum(axis=1)[:, None]
        hup, hdown = np.where(up, hw, zero), np.where(down, hw, zero)
        hwalk = (
            np.cumsum(hup - hdown, axis=1, dtype=np.uint64)
            - hup
            + hdown.sum(axis=1, dtype=np.uint64)[:, None]
        )
        par = positive_parallel @ self.gain
        hpar = (positive_parallel.astype(np.uint64) * self.hw[None, :]).sum(axis=1, dtype=np.uint64)
        i, j, k = ii[rr], jj[rr], order[rr, pp]
        sigma = self._octant(i, j, k, sG[rr, pp])
        own = sigma > 0
        score = self.floor + walk[rr, pp] + par[rr] + (own * self.gain[np.stack([i, j, k], 1)]).sum(1)
        hsh = (
            hwalk[rr, pp]
            + hpar[rr]
            + np.where(own, self.hw[np.stack([i, j, k], 1)], zero).sum(axis=1, dtype=np.uint64)
        )
        self._simple.append((np.stack([i, j, k], axis=1).astype(np.int16), score.astype(np.int32), hsh))

    def _octant(self, i: np.ndarray, j: np.ndarray, k: np.ndarray, det: np.ndarray) -> np.ndarray:
        """σ of the h-positive octant at the vertex of planes i, j, k with det(x_i, x_j, x_k) =
        ``det`` (module docstring, case 1): σ_i = sign(det)·sign⟨c, x_j × x_k⟩ and cyclically."""
        s = np.sign(det)[:, None]
        return s * np.stack([self.turn[j, k], self.turn[k, i], self.turn[i, j]], axis=1)

    def _exact_row(self, i, j, num, den, d, F, G, on) -> None:
        """A line whose float keys collide: its vertices by exact Fractions, all on the slow path."""
        others = np.flatnonzero(on)
        if np.any((others != i) & (others < j)):
            return
        groups: dict[Fraction, list[int]] = {}
        for ell in np.flatnonzero(G != 0).tolist():
            groups.setdefault(Fraction(-int(F[ell]), int(G[ell])), []).append(ell)
        vertices = [members for members in groups.values() if min(members) > j]
        if vertices:
            self._vertices(
                np.array([[i, j, members[0]] for members in vertices], dtype=np.int64),
                np.array([v for members in vertices for v in [*others, *members]], dtype=np.int64),
                np.array([len(others) + len(members) for members in vertices], dtype=np.int64),
            )

    def _vertices(self, triples: np.ndarray, flat: np.ndarray, lengths: np.ndarray) -> None:
        """The cells with lowest vertex at the vertices of the (independent) planes ``triples``,
        one per row, met by the planes ``flat`` (``lengths`` of them each, consecutively): batches of
        equal plane counts k, sized for :func:`_local_cells`."""
        starts = np.cumsum(lengths) - lengths
        for k in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == k)
            step = max(1, _LOCAL // (k * k * k * k))
            for first in range(0, len(rows), step):
                chunk = rows[first : first + step]
                incident = np.sort(flat[starts[chunk][:, None] + np.arange(k)], axis=1)
                self._vertex_batch(triples[chunk], incident)

    def _vertex_batch(self, triples: np.ndarray, incident: np.ndarray) -> None:
        """Cells at vertices of k planes each (``incident``, sorted rows): v = V/D by Cramer's rule
        on ``triples`` (D > 0), the side of v off its planes and :func:`_local_cells` on them."""
        xi, xj, xk = (self.X[triples[:, c]] for c in range(3))
        cjk, cki, cij = _cross(xj, xk), _cross(xk, xi), _cross(xi, xj)
        D = (xi * cjk).sum(axis=1)
        V, D = (cjk + cki + cij) * np.sign(D)[:, None], np.abs(D)
        vertex, sigma, recipe = _local_cells(self.X[incident])
        # each vertex's side labels once; its cells differ from them on its own planes only
        side = (V @ self.X.T > D[:, None]).astype(np.int8)
        side[np.arange(len(V))[:, None], incident] = 0
        rows, score, code = self._packed(side)
        own = incident[vertex]
        up = sigma > 0
        score = score[vertex] + np.where(up, self.gain[own], 0).sum(axis=1)
        code = code[vertex] + np.where(up, self.hw[own], np.uint64(0)).sum(axis=1, dtype=np.uint64)
        rows = rows[vertex]
        column = self.planes[own]
        byte, bit = column >> 3, (np.uint8(128) >> (column & 7).astype(np.uint8))
        cell = np.arange(len(vertex))
        for c in range(own.shape[1]):  # one plane per cell at a time: no byte is hit twice
            rows[cell, byte[:, c]] |= bit[:, c] * up[:, c]
        planes = np.take_along_axis(own, recipe[:, :3], axis=1)
        recipes = np.column_stack([V[vertex], D[vertex], planes, recipe[:, 3:]])
        self._vertex_cells.append((rows, score, code, recipes))

    def _line_labels(self, i: np.ndarray, j: np.ndarray, below: np.ndarray, eps: np.ndarray) -> np.ndarray:
        """Labels of the cell of A ∩ H with lowest vertex where the line of exactly the planes
        i, j crosses H: ``below`` (the signs at the line's lower end) and the one sector."""
        labels = below.copy()
        r = np.arange(len(i))
        labels[r, i] = eps * np.sign(self.tau[j]) > 0
        labels[r, j] = -eps * np.sign(self.tau[i]) > 0
        return labels

    def _hash_rows(self, labels: np.ndarray) -> np.ndarray:
        return np.where(labels.astype(bool), self.hw[None, :], np.uint64(0)).sum(axis=1, dtype=np.uint64)

    def _normal(self, ell: int) -> tuple[int, int]:
        x1, x2, x3 = (int(v) for v in self.X[ell])
        return self.K * x1 - x2, self.K * self.K * x1 - x3

    def _sectors(self, on: np.ndarray) -> list[tuple[np.ndarray, tuple[int, int]]]:
        """The sectors between consecutive c₂-upward rays of the lines n_l, l ∈ ``on``, in H."""
        normals = [self._normal(int(ell)) for ell in on]
        rays: list[tuple[int, int]] = []
        for a, b in normals:
            t = (-b, a)
            rays.append(t if t[0] + self.M * t[1] > 0 else (b, -a))
        rays.sort(key=functools.cmp_to_key(lambda p, q: -1 if p[0] * q[1] - p[1] * q[0] > 0 else 1))  # type: ignore[index]  # cmp_to_key keys are untyped
        out = []
        for p, q in itertools.pairwise(rays):
            u = (p[0] + q[0], p[1] + q[1])
            out.append((np.array([1 if u[0] * a + u[1] * b > 0 else -1 for a, b in normals]), u))
        return out

    # -- cells unbounded below in H ----------------------------------------------------------

    def _far_setup(self) -> tuple[int, list[Fraction]]:
        """T₂ and the crossing parameters τ_l of the lines of H with {c₂·(α, β) = −T₂}."""
        bound = max(int(np.abs(self.P).max()) if self.n else 1, 1)
        B = 2 * bound + (self.T + (1 + self.K + self.K**2) * 2 * bound) * 2 * bound * bound
        T2 = (1 + self.M) * B + 1
        norm = 1 + self.M * self.M
        taus = []
        for ell in range(self.m):
            n1, n2 = self._normal(ell)
            b = 1 + self.T * int(self.X[ell, 0])
            taus.append(Fraction(b * norm + T2 * (n1 + self.M * n2), norm * int(self.tau[ell])))
        return T2, taus

    def _far(self) -> None:
        """The |lines| + 1 intervals of the far line of H (module docstring, case 2b)."""
        _, taus = self._far_setup()
        order = sorted(range(self.m), key=taus.__getitem__)
        rank = np.empty(self.m, dtype=np.int64)
        rank[order] = np.arange(self.m)
        start = (self.tau < 0).astype(np.int8)  # τ → −∞: sign f_l = −sign det(c₂, n_l)
        for q in range(self.m + 1):
            self._explicit(start ^ (rank < q), ("far", q, tuple(order)))

    def _finish(self) -> None:
        found = list(zip(*self._simple, strict=True)) or [
            (np.zeros((0, 3), np.int16),),
            (np.zeros(0, np.int32),),
            (np.zeros(0, np.uint64),),
        ]
        lines = np.concatenate(self._lines_found) if self._lines_found else np.zeros((0, 4), dtype=np.int64)
        self.simple = np.concatenate(found[0])
        self.lines = lines[:, :2].astype(np.int16)
        self.implicit = len(self.simple) + len(self.lines)
        explicit = [cells[:3] for cells in self._vertex_cells] + self._other_cells
        self.rows = np.concatenate([rows for rows, _, _ in explicit])
        self.vertex_recipes = np.concatenate(
            [cells[3] for cells in self._vertex_cells] or [np.zeros((0, 9), dtype=np.int64)]
        )
        self.recipes = self._recipes
        self.score = np.concatenate(
            [*found[1], lines[:, 2].astype(np.int32), *(score.astype(np.int32) for _, score, _ in explicit)]
        )
        self.hash = np.concatenate([*found[2], lines[:, 3].view(np.uint64), *(h for _, _, h in explicit)])
        self.sorted_hash = np.argsort(self.hash)
        self.hash_sorted = self.hash[self.sorted_hash]
        del self._simple, self._lines_found, self._vertex_cells, self._other_cells

    # -- reading cells back -------------------------------------------------------------------

    def labels(self, cells: np.ndarray | Sequence[int]) -> np.ndarray:
        """The labelings (rows over P) of the cells ``cells`` (indices in the enumeration order:
        three-plane vertices, two-plane lines, then the explicitly stored cells)."""
        cells = np.asarray(cells, dtype=np.int64).reshape(-1)
        out = np.zeros((len(cells), self.n), dtype=np.int8)
        vertex = cells < len(self.simple)
        if vertex.any():
            i, j, k = self.simple[cells[vertex]].T
            xi, xj, xk = self.X[i], self.X[j], self.X[k]
            cjk, cki, cij = _cross(xj, xk), _cross(xk, xi), _cross(xi, xj)
            D = (xi * cjk).sum(axis=1)
            lab = ((cjk + cki + cij) @ self.X.T - D[:, None]) * np.sign(D)[:, None] > 0
            r = np.arange(len(i))
            sigma = self._octant(i, j, k, D) > 0
            lab[r, i], lab[r, j], lab[r, k] = sigma[:, 0], sigma[:, 1], sigma[:, 2]
            out[np.ix_(vertex, self.planes)] = lab
        line = (cells >= len(self.simple)) & (cells < self.implicit)
        if line.any():
            i, j = self.lines[cells[line] - len(self.simple)].T
            d, _, _, F, G = self._lines(i, j)
            eps = _lexsign(d)
            below = np.where(G != 0, eps[:, None] * G < 0, F > 0).astype(np.int8)
            out[np.ix_(line, self.planes)] = self._line_labels(i, j, below, eps)
        rest = cells[cells >= self.implicit] - self.implicit
        if len(rest):
            out[cells >= self.implicit] = np.unpackbits(self.rows[rest], axis=1, count=self.n).astype(np.int8)
        return out

    def hash_of(self, labels: np.ndarray) -> np.uint64:
        return np.sum(self.weights[np.asarray(labels).astype(bool)], dtype=np.uint64)

    def find(self, code: np.uint64) -> np.ndarray:
        """The cells whose hash is ``code`` (candidates; compare labels exactly)."""
        lo = np.searchsorted(self.hash_sorted, code, side="left")
        hi = np.searchsorted(self.hash_sorted, code, side="right")
        return self.sorted_hash[lo:hi]

    def locate(self, labels: np.ndarray) -> int | None:
        """The cell with labeling ``labels``, or None when it is not in T_1."""
        for cell in self.find(self.hash_of(labels)).tolist():
            if np.array_equal(self.labels([cell])[0], labels):
                return cell
        return None

    # -- representatives ---------------------------------------------------------------------

    def point(self, cell: int) -> tuple[Fraction, Fraction, Fraction]:
        """An exact rational point strictly inside the cell (module docstring), checked."""
        X = [[int(v) for v in x] for x in self.X.tolist()]
        if cell < len(self.simple):
            i, j, k = (int(v) for v in self.simple[cell])
            xi, xj, xk = X[i], X[j], X[k]
            cjk, cki, cij = _cross_ints(xj, xk), _cross_ints(xk, xi), _cross_ints(xi, xj)
            D = sum(p * q for p, q in zip(xi, cjk, strict=True))
            sigma = self._octant(np.array([i]), np.array([j]), np.array([k]), np.array([D]))[0].tolist()
            sD = 1 if D > 0 else -1
            u = [
                sD * (sigma[0] * p + sigma[1] * q + sigma[2] * r)
                for p, q, r in zip(cjk, cki, cij, strict=True)
            ]
            base = [Fraction(p + q + r, D) for p, q, r in zip(cjk, cki, cij, strict=True)]
            a = _step(X, base, u)
        elif cell < self.implicit:
            i, j = (int(v) for v in self.lines[cell - len(self.simple)])
            a = self._line_point(i, j, None)
        elif cell < self.implicit + len(self.vertex_recipes):
            *V, D, i, j, ell, s2, t = (int(v) for v in self.vertex_recipes[cell - self.implicit])
            incident = np.flatnonzero(self.X @ np.array(V) == D)
            r = _cross_ints(X[i], X[j])
            r = [v * int(_lexsign(np.array(r))) for v in r]
            u = _local_direction(self.X[incident], r, int(np.searchsorted(incident, ell)), s2, t)
            a = _step(X, [Fraction(v, D) for v in V], u)
        else:
            recipe = self.recipes[cell - self.implicit - len(self.vertex_recipes)]
            if recipe[0] == "line":
                a = self._line_point(*recipe[1:])
            else:
                a = self._far_point(*recipe[1:])
        expected = self.labels([cell])[0][self.planes]
        got = [int(sum(p * q for p, q in zip(a, x, strict=True)) > 1) for x in X]
        if got != expected.tolist():
            raise RuntimeError(f"internal error: the point built for cell {cell} is not inside it")
        return a[0], a[1], a[2]

    def _line_point(self, i: int, j: int, u2: tuple[int, int] | None) -> list[Fraction]:
        d, num, den, F, _ = (v[0] for v in self._lines(np.array([i]), np.array([j])))
        eps = int(_lexsign(d))
        if u2 is None:
            u2 = self._sectors(np.array([i, j]))[0][1]
        far = -eps * (int(np.abs(F).max()) + 1)
        base = [Fraction(int(p) + far * int(q), int(den)) for p, q in zip(num, d, strict=True)]
        u = [u2[0] * self.K + u2[1] * self.K * self.K, -u2[0], -u2[1]]
        return _step([[int(v) for v in x] for x in self.X.tolist()], base, u)

    def _far_point(self, q: int, order: tuple[int, ...]) -> list[Fraction]:
        T2, taus = self._far_setup()
        sorted_taus = [taus[ell] for ell in order]
        if not sorted_taus:
            t = Fraction(0)
        elif q == 0:
            t = sorted_taus[0] - 1
        elif q == len(sorted_taus):
            t = sorted_taus[-1] + 1
        else:
            t = (sorted_taus[q - 1] + sorted_taus[q]) / 2
        norm = 1 + self.M * self.M
        alpha, beta = Fraction(-T2, norm) - self.M * t, Fraction(-T2 * self.M, norm) + t
        return [-self.T + self.K * alpha + self.K * self.K * beta, -alpha, -beta]


def _cross_ints(p: list[int], q: list[int]) -> list[int]:
    return [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]


def _step(X: list[list[int]], base: list[Fraction], u: list[int]) -> list[Fraction]:
    """base + u/K' with K' so large that no plane off ``base`` changes side (those through it take
    the side of u)."""
    gaps = [abs(sum((p * q for p, q in zip(base, x, strict=True)), Fraction(0)) - 1) for x in X]
    gap = min((g for g in gaps if g), default=Fraction(1))
    reach = max((abs(sum(p * q for p, q in zip(u, x, strict=True))) for x in X), default=0)
    K = math.floor(reach / gap) + 1
    return [p + Fraction(q, K) for p, q in zip(base, u, strict=True)]


class HalfspaceTrace3D(SignUnion):
    """Π_{C(prefix)}(P) for halfspaces in R³ counted by score (module docstring): ``signs`` = (w,)
    for the prefix (w,), (−1, 1) for the class itself. ``points`` distinct integer rows,
    |coordinates| ≤ 256; the labeled sample is (points[index], labels)."""

    def __init__(
        self,
        points: np.ndarray,
        index: np.ndarray,
        labels: np.ndarray,
        signs: tuple[int, ...] = (-1, 1),
    ) -> None:
        P = np.asarray(points)
        if P.ndim != 2 or P.shape[1] != 3 or not np.issubdtype(P.dtype, np.integer):
            raise ValueError(
                f"points must be an n × 3 integer array, got shape {P.shape} and dtype {P.dtype}"
            )
        if len(P) and int(np.abs(P).max()) > GRID_BOUND:
            raise ValueError(f"points must have |coordinates| ≤ {GRID_BOUND}")
        if len(np.unique(P, axis=0)) != len(P):
            raise ValueError("points must be distinct")
        index, labels = (
            np.asarray(index, dtype=np.int64).reshape(-1),
            np.asarray(labels, dtype=np.int64).reshape(-1),
        )
        if len(index) != len(labels) or (len(index) and (index.min() < 0 or index.max() >= len(P))):
            raise ValueError("index must give, for every label, a row of points")
        if not np.all((labels == 0) | (labels == 1)):
            raise ValueError("labels must be 0/1")
        if signs not in ((1,), (-1,), (-1, 1)):
            raise ValueError(f"signs must be (1,), (-1,) or (-1, 1), got {signs!r}")
        n0, n1 = (np.bincount(index[labels == b], minlength=len(P)) for b in (0, 1))
        self.cells = UpperCells(P.astype(np.int64), n0, n1)
        super().__init__(self.cells.score, len(labels), signs, self._shared_cells)

    def _shared_cells(self) -> np.ndarray:
        """Cells g of T_1 with 1 − g in T_1 (= T_1 ∩ T_{−1}): hash of the complement, verified."""
        cells = self.cells
        full = np.sum(cells.weights, dtype=np.uint64)
        complement = full - cells.hash
        # the complements of the sorted hashes, sorted in O(n): full − h decreases in h on both
        # sides of the wrap-around at h = full
        split = int(np.searchsorted(cells.hash_sorted, full, side="right"))
        queries = np.concatenate([cells.sorted_hash[:split][::-1], cells.sorted_hash[split:][::-1]])
        position = np.minimum(np.searchsorted(cells.hash_sorted, complement[queries]), len(cells.hash) - 1)
        match = cells.hash_sorted[position] == complement[queries]
        hit, partner = queries[match], cells.sorted_hash[position[match]]
        shared = np.zeros(len(cells.hash), dtype=bool)
        for start in range(0, len(hit), 4096):
            batch = hit[start : start + 4096]
            same = np.all(cells.labels(batch) == 1 - cells.labels(partner[start : start + 4096]), axis=1)
            shared[batch[same]] = True
            for cell in batch[~same].tolist():  # a hash collision: every cell of that hash, exactly
                mine = cells.labels([cell])[0]
                shared[cell] = any(
                    np.array_equal(cells.labels([other])[0], 1 - mine)
                    for other in cells.find(complement[cell]).tolist()
                )
        return shared

    def labeling(self, score: int, rank: int) -> np.ndarray:
        """The rank-th labeling of score ``score``: T_{−1}'s first, then T_1's outside T_{−1}."""
        cell, complemented = self.cell(score, rank)
        labels = self.cells.labels([cell])[0]
        return 1 - labels if complemented else labels

    def representative(self, labels: np.ndarray) -> Components:
        """(w, a_1, a_2, a_3) with 1[⟨a, x⟩ ≥ w] = ``labels`` on P: w = −1 when the labeling is in
        T_{−1}; a an exact point strictly inside its cell (a function of the labeling alone)."""
        g = np.asarray(labels, dtype=np.int8).reshape(-1)
        if len(g) != self.cells.n or not np.all((g == 0) | (g == 1)):
            raise ValueError(f"labels must be {self.cells.n} values 0/1")
        w, cell = self.located(g, self.cells.locate)
        a = self.cells.point(cell)
        return (w, *a) if w == 1 else (w, *(-v for v in a))
