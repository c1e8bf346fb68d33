"""Concept classes with the k-component parameterisation of Section 4.1.

Every class C ⊆ {0,1}^X is given by valid component tuples y = (y_1, …, y_k) ∈ Y_{≤k}; the
values allowed for the next component after a valid prefix are :meth:`ConceptClass.next_values`,
from which follow the valid prefixes Y_{≤i} (:meth:`prefix_valid`), the restricted class
C(y_{≤i}) (:meth:`restrict`, same interface) and its completions (:meth:`completions`).

The trace Π_C(P) of Definition 3.7 is :meth:`ConceptClass.trace` — one canonical
representative hypothesis per labeling, enumerated by the class's geometry (thresholds O(|P|),
intervals O(|P|²), rectangles O(a²b²) on a × b distinct coordinates, all *implicit*: labelings
and representatives are computed on demand by index, so LabelBoost handles 10⁶ labelings without
listing them); :meth:`dichotomies`
materialises it as (labelings, representatives). Points of a d-dimensional class are integer
arrays of shape (n, d) (1-D classes also accept shape (n,)); the columns of a trace are the
distinct points of P in lexicographic order.

Classes: :class:`Thresholds`, :class:`Intervals` (integer grid [0, N)), :class:`Rectangles`
(grid [0, N)²), :class:`Halfspaces` (grid [0, N)^d, small integer coefficients),
:class:`FiniteClass` (explicit labelings of a finite domain {0, …, n−1}).
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

DEFAULT_TRACE_LIMIT = 5_000_000
"""Largest number of labelings :meth:`ConceptClass.dichotomies` materialises, and of
hypotheses a brute-force trace (restricted or explicit classes) evaluates."""

Components = tuple[Any, ...]


@dataclass(frozen=True)
class Trace:
    """Π_C(P) (Definition 3.7) with one representative hypothesis per labeling.

    ``points``: the distinct points P (lexicographic order; the columns of a labeling);
    ``size``: |Π_C(P)|; ``labeling(i)`` and ``representative(i)``: the i-th labeling (0/1 array
    over ``points``) and its representative component tuple; ``agreement(index, labels)``: for a
    labeled sample whose points are ``points[index]`` with labels ``labels``, the number of
    agreements Σ_j 1[g(x_j) = y_j] of every labeling, as an integer array of length ``size``
    (the score of Algorithm 1 line 5)."""

    points: np.ndarray
    size: int
    labeling: Callable[[int], np.ndarray]
    representative: Callable[[int], Components]
    agreement: Callable[[np.ndarray, np.ndarray], np.ndarray]


def materialised_trace(points: np.ndarray, labelings: np.ndarray, representatives: list[Components]) -> Trace:
    """A :class:`Trace` from an explicit labelings matrix (rows distinct) and representatives."""
    matrix = np.asarray(labelings, dtype=np.int8).reshape(len(representatives), len(points))

    def agreement(index: np.ndarray, labels: np.ndarray) -> np.ndarray:
        return (matrix[:, index] == np.asarray(labels, dtype=np.int8)).sum(axis=1)

    return Trace(
        points, len(representatives), lambda i: matrix[i].copy(), lambda i: representatives[i], agreement
    )


class ConceptClass(ABC):
    """A concept class with a k-component parameterisation (Section 4.1)."""

    k: int
    dimension: int
    vc_dimension: int
    """The VC dimension of the class (for a restricted class: an upper bound, Claim 4.1)."""

    @abstractmethod
    def next_values(self, prefix: Components) -> Sequence[Any]:
        """The values y_{i+1} such that prefix + (y_{i+1},) ∈ Y_{≤i+1}, for a valid prefix of length i < k."""

    @abstractmethod
    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        """c_h(x) ∈ {0, 1} for every point of X (int8 array)."""

    @abstractmethod
    def trace(self, points: np.ndarray) -> Trace:
        """Π_C(P) for the distinct points of ``points`` (Definition 3.7)."""

    # -- the parameterisation of Section 4.1 ------------------------------------------------

    def prefix_valid(self, prefix: Sequence[Any]) -> bool:
        """Whether ``prefix`` ∈ Y_{≤i}, i = len(prefix) (it extends to a complete representation)."""
        prefix = tuple(prefix)
        if len(prefix) > self.k:
            return False
        return all(prefix[i] in self.next_values(prefix[:i]) for i in range(len(prefix)))

    def contains(self, h: Sequence[Any]) -> bool:
        """Whether ``h`` is a complete valid component tuple (an element of Y_{≤k})."""
        return len(tuple(h)) == self.k and self.prefix_valid(h)

    def completions(self, prefix: Sequence[Any] = ()) -> Iterator[Components]:
        """All complete tuples of C(prefix), depth-first in the order of :meth:`next_values`."""
        prefix = tuple(prefix)
        if not self.prefix_valid(prefix):
            raise ValueError(f"prefix {prefix} is not a valid prefix of {self!r}")
        if len(prefix) == self.k:
            yield prefix
            return
        for value in self.next_values(prefix):
            yield from self.completions((*prefix, value))

    def complete(self, prefix: Sequence[Any] = ()) -> Components:
        """One completion of a valid prefix (the first in :meth:`completions` order)."""
        return next(self.completions(prefix))

    def restrict(self, prefix: Sequence[Any]) -> ConceptClass:
        """The restricted class C(y_{≤i}) of Section 4.1, with the same interface."""
        prefix = tuple(prefix)
        if not self.prefix_valid(prefix):
            raise ValueError(f"prefix {prefix} is not a valid prefix of {self!r}")
        return Restricted(self, prefix) if prefix else self

    # -- traces -------------------------------------------------------------------------

    def points(self, X: Any) -> np.ndarray:
        """``X`` as an integer array of shape (n,) (1-D classes) or (n, d), checked in the domain."""
        array = np.asarray(X, dtype=np.int64)
        array = array.reshape(-1) if self.dimension == 1 else array.reshape(-1, self.dimension)
        self._check_domain(array)
        return array

    def distinct(self, X: Any) -> np.ndarray:
        """The distinct points of X in lexicographic order (the set P of Algorithm 1 line 3)."""
        return np.unique(self.points(X), axis=0)

    def dichotomies(
        self, points: Any, limit: int = DEFAULT_TRACE_LIMIT
    ) -> tuple[np.ndarray, list[Components]]:
        """Π_C(P) materialised: (labelings as an int8 array |Π_C(P)| × |P|, representatives)."""
        trace = self.trace(points)
        if trace.size > limit:
            raise ValueError(f"limit: the trace has {trace.size} labelings, more than {limit}")
        labelings = np.array([trace.labeling(i) for i in range(trace.size)], dtype=np.int8).reshape(
            trace.size, len(trace.points)
        )
        return labelings, [trace.representative(i) for i in range(trace.size)]

    def enumerated_trace(self, points: Any, limit: int = DEFAULT_TRACE_LIMIT) -> Trace:
        """Π_C(P) by evaluating every hypothesis (for small classes): the representative of a
        labeling is its first hypothesis in :meth:`completions` order."""
        distinct = self.distinct(points)
        seen: dict[bytes, int] = {}
        rows: list[np.ndarray] = []
        representatives: list[Components] = []
        for count, h in enumerate(self.completions()):
            if count >= limit:
                raise ValueError(f"limit: {self!r} has more than {limit} hypotheses to enumerate")
            row = self.evaluate(h, distinct)
            key = row.tobytes()
            if key not in seen:
                seen[key] = len(rows)
                rows.append(row)
                representatives.append(h)
        return materialised_trace(distinct, np.array(rows).reshape(len(rows), len(distinct)), representatives)

    def trace_records_limit(self) -> int | None:
        """The most records of S∘T (counted with repeats: a public size, not the distinct points)
        whose trace LabelBoost builds within about a minute and 6 GB; None: no limit below what the
        class's own checks refuse.

        Returns:
            The limit, or None.
        """
        return None

    def _check_domain(self, array: np.ndarray) -> None:  # noqa: B027 (an optional hook, not abstract)
        """Raise ``ValueError`` when a point lies outside the domain (default: no check)."""


class Restricted(ConceptClass):
    """C(y_{≤i}): the hypotheses of ``parent`` whose first components equal ``prefix`` (Section 4.1).
    Its trace is enumerated over its completions."""

    def __init__(self, parent: ConceptClass, prefix: Components) -> None:
        self.parent, self.prefix = parent, prefix
        self.k, self.dimension, self.vc_dimension = parent.k, parent.dimension, parent.vc_dimension

    def __repr__(self) -> str:
        return f"{self.parent!r}.restrict({self.prefix})"

    def next_values(self, prefix: Components) -> Sequence[Any]:
        if len(prefix) < len(self.prefix):
            return (self.prefix[len(prefix)],) if prefix == self.prefix[: len(prefix)] else ()
        return self.parent.next_values(prefix)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        return self.parent.evaluate(h, X)

    def trace(self, points: np.ndarray) -> Trace:
        return self.enumerated_trace(points)

    def trace_records_limit(self) -> int | None:
        return self.parent.trace_records_limit()

    def points(self, X: Any) -> np.ndarray:
        return self.parent.points(X)


class _GridClass(ConceptClass):
    """A class over the integer grid [0, N)^d."""

    def __init__(self, domain_size: int) -> None:
        if isinstance(domain_size, bool) or not isinstance(domain_size, (int, np.integer)) or domain_size < 1:
            raise ValueError(f"domain_size must be an integer ≥ 1, got {domain_size!r}")
        self.domain_size = int(domain_size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.domain_size})"

    def _check_domain(self, array: np.ndarray) -> None:
        if array.size and (array.min() < 0 or array.max() >= self.domain_size):
            raise ValueError(f"points must lie in the grid [0, {self.domain_size})^{self.dimension}")


class Thresholds(_GridClass):
    """c_t(x) = 1[x ≥ t] on [0, N); one component t ∈ {0, …, N} (t = N: the all-zero concept).

    Trace on P = {p_0 < … < p_{r−1}}: the r + 1 labelings "1 from p_i on"; representative
    t = p_i (tight), and t = N for the all-zero labeling. O(|P|)."""

    k, dimension, vc_dimension = 1, 1, 1

    def next_values(self, prefix: Components) -> Sequence[int]:
        return range(self.domain_size + 1)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        return (self.points(X) >= h[0]).astype(np.int8)

    def trace(self, points: Any) -> Trace:
        P = self.distinct(points)
        r = len(P)

        def agreement(index: np.ndarray, labels: np.ndarray) -> np.ndarray:
            # labeling i puts 1 on positions ≥ i: agreements = #(y=0 before i) + #(y=1 from i)
            zeros = np.bincount(index[labels == 0], minlength=r)
            ones = np.bincount(index[labels == 1], minlength=r)
            return np.concatenate(([0], np.cumsum(zeros))) + np.concatenate(
                (np.cumsum(ones[::-1])[::-1], [0])
            )

        return Trace(
            P,
            r + 1,
            lambda i: (np.arange(r) >= i).astype(np.int8),
            lambda i: (int(P[i]),) if i < r else (self.domain_size,),
            agreement,
        )


class Intervals(_GridClass):
    """c_{a,b}(x) = 1[a ≤ x < b] on [0, N); components (a, b), 0 ≤ a ≤ b ≤ N (a = b: empty).

    Trace on P = {p_0 < … < p_{r−1}}: index 0 is the all-zero labeling (representative (0, 0));
    index 1 + (row-major rank of i ≤ j) is "1 exactly on p_i … p_j", representative
    (p_i, p_j + 1) (the tight interval). 1 + r(r+1)/2 labelings, scores in O(|P|²) vectorised."""

    RECORDS_LIMIT = 40_000
    """:meth:`trace_records_limit`: the scores take O(|P|²) memory — measured in CarryForwardLearner
    on N = 2^20, 20,000 records 1.9 GB and 4 s, 40,000 records 6.6 GB and 19 s."""

    def trace_records_limit(self) -> int | None:
        return self.RECORDS_LIMIT

    k, dimension, vc_dimension = 2, 1, 2

    def next_values(self, prefix: Components) -> Sequence[int]:
        return range(self.domain_size + 1) if not prefix else range(prefix[0], self.domain_size + 1)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        x = self.points(X)
        return ((x >= h[0]) & (x < h[1])).astype(np.int8)

    def trace(self, points: Any) -> Trace:
        P = self.distinct(points)
        r = len(P)
        row_start = np.concatenate(([0], np.cumsum(np.arange(r, 0, -1))))  # rank of (i, i)

        def pair(index: int) -> tuple[int, int]:
            i = int(np.searchsorted(row_start, index - 1, side="right")) - 1
            return i, i + (index - 1 - int(row_start[i]))

        def labeling(index: int) -> np.ndarray:
            row = np.zeros(r, dtype=np.int8)
            if index:
                i, j = pair(index)
                row[i : j + 1] = 1
            return row

        def representative(index: int) -> Components:
            if not index:
                return (0, 0)
            i, j = pair(index)
            return (int(P[i]), int(P[j]) + 1)

        def agreement(index: np.ndarray, labels: np.ndarray) -> np.ndarray:
            # score(i, j) = #(y=0) + Σ_{i ≤ l ≤ j} (#(y=1 at p_l) − #(y=0 at p_l))
            gain = np.bincount(index, weights=np.where(labels == 1, 1, -1), minlength=r).astype(np.int64)
            prefix = np.concatenate(([0], np.cumsum(gain)))
            zeros = int(np.sum(labels == 0))
            rows, cols = _upper_triangle(r)
            return np.concatenate(([zeros], zeros + prefix[cols + 1] - prefix[rows]))

        return Trace(P, 1 + r * (r + 1) // 2, labeling, representative, agreement)


@lru_cache(maxsize=64)
def _upper_triangle(r: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs i ≤ j < r in row-major order (cached: LabelBoost's enumeration repeats sizes)."""
    return np.triu_indices(r)


