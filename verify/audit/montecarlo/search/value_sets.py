"""The ``values`` family: sets of exact values.

``values`` — sets of exact values of discrete outputs (and of float outputs or rows taking at
most ``FEW_DISTINCT`` values): values ranked by their empirical likelihood ratio, prefixes of
that ranking (size 1: a single exact value).
"""

from __future__ import annotations

import math

import numpy as np

from dpledger.verify.audit.montecarlo.events import ValueSetEvent, key_to_json, row_keys
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
)

FEW_DISTINCT = 256


def few_distinct(a: np.ndarray, b: np.ndarray) -> bool:
    """Float outputs (or rows) taking few values: exact-value events apply to them too."""
    return len(np.unique(np.concatenate([row_keys(a[:10_000]), row_keys(b[:10_000])]))) <= FEW_DISTINCT


def value_set_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
    """Per direction the best set of exact values: values ranked by their empirical likelihood
    ratio on the first half of the split-1 runs, the best prefix of that ranking chosen there and
    scored on the second half (rows seen once on one input would otherwise look decisive)."""
    halves = (len(a) // 2, len(b) // 2)
    keys, inverse = np.unique(np.concatenate([row_keys(a), row_keys(b)]), return_inverse=True)
    distinct = len(keys)
    if distinct < 2 or min(halves) == 0:
        return SearchResult([], 0)
    inverse = inverse.reshape(-1)
    runs_a, runs_b = inverse[: len(a)], inverse[len(a) :]
    counts = [
        [np.bincount(part, minlength=distinct) for part in (runs[:half], runs[half:])]
        for runs, half in ((runs_a, halves[0]), (runs_b, halves[1]))
    ]
    runs = [[halves[0], len(a) - halves[0]], [halves[1], len(b) - halves[1]]]
    sizes = np.unique(
        np.concatenate([np.arange(1, min(distinct, 33)), 2 ** np.arange(5, int(math.log2(distinct)) + 1)])
    )
    sizes = sizes[sizes < distinct]
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        ratio = (
            np.log(counts[p][0] + 0.5)
            - math.log(runs[p][0])
            - np.log(counts[q][0] + 0.5)
            + math.log(runs[q][0])
        )
        order = np.argsort(-ratio, kind="stable")
        chosen_on, scored_on = (
            (
                np.cumsum(counts[p][h][order])[sizes - 1],
                runs[p][h],
                np.cumsum(counts[q][h][order])[sizes - 1],
                runs[q][h],
            )
            for h in (0, 1)
        )
        for index, score, suffix in best_cells(chosen_on, scored_on, objective, forward):
            chosen = keys[order[: sizes[index]]]
            event = ValueSetEvent(chosen, tuple(key_to_json(key, a) for key in chosen))
            out.append(Candidate(pair_index, forward, event, "values" + suffix, score))
    return SearchResult(out, 2 * len(sizes))


VALUES = Family(
    "values",
    lambda a, b, kind: kind == "discrete" or few_distinct(a, b),
    lambda a, b, pair_index, objective, fits: [value_set_candidates(a, b, pair_index, objective)],
)
