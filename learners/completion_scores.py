"""Completion scores over the next component, and traces of restricted classes.

For a prefix y_{≤i−1} and a labeled sample S, the *completion score* of a candidate next value
v is the largest agreement Σ_j 1[g(x_j) = y_j] of any completion g ∈ C(y_{≤i−1}, v) with S.
It has sensitivity one under substitution of a record (each completion's agreement moves by at
most one), which is what the generic component oracle's exponential mechanism needs.

On the integer grids of thresholds and intervals the next value ranges over [lo, N] and the
score is constant between consecutive sample points, so the scores are returned as *runs*
(breakpoints, scores) — O(|S|) runs however large N is — for
:func:`dpledger.learners.exponential_mechanism.exponential_mechanism_ordered`; rectangles' sides
likewise, by 2-D prefix sums (:func:`_rectangle_runs`). Other classes fall back to evaluating
every completion of every next value (small classes only; the limit is stated).

:func:`restricted_trace` gives Π_{C(y≤i)}(P) geometrically for intervals and thresholds (O(|P|))
and rectangles (:meth:`Rectangles.box_trace`), through :meth:`ConceptClass.restrict` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpledger.learners.concept_classes import (
    Components,
    ConceptClass,
    Intervals,
    Rectangles,
    Restricted,
    Thresholds,
    Trace,
    materialised_trace,
)

ENUMERATION_LIMIT = 2_000_000
"""Largest (next values × completions) the generic fallback evaluates before refusing."""


@dataclass(frozen=True)
class Runs:
    """Scores on the integer runs [breakpoints[r], breakpoints[r+1]) of the next component."""

    breakpoints: list[int]
    scores: list[int]


def _sample_summary(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Distinct sorted points, gain per point (#label 1 − #label 0), and #label 0."""
    points, position = np.unique(X.reshape(-1), return_inverse=True)
    gain = np.bincount(position.reshape(-1), weights=np.where(y == 1, 1, -1), minlength=len(points)).astype(
        np.int64
    )
    return points, gain, int(np.sum(y == 0))


def _interval_runs(domain_size: int, prefix: Components, X: np.ndarray, y: np.ndarray) -> Runs:
    points, gain, zeros = _sample_summary(X, y)
    cumulative = np.concatenate(([0], np.cumsum(gain)))  # cumulative[t] = Σ_{s<t} gain[s]
    if not prefix:
        # score(a) = zeros + max_{t ≥ i} cumulative[t] − cumulative[i], i = #points < a
        suffix_max = np.maximum.accumulate(cumulative[::-1])[::-1]
        scores = zeros + suffix_max - cumulative
        breakpoints = [0, *(points + 1).tolist(), domain_size + 1]
        return _merged(breakpoints, scores.tolist())
    start = int(np.searchsorted(points, prefix[0], side="left"))
    # score(b) = zeros + cumulative[#points < b] − cumulative[start], for b ≥ a
    tail = points[start:]
    scores = zeros + cumulative[start:] - cumulative[start]
    breakpoints = [prefix[0], *(tail + 1).tolist(), domain_size + 1]
    return _merged(breakpoints, scores.tolist())


def _threshold_runs(domain_size: int, X: np.ndarray, y: np.ndarray) -> Runs:
    points, position = np.unique(X.reshape(-1), return_inverse=True)
    position = position.reshape(-1)
    zeros = np.bincount(position[y == 0], minlength=len(points))
    ones = np.bincount(position[y == 1], minlength=len(points))
    # score(t) = #(y=0, x<t) + #(y=1, x≥t), constant while #points < t is constant
    scores = np.concatenate(([0], np.cumsum(zeros))) + np.concatenate((np.cumsum(ones[::-1])[::-1], [0]))
    return _merged([0, *(points + 1).tolist(), domain_size + 1], scores.tolist())


def _merged(breakpoints: list[int], scores: list[int]) -> Runs:
    """Drop empty runs (a breakpoint equal to the next) and keep breakpoints strictly increasing."""
    kept_b, kept_s = [breakpoints[0]], []
    for end, score in zip(breakpoints[1:], scores, strict=True):
        if end > kept_b[-1]:
            kept_b.append(end)
            kept_s.append(int(score))
    return Runs(kept_b, kept_s)