class Rectangles(_GridClass):
    """Axis-aligned rectangles on [0, N)²: c(x) = 1[x_lo ≤ x₀ < x_hi and y_lo ≤ x₁ < y_hi];
    components (x_lo, x_hi, y_lo, y_hi) with x_lo ≤ x_hi and y_lo ≤ y_hi in {0, …, N}.

    Trace (:meth:`box_trace`, implicit): on the a × b distinct coordinates of P, a non-empty
    labeling is the set of points in a box whose free sides are *tight* (each free side touches a
    labeled point), so it is counted once; the boxes are enumerated vectorised with 2-D prefix
    sums, O(a²b²) ≤ (64·65/2)² ≈ 4·10⁶ on a 64 × 64 grid (the listing by point sets was O(|P|⁵)).
    Representatives: the all-zero labeling (0, 0, 0, 0), a non-empty one its tight bounding box."""

    k, dimension, vc_dimension = 4, 2, 4

    def next_values(self, prefix: Components) -> Sequence[int]:
        lower = prefix[-1] if len(prefix) in (1, 3) else 0
        return range(lower, self.domain_size + 1)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        x = self.points(X)
        inside = (x[:, 0] >= h[0]) & (x[:, 0] < h[1]) & (x[:, 1] >= h[2]) & (x[:, 1] < h[3])
        return inside.astype(np.int8)

    def trace(self, points: Any) -> Trace:
        return self.box_trace(points)

    def box_trace(self, points: Any, prefix: Components = ()) -> Trace:
        """Π_{C(prefix)}(P) (Definition 3.7) for the distinct points P of ``points``. The first
        len(prefix) sides (x_lo, x_hi, y_lo, y_hi) are fixed, the others free and tight; the
        representative of a non-empty labeling is its tight bounding box when nothing is fixed,
        else the first completion in :meth:`completions` order — free sides as small as the
        labeling allows —, as the enumerated trace of the restricted class has it; the all-zero
        labeling's is (0, 0, 0, 0), resp. the first completion of the prefix."""
        P = self.distinct(points)
        prefix = tuple(int(v) for v in prefix)
        xs, ys = np.unique(P[:, 0]), np.unique(P[:, 1])
        column, row = np.searchsorted(xs, P[:, 0]), np.searchsorted(ys, P[:, 1])
        occupied = np.zeros((len(xs), len(ys)), dtype=np.int64)
        occupied[column, row] = 1
        cuts = [np.searchsorted(axis, value) for axis, value in zip((xs, xs, ys, ys), prefix, strict=False)]
        x_pairs = _side_pairs(
            len(xs), cuts[0] if len(cuts) > 0 else None, cuts[1] - 1 if len(cuts) > 1 else None
        )
        y_pairs = _side_pairs(
            len(ys), cuts[2] if len(cuts) > 2 else None, cuts[3] - 1 if len(cuts) > 3 else None
        )
        free = (len(cuts) < 1, len(cuts) < 2, len(cuts) < 3, len(cuts) < 4)
        boxes = _tight_boxes(occupied, x_pairs, y_pairs, free)
        empty = (0, 0, 0, 0) if not prefix else self.complete(prefix)

        def labeling(index: int) -> np.ndarray:
            if not index:
                return np.zeros(len(P), dtype=np.int8)
            i0, i1, j0, j1 = boxes[:, index - 1].tolist()
            return ((column >= i0) & (column <= i1) & (row >= j0) & (row <= j1)).astype(np.int8)

        def representative(index: int) -> Components:
            if not index:
                return empty
            i0, i1, j0, j1 = boxes[:, index - 1].tolist()
            tight = [int(xs[i0]), int(xs[i1]) + 1, int(ys[j0]), int(ys[j1]) + 1]
            if prefix:
                below = np.flatnonzero(occupied[i0 : i1 + 1, :j0].any(axis=0))  # band points under the box
                tight[2] = int(ys[below[-1]]) + 1 if len(below) else 0  # the smallest y_lo keeping them out
            return prefix + tuple(tight[len(prefix) :])

        def agreement(index: np.ndarray, labels: np.ndarray) -> np.ndarray:
            gain = np.zeros_like(occupied)
            np.add.at(gain, (column[index], row[index]), np.where(np.asarray(labels) == 1, 1, -1))
            zeros = int(np.sum(np.asarray(labels) == 0))
            return np.concatenate(([zeros], zeros + _box_sums(gain)(boxes)))

        return Trace(P, 1 + boxes.shape[1], labeling, representative, agreement)


