"""The composed class C = G(H_1, …, H_k) of Section 8.4 with the parameterisation of Lemma 8.18.

**Domain (a choice, stated here and in the CLI).** C lives on a common domain X, as in the seed
(G(h_1, …, h_k)(x) = G(h_1(x), …, h_k(x))): X is the integer grid of dimension
D = max_i dim(H_i), and component class H_i reads the *first* dim(H_i) coordinates of a point.
So thresholds, intervals and finite classes all read x_0 (one common line when D = 1), and with
rectangles in the list D = 2 and the 1-D classes read the first coordinate.

**Parameterisation (Lemma 8.18).** Component i is a hypothesis h_i ∈ H_i, written as H_i's own
component tuple; every h ∈ H_i is a valid next value after every prefix, and
C(h_{≤i−1}, h) = {G(h_1, …, h_{i−1}, h, c_{i+1}, …, c_k) : c_j ∈ H_j}.

**Traces.** Π_{C(h≤i)}(P) is built from the component traces Π_{H_j}(P): a partial choice
h_1 … h_j leaves at every point x the *residual* Boolean function G(h_1(x), …, h_j(x), ·) of the
remaining inputs; tuples with the same residual vector on P have the same completions on P, so
the enumeration keeps one per residual vector (:class:`Residuals`). The completion score q_i of
equation (3) is computed the same way, the last component by one matrix product — or, when the
remaining components are thresholds and intervals on one line, by a max-plus pass along the
sorted points over their joint phases (:data:`LINE_PHASES`), nothing enumerated. LabelBoost
over such compositions never lists the trace either: it is counted by score
(:mod:`dpledger.learners.trace_counting`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.learners.boolean.formula import BooleanFunction
from dpledger.learners.concept_classes import (
    DEFAULT_TRACE_LIMIT,
    Components,
    ConceptClass,
    Intervals,
    Rectangles,
    Restricted,
    Thresholds,
    Trace,
    make_class,
    materialised_trace,
)

COMPONENT_NAMES = ("thresholds", "intervals", "rectangles")
"""Component classes available by name (:func:`component_class`); any :class:`ConceptClass`
(e.g. a :class:`~dpledger.learners.concept_classes.FiniteClass`) can be passed directly."""

HYPOTHESIS_LIST_LIMIT = 1_000_000
"""Largest class whose hypotheses :class:`HypothesisSpace` lists explicitly (classes without a
closed-form index: finite classes, or restricted ones)."""

LINE_PHASES: dict[type, tuple[int, ...]] = {Thresholds: (0, 1), Intervals: (0, 1, 0)}
"""1-D component classes read along the sorted line: the label of each *phase* (thresholds 0 → 1,
intervals 0 → 1 → 2; phases never decrease), so a labeling of sorted points is a non-decreasing
phase sequence. Used by the completion score below and by :mod:`dpledger.learners.trace_counting`."""

_CHUNK_CELLS = 20_000_000
"""Residual cells (states × labelings × points) expanded per numpy batch."""


def component_class(name: str, domain_size: int) -> ConceptClass:
    """A named component class on the grid [0, domain_size)^d (thresholds, intervals, rectangles)."""
    if name not in COMPONENT_NAMES:
        raise ValueError(
            f"components: unknown component class {name!r}; choose from {', '.join(COMPONENT_NAMES)}"
        )
    return make_class(name, domain_size)


class HypothesisSpace(Sequence):
    """All hypotheses of a class H as a lazy sequence of component tuples — the next values of
    a composition (Lemma 8.18: every h ∈ H_i is a valid component). Grid classes are indexed in
    closed form (thresholds t; intervals (a, b) with a ≤ b, by a then b; rectangles as a pair of
    intervals), so |H| ≈ 2^62 is fine; other classes are listed (up to
    :data:`HYPOTHESIS_LIST_LIMIT`). Membership is :meth:`ConceptClass.contains`."""

    def __init__(self, concept_class: ConceptClass) -> None:
        self.concept_class = concept_class
        kind = type(concept_class)
        if kind in (Thresholds, Intervals, Rectangles):
            n = concept_class.domain_size  # type: ignore[attr-defined]  # the three classes checked above have one
            self._pairs = (n + 1) * (n + 2) // 2
            self._size = {Thresholds: n + 1, Intervals: self._pairs, Rectangles: self._pairs**2}[kind]
            self._listed: list[Components] | None = None
        else:
            self._listed = list(itertools.islice(concept_class.completions(), HYPOTHESIS_LIST_LIMIT + 1))
            if len(self._listed) > HYPOTHESIS_LIST_LIMIT:
                raise ValueError(
                    f"components: {concept_class!r} has more than {HYPOTHESIS_LIST_LIMIT} hypotheses to list"
                )
            self._size = len(self._listed)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        index = int(index)
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(f"hypothesis index {index} out of range({self._size})")
        if self._listed is not None:
            return self._listed[index]
        kind = type(self.concept_class)
        if kind is Thresholds:
            return (index,)
        if kind is Intervals:
            return self._pair(index)
        return self._pair(index // self._pairs) + self._pair(index % self._pairs)

    def _pair(self, index: int) -> tuple[int, int]:
        return ordered_pair(index, self.concept_class.domain_size + 1)  # type: ignore[attr-defined]  # set only for intervals and rectangles

    def __contains__(self, h: object) -> bool:
        try:
            return self.concept_class.contains(tuple(h))  # type: ignore[arg-type]
        except (TypeError, KeyError):
            return False

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))


def ordered_pair(index: int, count: int) -> tuple[int, int]:
    """The index-th pair a ≤ b in range(count), ordered by a then b (a has count − a pairs,
    so pairs before a number offset(a) = a·count − a(a−1)/2)."""
    low, high = 0, count - 1  # the largest a with offset(a) ≤ index
    while low < high:
        middle = (low + high + 1) // 2
        if middle * count - middle * (middle - 1) // 2 <= index:
            low = middle
        else:
            high = middle - 1
    return low, low + index - (low * count - low * (low - 1) // 2)


def sauer_bound(d: int, n: int) -> int:
    """Φ_d(n) = Σ_{j ≤ d} C(n, j): the most labelings a class of VC dimension d induces on n points
    (Sauer–Shelah)."""
    return sum(math.comb(n, j) for j in range(min(d, n) + 1))


def composition_vc_bound(dimensions: Sequence[int]) -> int:
    """An upper bound on VC(G(H_1, …, H_k)): the largest n with Π_i Φ_{d_i}(n) ≥ 2^n
    (|Π_C(P)| ≤ Π_i |Π_{H_i}(P)|, Sauer–Shelah). It is searched up to Blumer et al.'s bound
    2·(Σ d_i)·log₂(3k) (1989, Lemma 3.2.3), beyond which no n qualifies."""
    total, k = sum(dimensions), len(dimensions)
    cap = max(1, math.ceil(2 * total * math.log2(3 * k)))
    return max(
        (n for n in range(1, cap + 1) if math.prod(sauer_bound(d, n) for d in dimensions) >= 2**n), default=0
    )


class Residuals:
    """The residual automaton of G: after the first j inputs a_1 … a_j are fixed, what remains is
    the truth table G(a_1, …, a_j, ·); equal tables get one id per level. ``step[j][id, b]`` is
    the id after fixing input j+1 to b; at level k the ids are the constants, ``value[id]``."""

    def __init__(self, G: BooleanFunction) -> None:
        k = G.arity
        self.levels: list[np.ndarray] = []  # level j: id of every assignment of the first j inputs
        tables: list[dict[tuple[int, ...], int]] = []
        for j in range(k + 1):
            ids: dict[tuple[int, ...], int] = {}
            self.levels.append(np.array([ids.setdefault(G.residual(v, j), len(ids)) for v in range(2**j)]))
            tables.append(ids)
        most = max(len(ids) for ids in tables)
        self.dtype = np.uint8 if most <= 255 else np.uint16
        self.step: list[np.ndarray] = []
        for j in range(k):
            table = np.zeros((len(tables[j]), 2), dtype=self.dtype)
            for v in range(2**j):
                table[self.levels[j][v]] = self.levels[j + 1][[2 * v, 2 * v + 1]]
            self.step.append(table)
        self.value = np.array([table[0] for table in tables[k]], dtype=np.int8)


@dataclass(frozen=True)
class ComponentTrace:
    """Π_{H_j}(P) on the composed points P: labelings (rows, int8 over P) and representatives."""

    labelings: np.ndarray
    representatives: list[Components]


class BooleanComposition(ConceptClass):
    """C = G(H_1, …, H_k) (Section 8.4) on the common domain described in the module docstring.

    ``G``: a :class:`~dpledger.learners.boolean.formula.BooleanFunction` of arity k = len(components);
    ``components``: the classes H_1 … H_k; ``trace_limit``: the most residual states (and
    component labelings) a trace may hold before ``ValueError``. The hypotheses of Lemma 8.18
    are checked at construction — G's arity equals k and every H_i is non-empty — and with the
    product parameterisation they make the three structural conditions of Corollary 8.17 hold
    for every prefix (proof of Lemma 8.18): (1) every h ∈ H_i is a next value with
    C(h≤i−1, h) ≠ ∅, (2) C(h≤i−1) = ∪_h C(h≤i−1, h), (3) local replacement keeps c_{i+1..k}.
    :meth:`verify_structural_conditions` re-checks them by enumeration on a finite point set."""

    def __init__(
        self,
        G: BooleanFunction,
        components: Sequence[ConceptClass],
        trace_limit: int = DEFAULT_TRACE_LIMIT,
    ) -> None:
        if not isinstance(G, BooleanFunction):
            raise ValueError(
                f"G must be a BooleanFunction (parse_formula / from_truth_table), got {type(G).__name__}"
            )
        classes = list(components)
        if not all(isinstance(H, ConceptClass) for H in classes):
            raise ValueError("components must be ConceptClass instances")
        if G.arity != len(classes):
            raise ValueError(
                f"components: G has arity {G.arity} but {len(classes)} component classes were given"
            )
        self.G, self.components = G, tuple(classes)
        self.k = len(classes)
        self.dimension = max(H.dimension for H in classes)
        self.spaces = tuple(HypothesisSpace(H) for H in classes)
        if any(len(space) == 0 for space in self.spaces):
            raise ValueError("components: every component class must be non-empty (Lemma 8.18)")
        self.vc_dimension = composition_vc_bound([H.vc_dimension for H in classes])
        self.residuals = Residuals(G)
        self.trace_limit = trace_limit

    def __repr__(self) -> str:
        return f"BooleanComposition({self.G.description!r}; {', '.join(map(repr, self.components))})"

    # -- the parameterisation of Lemma 8.18 ------------------------------------------------

    def next_values(self, prefix: Components) -> Sequence[Any]:
        return self.spaces[len(prefix)]

    def project(self, X: Any, i: int) -> np.ndarray:
        """The coordinates component class H_i reads from composed points (its first dim(H_i))."""
        array = np.asarray(X, dtype=np.int64).reshape(-1, self.dimension)
        return array[:, 0] if self.components[i].dimension == 1 else array[:, : self.components[i].dimension]

    def _check_domain(self, array: np.ndarray) -> None:
        for i, H in enumerate(self.components):
            H.points(self.project(array, i))

    def component_bits(self, h: Components, X: Any) -> np.ndarray:
        """(h_1(x), …, h_k(x)) for every point x: an (n, k) int8 array."""
        points = self.points(X)
        return np.stack(
            [H.evaluate(tuple(h[i]), self.project(points, i)) for i, H in enumerate(self.components)], axis=1
        )

    def evaluate(self, h: Components, X: Any) -> np.ndarray:
        return self.G(self.component_bits(h, X))

    # -- traces from component traces ---------------------------------------------------------

    def component_trace(self, i: int, P: np.ndarray) -> ComponentTrace:
        """Π_{H_i}(P) on the composed distinct points P (H_i's own trace, mapped back to P)."""
        H = self.components[i]
        projected = self.project(P, i)
        _, inverse = np.unique(projected, axis=0, return_inverse=True)
        labelings, representatives = H.dichotomies(projected, self.trace_limit)
        return ComponentTrace(labelings[:, inverse.reshape(-1)], representatives)

    def state(self, prefix: Components, P: np.ndarray) -> np.ndarray:
        """The residual id at every point of P after the components of ``prefix`` are fixed."""
        ids = np.zeros(len(P), dtype=np.int64)
        for j, h in enumerate(prefix):
            ids = self.residuals.step[j][ids, self.components[j].evaluate(tuple(h), self.project(P, j))]
        return ids.astype(self.residuals.dtype)

    def extend(
        self,
        states: np.ndarray,
        tags: np.ndarray,
        level: int,
        trace: ComponentTrace,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fix input ``level + 1`` to every labeling of ``trace`` in every state; keep one row per
        distinct (residual vector, tag). Returns (states, tags, parent row, labeling index)."""
        rows, width = len(trace.labelings), states.shape[1]
        step = self.residuals.step[level]
        chosen = trace.labelings.astype(bool)[None, :, :]
        chunk = max(1, _CHUNK_CELLS // max(1, rows * width))
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for start in range(0, len(states), chunk):
            block = states[start : start + chunk]
            grown = np.where(chosen, step[block, 1][:, None, :], step[block, 0][:, None, :]).reshape(
                -1, width
            )
            parent = np.repeat(np.arange(start, start + len(block)), rows)
            found.append(_distinct(grown, tags[parent], parent, np.tile(np.arange(rows), len(block))))
            if sum(len(f[0]) for f in found) > self.trace_limit:
                raise ValueError(
                    f"trace_limit: more than {self.trace_limit} residual states for {self!r} on "
                    f"{width} points; use fewer points or a smaller class"
                )
        merged = [np.concatenate(parts) for parts in zip(*found, strict=True)]
        return _distinct(*merged)

    def restricted_trace(self, prefix: Components, points: Any) -> Trace:
        """Π_{C(prefix)}(P) (Definition 3.7) with representatives prefix + (c_{i+1}, …, c_k)."""
        P = self.distinct(points)
        prefix = tuple(prefix)
        states = self.state(prefix, P)[None, :]
        tags = np.zeros(1, dtype=np.int64)
        suffixes: list[Components] = [()]
        for level in range(len(prefix), self.k):
            trace = self.component_trace(level, P)
            states, tags, parent, labeling = self.extend(states, tags, level, trace)
            suffixes = [
                suffixes[p] + (trace.representatives[t],)
                for p, t in zip(parent.tolist(), labeling.tolist(), strict=True)
            ]
        return materialised_trace(P, self.residuals.value[states], [prefix + s for s in suffixes])

    def trace(self, points: Any) -> Trace:
        return self.restricted_trace((), points)

    def restrict(self, prefix: Sequence[Any]) -> ConceptClass:
        prefix = tuple(prefix)
        if not self.prefix_valid(prefix):
            raise ValueError(f"prefix {prefix} is not a valid prefix of {self!r}")
        return ComposedRestriction(self, prefix) if prefix else self

    # -- the completion score of equation (3) ------------------------------------------------

    def completion_disagreements(
        self, prefix: Components, candidates: np.ndarray, X: Any, y: Any
    ) -> np.ndarray:
        """q_i(S, h) = min_{g ∈ C(h≤i−1, h)} Σ_j 1[g(x_j) ≠ y_j] (equation (3)) for every candidate
        h given by its labeling of P = the distinct points of X (rows of ``candidates``, over P in
        :meth:`distinct` order). Exact: the minimum over the completions' traces on P."""
        points = self.points(X)
        labels = np.asarray(y, dtype=np.int64).reshape(-1)
        P, position = np.unique(points, axis=0, return_inverse=True)
        position = position.reshape(-1)
        counts = np.stack([np.bincount(position[labels == b], minlength=len(P)) for b in (0, 1)])  # n_b(x)
        level = len(prefix) + 1
        base = self.state(tuple(prefix), P)
        states = self.residuals.step[level - 1][base[None, :], np.asarray(candidates, dtype=np.int64)]
        if (
            level < self.k
            and self.dimension == 1
            and all(type(H) in LINE_PHASES for H in self.components[level:])
        ):
            return len(labels) - self._best_along_line(states, counts, level)
        tags = np.arange(len(states), dtype=np.int64)
        for j in range(level, self.k - 1):
            states, tags, _, _ = self.extend(states, tags, j, self.component_trace(j, P))
        if level == self.k:
            agreement = counts[self.residuals.value[states], np.arange(len(P))].sum(axis=1)
        else:
            agreement = self._best_last(states, counts, self.component_trace(self.k - 1, P))
        best = np.full(len(candidates), -1, dtype=np.int64)
        np.maximum.at(best, tags, agreement)
        return len(labels) - best

    def _best_along_line(self, states: np.ndarray, counts: np.ndarray, level: int) -> np.ndarray:
        """For residual ids at ``level`` (one row per candidate, over the sorted points), the best
        agreement Σ_x n_{g(x)}(x) over the completions by 1-D components H_{level+1} … H_k: a
        max-plus pass along the line over their joint phases (:data:`LINE_PHASES`), all
        candidates at once — the same maximum as enumerating the completions' traces."""
        bits = [LINE_PHASES[type(H)] for H in self.components[level:]]
        shape = tuple(len(b) for b in bits)
        out = np.zeros((self.residuals.step[level].shape[0], int(np.prod(shape))), dtype=np.int64)
        for t, phases in enumerate(itertools.product(*(range(n) for n in shape))):
            ids = np.arange(len(out))
            for j, phase in enumerate(phases):
                ids = self.residuals.step[level + j][ids, bits[j][phase]]
            out[:, t] = self.residuals.value[ids]
        best = np.zeros((len(states), *shape), dtype=np.int64)
        for x in range(states.shape[1]):
            for axis in range(1, best.ndim):  # any joint phase ≥ the previous one, componentwise
                np.maximum.accumulate(best, axis=axis, out=best)
            best += counts[out[states[:, x]], x].reshape(best.shape)
        return best.reshape(len(states), -1).max(axis=1)

    def _best_last(self, states: np.ndarray, counts: np.ndarray, trace: ComponentTrace) -> np.ndarray:
        """For states at level k − 1: max over the last component's labelings l of the agreement
        Σ_x n_{G(…, l(x))}(x) = Σ_x A_x + Σ_x l(x)(B_x − A_x), by matrix products in batches."""
        step, columns = self.residuals.step[self.k - 1], np.arange(states.shape[1])
        labelings = trace.labelings.T.astype(np.float64)
        best = np.empty(len(states), dtype=np.int64)
        chunk = max(1, _CHUNK_CELLS // max(1, labelings.shape[1] + states.shape[1]))
        for start in range(0, len(states), chunk):
            block = states[start : start + chunk]
            A = counts[self.residuals.value[step[block, 0]], columns]
            B = counts[self.residuals.value[step[block, 1]], columns]
            gains = (B - A).astype(np.float64) @ labelings  # exact: integers < 2^53
            best[start : start + chunk] = A.sum(axis=1) + np.rint(gains.max(axis=1)).astype(np.int64)
        return best

    # -- Corollary 8.17, checked by enumeration ------------------------------------------------

    def verify_structural_conditions(self, prefix: Components, points: Any) -> dict[str, bool]:
        """The three conditions of Corollary 8.17 for ``prefix`` on a finite point set P, by
        enumeration of H_i (small classes only): (1) every h ∈ H_i extends the prefix and
        C(prefix, h) ≠ ∅; (2) Π_{C(prefix)}(P) = ∪_h Π_{C(prefix, h)}(P); (3) for all h, h′ and
        g ∈ C(prefix, h) some g′ ∈ C(prefix, h′) has 1[g′ ≠ g] ≤ 1[h′ ≠ h] on P."""
        P = self.distinct(points)
        prefix, i = tuple(prefix), len(tuple(prefix))
        H = self.components[i]
        space = list(self.spaces[i])
        by_h = {h: {row.tobytes() for row in self._rows((*prefix, h), P)} for h in space}
        restricted = {row.tobytes() for row in self._rows(prefix, P)}
        valid = all(self.prefix_valid((*prefix, h)) and by_h[h] for h in space)
        cover = restricted == set().union(*by_h.values())
        replacement = True
        for h, h2 in itertools.product(space, repeat=2):
            differ = H.evaluate(h, self.project(P, i)) != H.evaluate(h2, self.project(P, i))
            targets = [np.frombuffer(row, dtype=np.int8) for row in by_h[h2]]
            for row in by_h[h]:
                g = np.frombuffer(row, dtype=np.int8)
                if not any(np.all((g2 != g) <= differ) for g2 in targets):
                    replacement = False
        return {"valid_extendable": valid, "cover": cover, "local_replacement": replacement}

    def _rows(self, prefix: Components, P: np.ndarray) -> np.ndarray:
        trace = self.restricted_trace(prefix, P)
        return np.array([trace.labeling(j) for j in range(trace.size)], dtype=np.int8).reshape(
            trace.size, len(P)
        )


class ComposedRestriction(Restricted):
    """C(h≤i) of a :class:`BooleanComposition`, with the residual-automaton trace."""

    parent: BooleanComposition

    def trace(self, points: Any) -> Trace:
        return self.parent.restricted_trace(self.prefix, points)


def _distinct(
    states: np.ndarray,
    tags: np.ndarray,
    parent: np.ndarray,
    labeling: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows with distinct (state, tag), each at its first occurrence, in first-occurrence order."""
    key = np.ascontiguousarray(
        np.concatenate(
            (
                states.view(np.uint8).reshape(len(states), -1),
                tags.astype(np.int64).view(np.uint8).reshape(len(tags), -1),
            ),
            axis=1,
        )
    )
    _, first = np.unique(key.view(np.dtype((np.void, key.shape[1]))).reshape(-1), return_index=True)
    first.sort()
    return states[first], tags[first], parent[first], labeling[first]
