"""Concept classes with the k-component parameterisation of Section 4.1.

Every class C ⊆ {0,1}^X is given by valid component tuples y = (y_1, …, y_k) ∈ Y_{≤k}; the
values allowed for the next component after a valid prefix are :meth:`ConceptClass.next_values`,
from which follow the valid prefixes Y_{≤i} (:meth:`prefix_valid`), the restricted class
C(y_{≤i}) (:meth:`restrict`, same interface) and its completions (:meth:`completions`).

The trace Π_C(P) of Definition 3.7 is :meth:`ConceptClass.trace` — one canonical
representative hypothesis per labeling, enumerated by the class's geometry (thresholds O(|P|),
intervals O(|P|²) and *implicit*: labelings and representatives are computed on demand by
index, so LabelBoost handles 10⁶ labelings without listing them); :meth:`dichotomies`
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

    return Trace(points, len(representatives), lambda i: matrix[i].copy(), lambda i: representatives[i], agreement)


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
            yield from self.completions(prefix + (value,))

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

    def dichotomies(self, points: Any, limit: int = DEFAULT_TRACE_LIMIT) -> tuple[np.ndarray, list[Components]]:
        """Π_C(P) materialised: (labelings as an int8 array |Π_C(P)| × |P|, representatives)."""
        trace = self.trace(points)
        if trace.size > limit:
            raise ValueError(f"limit: the trace has {trace.size} labelings, more than {limit}")
        labelings = np.array([trace.labeling(i) for i in range(trace.size)], dtype=np.int8).reshape(trace.size, len(trace.points))
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

    def _check_domain(self, array: np.ndarray) -> None:
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
            return np.concatenate(([0], np.cumsum(zeros))) + np.concatenate((np.cumsum(ones[::-1])[::-1], [0]))

        return Trace(P, r + 1, lambda i: (np.arange(r) >= i).astype(np.int8),
                     lambda i: (int(P[i]),) if i < r else (self.domain_size,), agreement)


class Intervals(_GridClass):
    """c_{a,b}(x) = 1[a ≤ x < b] on [0, N); components (a, b), 0 ≤ a ≤ b ≤ N (a = b: empty).

    Trace on P = {p_0 < … < p_{r−1}}: index 0 is the all-zero labeling (representative (0, 0));
    index 1 + (row-major rank of i ≤ j) is "1 exactly on p_i … p_j", representative
    (p_i, p_j + 1) (the tight interval). 1 + r(r+1)/2 labelings, scores in O(|P|²) vectorised."""

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
                row[i: j + 1] = 1
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

    Trace: the all-zero labeling (representative (0, 0, 0, 0)) and, for every pair of distinct
    x-coordinates and pair of distinct y-coordinates of P, the points in the box they span
    (when non-empty); representative: the tight bounding box of the labeled points. O(|P|⁵)."""

    k, dimension, vc_dimension = 4, 2, 4

    def next_values(self, prefix: Components) -> Sequence[int]:
        lower = prefix[-1] if len(prefix) in (1, 3) else 0
        return range(lower, self.domain_size + 1)

    def evaluate(self, h: Components, X: np.ndarray) -> np.ndarray:
        x = self.points(X)
        inside = (x[:, 0] >= h[0]) & (x[:, 0] < h[1]) & (x[:, 1] >= h[2]) & (x[:, 1] < h[3])
        return inside.astype(np.int8)

    def trace(self, points: Any) -> Trace:
        P = self.distinct(points)
        xs, ys = np.unique(P[:, 0]), np.unique(P[:, 1])
        labelings: dict[bytes, Components] = {np.zeros(len(P), np.int8).tobytes(): (0, 0, 0, 0)}
        for x_lo, x_hi in itertools.combinations_with_replacement(xs.tolist(), 2):
            for y_lo, y_hi in itertools.combinations_with_replacement(ys.tolist(), 2):
                box = (x_lo, x_hi + 1, y_lo, y_hi + 1)
                row = self.evaluate(box, P)
                if row.any():
                    inside = P[row.astype(bool)]
                    tight = (int(inside[:, 0].min()), int(inside[:, 0].max()) + 1,
                             int(inside[:, 1].min()), int(inside[:, 1].max()) + 1)
                    labelings.setdefault(row.tobytes(), tight)
        rows = np.array([np.frombuffer(key, dtype=np.int8) for key in labelings]).reshape(len(labelings), len(P))
        return materialised_trace(P, rows, list(labelings.values()))


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
        if isinstance(coefficient_bound, bool) or not isinstance(coefficient_bound, int) or not 1 <= coefficient_bound <= 5:
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
                labelings.setdefault((projection >= w).astype(np.int8).tobytes(), (int(w),) + a)
        rows = np.array([np.frombuffer(key, dtype=np.int8) for key in labelings]).reshape(len(labelings), len(P))
        return materialised_trace(P, rows, list(labelings.values()))


class FiniteClass(ConceptClass):
    """An explicit finite class over the domain {0, …, n−1}: ``labelings[j]`` is the truth table
    of hypothesis j and ``components[j]`` its k-component tuple (default ``(j,)``). Component
    tuples must be distinct and of one length; equal truth tables are allowed. Trace: by
    enumeration; the representative of a labeling is its first hypothesis in component order."""

    dimension = 1

    def __init__(self, labelings: Sequence[Sequence[int]], components: Sequence[Sequence[Hashable]] | None = None,
                 vc_dimension: int | None = None) -> None:
        table = np.asarray(labelings, dtype=np.int64)
        if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0 or not np.isin(table, (0, 1)).all():
            raise ValueError("labelings must be a non-empty list of equal-length 0/1 truth tables")
        tuples = [tuple(c) for c in components] if components is not None else [(j,) for j in range(len(table))]
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
            if not any(len({row.tobytes() for row in self.table[:, list(subset)]}) == 2**size
                       for subset in itertools.combinations(range(n), size)):
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
        "thresholds": Thresholds, "intervals": Intervals, "rectangles": Rectangles,
        "halfspaces": lambda n: Halfspaces(n, dimension=2, coefficient_bound=1),
    }
    if name not in factories:
        raise ValueError(f"class must be one of {', '.join(CLASS_NAMES)}, got {name!r}")
    return factories[name](domain_size)