_BOX_CHUNK = 4_000_000
"""Candidate boxes checked per numpy batch."""


def _side_pairs(count: int, low: int | None, high: int | None) -> np.ndarray:
    """The index ranges [i0, i1] of one axis (2 × pairs): fixed ends as given (None: free)."""
    lows = np.arange(count) if low is None else np.array([low])
    highs = np.arange(count) if high is None else np.array([high])
    i0, i1 = np.meshgrid(lows, highs, indexing="ij")
    keep = (i0 <= i1) & (i0 >= 0) & (i1 < count)
    return np.stack((i0[keep], i1[keep]))


def _box_sums(grid: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Σ grid over index boxes [i0, i1] × [j0, j1] (rows of a 4 × boxes array), by 2-D prefix sums."""
    total = np.zeros((grid.shape[0] + 1, grid.shape[1] + 1), dtype=np.int64)
    total[1:, 1:] = grid.cumsum(axis=0).cumsum(axis=1)

    def sums(boxes: np.ndarray) -> np.ndarray:
        i0, i1, j0, j1 = boxes[0], boxes[1] + 1, boxes[2], boxes[3] + 1
        return total[i1, j1] - total[i0, j1] - total[i1, j0] + total[i0, j0]

    return sums


def _tight_boxes(
    occupied: np.ndarray, x_pairs: np.ndarray, y_pairs: np.ndarray, free: tuple[bool, ...]
) -> np.ndarray:
    """The index boxes (4 × count, int32) holding a point and touching one on every free side:
    column i0 has a point in rows [j0, j1] when x_lo is free, and so on (1-D prefix sums)."""
    count = _box_sums(occupied)
    by_column = np.concatenate((np.zeros((occupied.shape[0], 1), np.int64), occupied.cumsum(axis=1)), axis=1)
    by_row = np.concatenate((np.zeros((1, occupied.shape[1]), np.int64), occupied.cumsum(axis=0)), axis=0)
    touches = (  # per side (x_lo, x_hi, y_lo, y_hi): does the box (i0, i1, j0, j1) hold a point on it
        lambda i0, i1, j0, j1: by_column[i0, j1 + 1] > by_column[i0, j0],
        lambda i0, i1, j0, j1: by_column[i1, j1 + 1] > by_column[i1, j0],
        lambda i0, i1, j0, j1: by_row[i1 + 1, j0] > by_row[i0, j0],
        lambda i0, i1, j0, j1: by_row[i1 + 1, j1] > by_row[i0, j1],
    )
    found = []
    step = max(1, _BOX_CHUNK // max(1, y_pairs.shape[1]))
    for start in range(0, x_pairs.shape[1], step):
        xp = x_pairs[:, start : start + step]
        i0, i1 = np.repeat(xp[0], y_pairs.shape[1]), np.repeat(xp[1], y_pairs.shape[1])
        j0, j1 = np.tile(y_pairs[0], xp.shape[1]), np.tile(y_pairs[1], xp.shape[1])
        keep = np.ones(len(i0), dtype=bool)
        for side, touch in enumerate(touches):
            if free[side]:
                keep &= touch(i0, i1, j0, j1)
        boxes = np.stack((i0[keep], i1[keep], j0[keep], j1[keep]))
        if not any(free):
            boxes = boxes[:, count(boxes) > 0]
        found.append(boxes.astype(np.int32))
    return np.concatenate(found, axis=1) if found else np.zeros((4, 0), dtype=np.int32)


class Halfspaces(_GridClass):
    """Halfspaces on the grid [0, N)^d with small integer coefficients:
    c_{w,a}(x) = 1[⟨a, x⟩ ≥ w]; components (w, a_1, …, a_d) with a_j ∈ {−A, …, A} and
    w ∈ {−W, …, W + 1}, W = A·d·(N − 1) (so every threshold of every direction is present,
    and w = W + 1 gives the all-zero concept for every a).

    Trace: for every coefficient vector a, the points sorted by ⟨a, p⟩ and every threshold
    between consecutive distinct projections — the arrangement of P seen from each admissible
    direction — O(|A-domain|^d · |P| log |P|), independent of W. Representative of a labeling:
    the first (a, w) found, w = the smallest projection labeled 1 (tight), a in lexicographic
    order; the all-zero labeling: (W + 1, −A, …, −A)."""

    def __init__(self, domain_size: int, dimension: int = 2, coefficient_bound: int = 2) -> None:
        super().__init__(domain_size)
        if isinstance(dimension, bool) or not isinstance(dimension, int) or not 1 <= dimension <= 4:
            raise ValueError(f"dimension must be an integer in [1, 4], got {dimension!r}")
        if (
            isinstance(coefficient_bound, bool)
            or not isinstance(coefficient_bound, int)
            or not 1 <= coefficient_bound <= 5
        ):
            raise ValueError(f"coefficient_bound must be an integer in [1, 5], got {coefficient_bound!r}")
        self.dimension, self.bound = dimension, coefficient_bound
        self.k = dimension + 1
        self.vc_dimension = dimension + 1  # an upper bound: VC of all halfspaces in R^d
        self.offset_bound = coefficient_bound * dimension * (domain_size - 1)

    def __repr__(self) -> str:
        return f"Halfspaces({self.domain_size}, dimension={self.dimension}, coefficient_bound={self.bound})"

    def next_values(self, prefix: Components) -> Sequence[int]:
        if not prefix:
            return range(-self.offset_bound, self.offset_bound + 2)
        return range(-self.bound, self.bound + 1)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        return (self.points(X) @ np.asarray(h[1:], dtype=np.int64) >= h[0]).astype(np.int8)

    def trace(self, points: Any) -> Trace:
        P = self.distinct(points)
        directions = itertools.product(range(-self.bound, self.bound + 1), repeat=self.dimension)
        everywhere_zero = (self.offset_bound + 1,) + (-self.bound,) * self.dimension
        labelings: dict[bytes, Components] = {np.zeros(len(P), np.int8).tobytes(): everywhere_zero}
        for a in directions:
            projection = P @ np.asarray(a, dtype=np.int64)
            for w in np.unique(projection).tolist():
                labelings.setdefault((projection >= w).astype(np.int8).tobytes(), (int(w), *a))
        rows = np.array([np.frombuffer(key, dtype=np.int8) for key in labelings]).reshape(
            len(labelings), len(P)
        )
        return materialised_trace(P, rows, list(labelings.values()))


class FiniteClass(ConceptClass):
    """An explicit finite class over the domain {0, …, n−1}: ``labelings[j]`` is the truth table
    of hypothesis j and ``components[j]`` its k-component tuple (default ``(j,)``). Component
    tuples must be distinct and of one length; equal truth tables are allowed. Trace: by
    enumeration; the representative of a labeling is its first hypothesis in component order."""

    dimension = 1

    def __init__(
        self,
        labelings: Sequence[Sequence[int]],
        components: Sequence[Sequence[Hashable]] | None = None,
        vc_dimension: int | None = None,
    ) -> None:
        table = np.asarray(labelings, dtype=np.int64)
        if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0 or not np.isin(table, (0, 1)).all():
            raise ValueError("labelings must be a non-empty list of equal-length 0/1 truth tables")
        tuples = (
            [tuple(c) for c in components] if components is not None else [(j,) for j in range(len(table))]
        )
        if len(tuples) != len(table) or len(set(tuples)) != len(tuples) or len({len(t) for t in tuples}) != 1:
            raise ValueError("components must be distinct tuples of one length, one per labeling")
        self.table = table.astype(np.int8)
        self.index = {t: j for j, t in enumerate(tuples)}
        self.k = len(tuples[0])
        self.vc_dimension = self._vc_dimension() if vc_dimension is None else vc_dimension

    def __repr__(self) -> str:
        return f"FiniteClass({len(self.table)} hypotheses over {self.table.shape[1]} points)"

    def _vc_dimension(self) -> int:
        n = self.table.shape[1]
        best = 0
        for size in range(1, n + 1):
            if not any(
                len({row.tobytes() for row in self.table[:, list(subset)]}) == 2**size
                for subset in itertools.combinations(range(n), size)
            ):
                break
            best = size
        return best

    def next_values(self, prefix: Components) -> Sequence[Any]:
        depth = len(prefix)
        return sorted({t[depth] for t in self.index if t[:depth] == tuple(prefix)})

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        return self.table[self.index[tuple(h)], self.points(X)]

    def trace(self, points: Any) -> Trace:
        return self.enumerated_trace(points)

    def _check_domain(self, array: np.ndarray) -> None:
        if array.size and (array.min() < 0 or array.max() >= self.table.shape[1]):
            raise ValueError(f"points must lie in the domain {{0, …, {self.table.shape[1] - 1}}}")


CLASS_NAMES = ("thresholds", "intervals", "rectangles", "halfspaces")


def make_class(name: str, domain_size: int) -> ConceptClass:
    """A named grid class on [0, domain_size)^d (halfspaces: d = 2, coefficients in {−1, 0, 1})."""
    factories: dict[str, Callable[[int], ConceptClass]] = {
        "thresholds": Thresholds,
        "intervals": Intervals,
        "rectangles": Rectangles,
        "halfspaces": lambda n: Halfspaces(n, dimension=2, coefficient_bound=1),
    }
    if name not in factories:
        raise ValueError(f"class must be one of {', '.join(CLASS_NAMES)}, got {name!r}")
    return factories[name](domain_size)
