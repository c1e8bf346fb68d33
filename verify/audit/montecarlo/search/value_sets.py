"""The ``values`` family: sets of exact values.

``values`` — sets of exact values of discrete outputs (and of float outputs or rows taking at
most ``FEW_DISTINCT`` values): values ranked by their log-likelihood ratio between the inputs,
estimated on all of split 1 and shrunk by empirical Bayes (:func:`shrunk_log_ratios`), prefixes of
that ranking (size 1: a single exact value) chosen on their split-1 counts and scored on the
counts the shrunk ratios model (:func:`value_set_candidates`).
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
from dpledger.verify.audit.montecarlo.statistics import epsilon_lower_search

FEW_DISTINCT = 256


def few_distinct(a: np.ndarray, b: np.ndarray) -> bool:
    """Float outputs (or rows) taking few values: exact-value events apply to them too."""
    return len(np.unique(np.concatenate([row_keys(a[:10_000]), row_keys(b[:10_000])]))) <= FEW_DISTINCT


def value_set_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
    """Per direction the best prefix of the values ranked by their log-likelihood ratio between
    the inputs on split 1, shrunk by empirical Bayes (:func:`shrunk_log_ratios`): its size chosen
    on the split-1 counts of the prefixes (``Objective.project``), its score the bound of the
    counts the shrunk ratios model — each value's pooled split-1 count shared between the inputs
    in the proportion of its shrunk ratio (not shrunk again: its caution lies in the fit, as the
    ``count`` family's model's does).

    The ranking and the choice read all of split 1: a ranking of one half is too noisy for values
    of a few thousand hits (a sparse vector's 11 outputs at 10⁶ runs: a value of true log ratio
    0.04 ranked above one of 0.09 on one seed in three), and the shrinkage keeps values of few
    hits from leading it on their noise. The score must not be the raw counts of the values that
    came first on those runs, which count their luck as well: where values are many and rare
    (RAPPOR's 2²⁰ reports), a set of values each seen once on one input scored 9.3 and certified
    nothing; sparse vectors without a cutoff (2¹⁰ outputs) scored 0.25 for 0.12 on split 2, ahead
    of a learned event certifying 0.17. Shrunk, rare values' ratios are about their mean, and a
    set of them scores nothing."""
    keys, inverse = np.unique(np.concatenate([row_keys(a), row_keys(b)]), return_inverse=True)
    distinct = len(keys)
    if distinct < 2:
        return SearchResult([], 0)
    inverse = inverse.reshape(-1)
    counts = (
        np.bincount(inverse[: len(a)], minlength=distinct),
        np.bincount(inverse[len(a) :], minlength=distinct),
    )
    runs = (len(a), len(b))
    shrunk = shrunk_log_ratios(counts[0], runs[0], counts[1], runs[1])
    # Each value's pooled frequency shared between the inputs in the ratio e^shrunk, as counts.
    pooled = (counts[0] + counts[1]) / (runs[0] + runs[1])
    expected = (2 * pooled / (1 + np.exp(-shrunk)) * runs[0], 2 * pooled / (1 + np.exp(shrunk)) * runs[1])
    sizes = np.unique(
        np.concatenate([np.arange(1, min(distinct, 33)), 2 ** np.arange(5, int(math.log2(distinct)) + 1)])
    )
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        order = np.argsort(-shrunk if forward else shrunk, kind="stable")
        observed, modelled = (
            (np.cumsum(table[p][order])[sizes - 1], runs[p], np.cumsum(table[q][order])[sizes - 1], runs[q])
            for table in (counts, expected)
        )
        k_p, n_p, k_q, n_q = objective.project(modelled, forward, shrink=False)
        scores = epsilon_lower_search(k_p, n_p, k_q, n_q, objective.delta, objective.z)
        for index, _, suffix in best_cells(observed, observed, objective, forward):
            values = keys[order[: sizes[index]]]
            event = ValueSetEvent(values, tuple(key_to_json(key, a) for key in values))
            out.append(Candidate(pair_index, forward, event, "values" + suffix, float(scores[index])))
    return SearchResult(out, 2 * len(sizes))


def shrunk_log_ratios(k_a: np.ndarray, n_a: int, k_b: np.ndarray, n_b: int) -> np.ndarray:
    """Empirical-Bayes estimates of the log-likelihood ratios of values seen ``k_a`` times in
    ``n_a`` runs of a and ``k_b`` times in ``n_b`` runs of b.

    Each raw ratio ``r = ln((k_a + ½)/n_a) − ln((k_b + ½)/n_b)`` has variance about
    ``s² = 1/(k_a + ½) + 1/(k_b + ½)``; the true ratios are taken to spread around their mean μ
    with a variance ``τ²``, both estimated as a random-effects meta-analysis does
    (DerSimonian & Laird 1986, "Meta-analysis in clinical trials", Controlled Clinical Trials 7:
    weights 1/s², τ² from the excess of Cochran's Q over its expectation, at least 0), and each
    ratio is shrunk to its posterior mean ``μ + (r − μ) τ²/(τ² + s²)``: a value seen a few times
    keeps little of its ratio, one seen thousands of times most of it, and a value's luck moves
    τ² only as much as its precision allows."""
    k_a, k_b = np.asarray(k_a, dtype=float) + 0.5, np.asarray(k_b, dtype=float) + 0.5
    raw = np.log(k_a / n_a) - np.log(k_b / n_b)
    noise = 1 / k_a + 1 / k_b
    weights = 1 / noise
    total = weights.sum()
    mean = float(weights @ raw / total)
    excess = float(weights @ (raw - mean) ** 2) - (len(raw) - 1)
    spread = max(excess / (total - float(weights @ weights) / total), 0.0) if len(raw) > 1 else 0.0
    return mean + (raw - mean) * (spread / (spread + noise))


VALUES = Family(
    "values",
    lambda a, b, kind: kind == "discrete" or few_distinct(a, b),
    lambda a, b, pair_index, objective, fits: [value_set_candidates(a, b, pair_index, objective)],
)