def _rectangle_runs(domain_size: int, prefix: Components, X: np.ndarray, y: np.ndarray) -> Runs:
    """Completion scores of the next side of a rectangle (x_lo, x_hi, y_lo, y_hi in that order).

    A side's value v acts through its cut c = #{sample coordinates < v} on that axis, constant
    on the runs [u_{c−1} + 1, u_c]; in cut space a box holds the points with column in
    [c_lo, c_hi) and row in [d_lo, d_hi). The score of a box is #(y = 0) plus its gain
    Σ(#(y = 1) − #(y = 0)) (2-D prefix sums), an empty box scoring #(y = 0) (always a completion);
    the best completion maximises over the free sides: for a column band, the best row range is a
    maximum-gain subarray (prefix sums minus their running minimum)."""
    X = np.asarray(X, dtype=np.int64).reshape(-1, 2)
    xs, ys = np.unique(X[:, 0]), np.unique(X[:, 1])
    gain = np.zeros((len(xs), len(ys)), dtype=np.int64)
    np.add.at(gain, (np.searchsorted(xs, X[:, 0]), np.searchsorted(ys, X[:, 1])), np.where(y == 1, 1, -1))
    zeros = int(np.sum(y == 0))
    total = np.zeros((len(xs) + 1, len(ys) + 1), dtype=np.int64)
    total[1:, 1:] = gain.cumsum(axis=0).cumsum(axis=1)
    cut = [int(np.searchsorted(axis, v)) for axis, v in zip((xs, xs, ys), prefix, strict=False)]
    if len(prefix) <= 1:
        low = np.arange(len(xs) + 1) if not prefix else np.array([cut[0]])
        band = total[None, :, :] - total[low][:, None, :]  # band[c_lo, c_hi, d]: Σ over [c_lo, c_hi) × [0, d)
        best = (band - np.minimum.accumulate(band, axis=2)).max(axis=2)  # best row range per band
        best = np.where(np.arange(len(xs) + 1)[None, :] > low[:, None], best, 0)  # c_hi ≤ c_lo: empty
        values = best.max(axis=1) if not prefix else best[0]
        axis = xs
    else:
        prefix_rows = (
            total[cut[1]] - total[cut[0]] if cut[1] > cut[0] else np.zeros(len(ys) + 1, dtype=np.int64)
        )
        if len(prefix) == 2:  # y_lo = cut d: the best y_hi above it
            values = np.maximum.accumulate(prefix_rows[::-1])[::-1] - prefix_rows
        else:  # y_hi = cut d: rows [cut_lo, d)
            values = np.where(np.arange(len(ys) + 1) > cut[2], prefix_rows - prefix_rows[cut[2]], 0)
        axis = ys
    lower = prefix[-1] if len(prefix) in (1, 3) else 0
    starts = np.maximum(np.concatenate(([0], axis + 1)), lower)  # run of cut c: [u_{c-1} + 1, u_c]
    breakpoints = [int(b) for b in starts] + [domain_size + 1]
    return _merged(breakpoints, (zeros + values).tolist())


def completion_runs(
    concept_class: ConceptClass, prefix: Components, X: np.ndarray, y: np.ndarray
) -> Runs | None:
    """Completion scores of every next value as runs, for the grid classes that allow it."""
    if type(concept_class) is Intervals:
        return _interval_runs(concept_class.domain_size, prefix, X, y)
    if type(concept_class) is Thresholds:
        return _threshold_runs(concept_class.domain_size, X, y)
    if type(concept_class) is Rectangles:
        return _rectangle_runs(concept_class.domain_size, tuple(prefix), X, np.asarray(y))
    return None


def completion_scores(
    concept_class: ConceptClass,
    prefix: Components,
    X: np.ndarray,
    y: np.ndarray,
) -> tuple[list, list[int]]:
    """(next values, completion score of each) by evaluating every completion."""
    values = list(concept_class.next_values(prefix))
    scores: list[int] = []
    evaluated = 0
    for value in values:
        best = 0
        for completion in concept_class.completions((*prefix, value)):
            evaluated += 1
            if evaluated > ENUMERATION_LIMIT:
                raise ValueError(
                    f"{concept_class!r}: more than {ENUMERATION_LIMIT} completions to score after prefix {prefix}; "
                    "use a smaller domain or a class with run-based scores (thresholds, intervals)"
                )
            best = max(best, int(np.sum(concept_class.evaluate(completion, X) == y)))
        scores.append(best)
    return values, scores


def restricted_trace(concept_class: ConceptClass, prefix: Components, points: np.ndarray) -> Trace:
    """Π_{C(prefix)}(P) with one representative per labeling (Definition 3.7 for C(y≤i))."""
    if not prefix:
        return concept_class.trace(points)
    P = concept_class.distinct(points)
    if len(prefix) == concept_class.k:
        return materialised_trace(P, concept_class.evaluate(prefix, P)[None, :], [tuple(prefix)])
    if type(concept_class) is Rectangles:
        return concept_class.box_trace(P, prefix)
    if type(concept_class) is Intervals:
        a = prefix[0]
        start = int(np.searchsorted(P, a, side="left"))
        rows = [np.zeros(len(P), dtype=np.int8)]
        representatives: list[Components] = [(a, a)]
        for end in range(start, len(P)):
            row = np.zeros(len(P), dtype=np.int8)
            row[start : end + 1] = 1
            rows.append(row)
            representatives.append((a, int(P[end]) + 1))
        return materialised_trace(P, np.array(rows), representatives)
    return concept_class.restrict(prefix).trace(P)


class GeometricRestriction(Restricted):
    """C(y≤i) whose trace is :func:`restricted_trace` (geometric where the class allows)."""

    def trace(self, points: np.ndarray) -> Trace:
        return restricted_trace(self.parent, self.prefix, points)


def restrict(concept_class: ConceptClass, prefix: Components) -> ConceptClass:
    """The restricted class C(prefix) (Section 4.1) with a fast trace where available."""
    prefix = tuple(prefix)
    if not prefix:
        return concept_class
    if not concept_class.prefix_valid(prefix):
        raise ValueError(f"prefix {prefix} is not a valid prefix of {concept_class!r}")
    return GeometricRestriction(concept_class, prefix)
