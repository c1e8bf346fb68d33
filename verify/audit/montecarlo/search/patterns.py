"""The ``pattern`` family: atom-pattern scores of sparse-vector outputs.

``pattern`` — threshold events of an atom-pattern score for vector outputs with atoms (the
markers of sparse-vector outputs: ⊥, "stopped"): per block of coordinates a cell table of the
run's pattern of markers and the bin of its released numbers
(:mod:`~dpledger.verify.audit.montecarlo.atom_patterns`), cross-fitted on split 1
(:func:`pattern_candidates`); ``pattern (blocks)`` when the output falls into blocks with
different alphabets (a parallel composition), their tables weighted on split 1. Its thresholds
are chosen and scored on held-out scores of all of split 1 (each half scored by the table fitted
on the other), among events of at least ``PATTERN_EVENT_RUNS`` runs and ``PATTERN_EVENT_SHARE``
of them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from dpledger.verify.audit.montecarlo.atom_patterns import (
    ATOM_ROWS,
    PatternLayout,
    cross_fitted,
    pattern_layout,
)
from dpledger.verify.audit.montecarlo.events import IntervalEvent
from dpledger.verify.audit.montecarlo.search.learned import Fits
from dpledger.verify.audit.montecarlo.search.logistic import logistic
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
    cut_points,
)

PATTERN_EVENT_RUNS = 256
PATTERN_EVENT_SHARE = 1 / 2048


def pattern_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: Fits | None = None
) -> SearchResult:
    """Per direction the best threshold events of the atom-pattern score (:mod:`atom_patterns`) of
    vector outputs with atoms (sparse-vector markers): one cell table per block of coordinates.
    Cross-fitted (:func:`atom_patterns.cross_fitted`): every split-1 run is scored by the table fitted
    on the half it is not in, and the thresholds are chosen and ranked on these held-out scores of
    all split-1 runs, as the count family's are on its model — held-out scores overfit nothing,
    and choosing on half the runs lost a third of the bound on SVT34Parallel. With
    several blocks, their weights are a logistic regression of the input on the held-out block
    scores (a block's noisy table is discounted: SVT34Parallel's numeric block, weak and with
    hundreds of cells, halved the bound its binary block gives alone). The event thresholds the
    table fitted on all of split 1 (its cells' log-ratios, in the same units, from twice the
    runs), with those weights. ``fits``: the layout of an earlier stage (:func:`kept_layout`)."""
    layout = kept_layout(a, b, pair_index, fits)
    if layout is None:
        return SearchResult([], 0)
    whole, blocks_a, blocks_b = cross_fitted(layout, a, b)
    family, weights = "pattern", np.ones(1)
    if len(layout.blocks) > 1:
        family = "pattern (blocks)"
        design = np.concatenate([blocks_a, blocks_b])
        column_scale = np.where(design.std(axis=0) > 0, design.std(axis=0), 1.0)
        weights = logistic(design / column_scale, len(blocks_a), ridge=1e-3, iterations=30) / column_scale
        whole = replace(whole, weights=weights)
    held_out = [np.sort(blocks_a @ weights), np.sort(blocks_b @ weights)]
    cuts = cut_points(*held_out)
    below = [np.searchsorted(values, cuts, side="right") for values in held_out]
    above = [len(values) - count for values, count in zip(held_out, below, strict=True)]
    runs = (len(a), len(b))
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        for tails, upper in ((above, False), (below, True)):
            counts = (tails[p], runs[p], tails[q], runs[q])
            # Chosen and ranked on the same runs: a tail of a few hundred runs among hundreds of
            # thresholds wins on noise, so an event must hold PATTERN_EVENT_RUNS runs and
            # PATTERN_EVENT_SHARE of them (at 10⁷ runs per input, the best split-1 tail of SVT34Parallel
            # held 465 split-2 runs of 15 million and certified 0.05, against 0.27 on split 1).
            large = tails[0] + tails[1] >= max(PATTERN_EVENT_RUNS, PATTERN_EVENT_SHARE * sum(runs))
            for index, score, suffix in best_cells(counts, counts, objective, forward, large):
                lower, upper_end = (-math.inf, cuts[index]) if upper else (cuts[index], math.inf)
                out.append(
                    Candidate(
                        pair_index,
                        forward,
                        IntervalEvent(float(lower), float(upper_end), whole),
                        family + suffix,
                        score,
                    )
                )
    return SearchResult(out, 4 * len(cuts))


def kept_layout(a: np.ndarray, b: np.ndarray, pair_index: int, fits: Fits | None) -> PatternLayout | None:
    """:func:`atom_patterns.pattern_layout` of the pair's split 1, kept in ``fits`` across stages: it
    reads the first :data:`~dpledger.verify.audit.montecarlo.atom_patterns.ATOM_ROWS` runs of each
    input, which no later stage changes."""
    rows = (min(len(a), ATOM_ROWS), min(len(b), ATOM_ROWS))
    return (fits or Fits()).get(pair_index, "pattern layout", rows, lambda: pattern_layout(a, b))


PATTERN = Family(
    "pattern",
    lambda a, b, kind: kind == "vector",
    lambda a, b, pair_index, objective, fits: [pattern_candidates(a, b, pair_index, objective, fits)],
)
