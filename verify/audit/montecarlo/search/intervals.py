"""The ``interval`` family, and the interval events every family of a statistic offers.

``interval`` — thresholds and intervals of scalar (or integer) outputs between cut points: 63
central quantiles plus tail order statistics of ranks 1, 2, 4, 8, … from both ends of the pooled
sample (:func:`~dpledger.verify.audit.montecarlo.search.objective.cut_points`), so that an event
of probability ~1e-4 (or down to a handful of runs) is available to catch rare-output violations
(DP-Sniper's and StatDP's blind spot). :func:`interval_candidates` offers the same events on any
statistic — the lattice, learned-score and perceptron families call it — and, in every such
family, its best one-sided cell (``one-sided <family>``: runs of one input and at most
``one_sided.ONE_SIDED_SHARE`` of that of the other, :mod:`~dpledger.verify.audit.montecarlo.one_sided`).
"""

from __future__ import annotations

import numpy as np

from dpledger.verify.audit.montecarlo.events import Identity, IntervalEvent, Statistic
from dpledger.verify.audit.montecarlo.one_sided import MIN_HELD_OUT, one_sided_cells
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
    cut_points,
    two_halves,
)

SHORTLIST = 3


def scalar(a: np.ndarray, b: np.ndarray, kind: str) -> bool:
    """Whether the outputs are scalars, or integers (:func:`~dpledger.verify.audit.montecarlo.mechanism.output_kind`)."""
    return kind == "scalar" or (kind == "discrete" and a.ndim == 1 and a.dtype.kind in "biu")


def search(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: object
) -> list[SearchResult]:
    """The interval events of the outputs themselves."""
    return [interval_candidates(Identity(), a, b, pair_index, "interval", objective)]


def interval_candidates(
    statistic: Statistic,
    a: np.ndarray,
    b: np.ndarray,
    pair_index: int,
    family: str,
    objective: Objective,
    values: list[list[np.ndarray]] | None = None,
) -> SearchResult:
    """Per direction the best threshold event and the best two-sided interval event (the latter
    only if it scores higher), each chosen on the first half of the split-1 runs and scored on the
    second (the score ranks candidates: an event that won on noise among the thousands of
    intervals compared does not outrank it). ``values``: the statistic's defined values on the
    halves of a and of b, when already computed."""
    halves_a, halves_b = two_halves(a), two_halves(b)
    if values is None:
        values = [[statistic.defined(half) for half in halves] for halves in (halves_a, halves_b)]
    values_a, values_b = ([np.sort(half) for half in side] for side in values)
    if min(len(halves_a[0]), len(halves_b[0])) == 0 or sum(map(len, values_a + values_b)) < 2:
        return SearchResult([], 0)
    cuts = cut_points(np.sort(np.concatenate(values_a)), np.sort(np.concatenate(values_b)))
    bins = len(cuts) + 1
    i, j = np.indices((bins + 1, bins + 1))
    valid = (j > i) & ~((i == 0) & (j == bins))
    threshold = valid & ((i == 0) | (j == bins))
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    # Interval of bins [i, j) (bin j being cuts[j-1] < s ≤ cuts[j]): counts cum[j] − cum[i].
    counts = [[_interval_counts(values, cuts) for values in side] for side in (values_a, values_b)]
    runs = [[len(half) for half in side] for side in (halves_a, halves_b)]
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        chosen_on = (counts[p][0], runs[p][0], counts[q][0], runs[q][0])
        scored_on = (counts[p][1], runs[p][1], counts[q][1], runs[q][1])
        best_threshold = -np.inf
        for cells in (threshold, valid & ~threshold):
            for index, score, suffix in best_cells(
                chosen_on, scored_on, objective, forward, cells, shortlist=SHORTLIST
            ):
                if cells is not threshold and score <= best_threshold:
                    continue  # a two-sided interval is offered only when it beats the thresholds
                best_threshold = max(best_threshold, score)
                out.append(
                    Candidate(pair_index, forward, _interval(index, edges, statistic), family + suffix, score)
                )
        one_sided = valid & one_sided_cells(chosen_on[0], chosen_on[2])
        if one_sided.any():
            for index, score, suffix in best_cells(
                chosen_on, scored_on, objective, forward, one_sided, shrink_other=False, shortlist=SHORTLIST
            ):
                if scored_on[0].reshape(-1)[index] < MIN_HELD_OUT:
                    continue  # a handful of held-out hits: noise
                event = _interval(index, edges, statistic)
                out.append(Candidate(pair_index, forward, event, f"one-sided {family}{suffix}", score))
    return SearchResult(out, 4 * int(valid.sum()))


def _interval(index: int, edges: np.ndarray, statistic: Statistic) -> IntervalEvent:
    """The interval event of cell ``index`` of the ``(bins + 1)²`` table of :func:`interval_candidates`."""
    low, high = np.unravel_index(index, (len(edges), len(edges)))
    return IntervalEvent(float(edges[low]), float(edges[high]), statistic)


def _interval_counts(sorted_values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """``counts[i, j]``: values in bins i … j − 1 (negative below the diagonal, never used)."""
    cum = np.concatenate([[0], np.searchsorted(sorted_values, cuts, side="right"), [len(sorted_values)]])
    return cum[None, :] - cum[:, None]


INTERVAL = Family("interval", scalar, search)
