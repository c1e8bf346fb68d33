"""Event search on the first split of the samples.

For one neighbour pair the search returns, per event family and per direction, the event
whose split-1 counts give the largest ε lower bound (Wilson-score approximation,
:func:`dpledger.verify.audit.montecarlo.statistics.epsilon_lower_search`). Families:

* ``interval`` — thresholds and intervals of scalar (or integer) outputs between cut points:
  63 central quantiles plus tail order statistics of ranks 1, 2, 4, 8, … from both ends of the
  pooled sample (:func:`cut_points`), so that an event of probability ~1e-4 (or down to a handful of runs) is
  available to catch rare-output violations (DP-Sniper's and StatDP's blind spot);
* ``lattice-k`` — the same on the outputs whose float significand ends in k zero bits
  (floating-point attacks, Mironov 2012); skipped when every output is on the lattice, where it
  would repeat ``interval``. For vector outputs, per coordinate (``lattice-k[j]``: intervals of
  coordinate j among the runs where it is on the lattice; at most ``LATTICE_COORDINATES``
  coordinates, those whose lattice frequency differs most between the inputs on split 1) and
  jointly (``lattice-k-count``: intervals of the number of coordinates on the lattice);
* ``values`` — sets of exact values of discrete outputs (and of float outputs or rows taking at
  most ``FEW_DISTINCT`` values): values ranked by their empirical
  likelihood ratio, prefixes of that ranking (size 1: a single exact value);
* ``distinguisher`` — intervals of a logistic-regression score for vector outputs.

Only split 1 is looked at here, so nothing in this module needs a multiplicity correction — however
many families, coordinates and events it compares; the audit corrects for the candidates it then
estimates on split 2. The ``lattice`` families are the float-artefact ones
(:attr:`~dpledger.verify.audit.montecarlo.events.Event.float_artefact`); the audit keeps and
corrects them separately from the real-number families.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpledger.verify.audit.montecarlo.events import (
    Event,
    Identity,
    IntervalEvent,
    LatticeCount,
    LinearScore,
    OnLattice,
    Statistic,
    ValueSetEvent,
    features,
    key_to_json,
    on_lattice,
    row_keys,
)
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.statistics import epsilon_lower_search

CENTRAL_QUANTILES = 64
LATTICE_BITS = (4, 8, 12)
LATTICE_COORDINATES = 16
FEW_DISTINCT = 256
DISTINGUISHER_ROWS = 100_000
TAIL_EXACT = 256
SUBSAMPLE = 1 << 16


@dataclass(frozen=True, eq=False)
class Candidate:
    """An event chosen on split 1, for a pair and direction.

    ``forward`` means the tested inequality is P[M(a) ∈ E] ≤ e^ε P[M(b) ∈ E] + δ; otherwise a
    and b swap roles. ``score`` is the split-1 (Wilson) ε bound that ranked it.
    """

    pair_index: int
    forward: bool
    event: Event
    family: str
    score: float


@dataclass(frozen=True)
class SearchResult:
    """The best candidates of a search and how many (event, direction) pairs it compared."""

    candidates: list[Candidate]
    examined: int


def search_pair(a: np.ndarray, b: np.ndarray, pair_index: int, delta: float, z: float) -> SearchResult:
    """The best event of every applicable family, in both directions, on split-1 outputs a, b."""
    kind = output_kind(a)
    results: list[SearchResult] = []
    scalar = kind == "scalar" or (kind == "discrete" and a.ndim == 1 and a.dtype.kind in "biu")
    if scalar:
        results.append(_interval_candidates(Identity(), a, b, pair_index, delta, z, "interval"))
    if kind == "scalar":
        for bits in LATTICE_BITS:
            statistic = OnLattice(bits)
            if not statistic.keeps_all(a) or not statistic.keeps_all(b):
                results.append(_interval_candidates(statistic, a, b, pair_index, delta, z, f"lattice-{bits}"))
    if kind == "discrete" or _few_distinct(a, b):
        results.append(_value_set_candidates(a, b, pair_index, delta, z))
    if kind == "vector":
        results.append(
            _interval_candidates(fit_distinguisher(a, b), a, b, pair_index, delta, z, "distinguisher")
        )
        results.extend(_vector_lattice_candidates(a, b, pair_index, delta, z))
    return SearchResult([c for r in results for c in r.candidates], sum(r.examined for r in results))


def _vector_lattice_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, delta: float, z: float
) -> list[SearchResult]:
    """Lattice events of vector outputs: per coordinate and the joint count, for every lattice depth."""
    rows_a = np.asarray(a, dtype=np.float64).reshape(len(a), -1)
    rows_b = np.asarray(b, dtype=np.float64).reshape(len(b), -1)
    results = []
    for bits in LATTICE_BITS:
        share_a, share_b = on_lattice(rows_a, bits).mean(axis=0), on_lattice(rows_b, bits).mean(axis=0)
        if np.all(share_a == 1.0) and np.all(share_b == 1.0):
            continue  # every coordinate on the lattice: the events would not read low bits
        chosen = np.argsort(-np.abs(share_a - share_b), kind="stable")[:LATTICE_COORDINATES]
        for j in sorted(chosen.tolist()):
            family = f"lattice-{bits}[{j}]"
            results.append(_interval_candidates(OnLattice(bits, j), rows_a, rows_b, pair_index, delta, z, family))
        count = LatticeCount(bits)
        results.append(_interval_candidates(count, rows_a, rows_b, pair_index, delta, z, f"lattice-{bits}-count"))
    return results


def cut_points(sorted_a: np.ndarray, sorted_b: np.ndarray) -> np.ndarray:
    """Cut points for interval events from two sorted samples: sorted, distinct.

    The ``TAIL_EXACT`` smallest and largest pooled values exactly, at ranks 1, 2, 4, … among
    them and among their distinct values (so that a block of tied outputs — one rare exact value
    — is separated from its neighbours); central quantiles, and tail ranks beyond
    ``TAIL_EXACT``, read from a strided subsample of at most ``SUBSAMPLE`` values. Cut points
    need not be exact quantiles, only chosen from split 1.
    """
    n = len(sorted_a) + len(sorted_b)
    exact = min(TAIL_EXACT, n)
    low = np.sort(np.concatenate([sorted_a[:exact], sorted_b[:exact]]))[:exact]
    high = np.sort(np.concatenate([sorted_a[-exact:], sorted_b[-exact:]]))[::-1][:exact]
    ranks = 2 ** np.arange(0, int(math.log2(exact)) + 1) - 1
    tails = [low[ranks], high[ranks]]
    for distinct in (np.unique(low), np.unique(high)[::-1]):
        tails.append(distinct[ranks[ranks < len(distinct)]])
    stride = max(1, n // SUBSAMPLE)
    subsample = np.sort(np.concatenate([sorted_a[::stride], sorted_b[::stride]]))
    m = len(subsample)
    levels = np.concatenate([np.arange(1, CENTRAL_QUANTILES) / CENTRAL_QUANTILES, 2.0 ** -np.arange(1, 40)])
    levels = levels[levels * n >= exact]
    inner = [subsample[(levels * (m - 1)).astype(int)], subsample[((1 - levels) * (m - 1)).astype(int)]]
    return np.unique(np.concatenate(tails + inner))


def _interval_candidates(
    statistic: Statistic, a: np.ndarray, b: np.ndarray, pair_index: int, delta: float, z: float, family: str
) -> SearchResult:
    sa, sb = np.sort(statistic.defined(a)), np.sort(statistic.defined(b))
    if len(sa) + len(sb) < 2:
        return SearchResult([], 0)
    cuts = cut_points(sa, sb)
    # cum[j] = number of values in the first j bins, bin j being cuts[j-1] < s ≤ cuts[j].
    cum_a = np.concatenate([[0], np.searchsorted(sa, cuts, side="right"), [len(sa)]])
    cum_b = np.concatenate([[0], np.searchsorted(sb, cuts, side="right"), [len(sb)]])
    bins = len(cuts) + 1
    # Interval of bins [i, j): counts cum[j] − cum[i], for 0 ≤ i < j ≤ bins, not the whole line.
    count_a = cum_a[None, :] - cum_a[:, None]
    count_b = cum_b[None, :] - cum_b[:, None]
    i, j = np.indices(count_a.shape)
    valid = (j > i) & ~((i == 0) & (j == bins))
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    out = []
    for forward in (True, False):
        k_p, n_p, k_q, n_q = (
            (count_a, len(a), count_b, len(b)) if forward else (count_b, len(b), count_a, len(a))
        )
        objective = np.where(valid, epsilon_lower_search(k_p, n_p, k_q, n_q, delta, z), -np.inf)
        best = np.unravel_index(int(np.argmax(objective)), objective.shape)
        if objective[best] > -np.inf:
            event = IntervalEvent(float(edges[best[0]]), float(edges[best[1]]), statistic)
            out.append(Candidate(pair_index, forward, event, family, float(objective[best])))
    return SearchResult(out, 2 * int(valid.sum()))


def _few_distinct(a: np.ndarray, b: np.ndarray) -> bool:
    """Float outputs (or rows) taking few values: exact-value events apply to them too."""
    return len(np.unique(np.concatenate([row_keys(a[:10_000]), row_keys(b[:10_000])]))) <= FEW_DISTINCT


def _value_set_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, delta: float, z: float
) -> SearchResult:
    keys, inverse = np.unique(np.concatenate([row_keys(a), row_keys(b)]), return_inverse=True)
    distinct = len(keys)
    if distinct < 2:
        return SearchResult([], 0)
    inverse = inverse.reshape(-1)
    count_a = np.bincount(inverse[: len(a)], minlength=distinct)
    count_b = np.bincount(inverse[len(a) :], minlength=distinct)
    sizes = np.unique(
        np.concatenate([np.arange(1, min(distinct, 33)), 2 ** np.arange(5, int(math.log2(distinct)) + 1)])
    )
    sizes = sizes[sizes < distinct]
    out = []
    for forward in (True, False):
        k_p, n_p, k_q, n_q = (
            (count_a, len(a), count_b, len(b)) if forward else (count_b, len(b), count_a, len(a))
        )
        ratio = np.log(k_p + 0.5) - math.log(n_p) - np.log(k_q + 0.5) + math.log(n_q)
        order = np.argsort(-ratio, kind="stable")
        objective = epsilon_lower_search(
            np.cumsum(k_p[order])[sizes - 1], n_p, np.cumsum(k_q[order])[sizes - 1], n_q, delta, z
        )
        best = int(np.argmax(objective))
        if objective[best] > -np.inf:
            chosen = keys[order[: sizes[best]]]
            event = ValueSetEvent(chosen, tuple(key_to_json(key, a) for key in chosen))
            out.append(Candidate(pair_index, forward, event, "values", float(objective[best])))
    return SearchResult(out, 2 * len(sizes))


def fit_distinguisher(a: np.ndarray, b: np.ndarray, ridge: float = 1e-3, iterations: int = 30) -> LinearScore:
    """Logistic regression of "came from a" on features (z, z²) by Newton's method (IRLS).

    Fitted on at most ``DISTINGUISHER_ROWS`` split-1 runs per input; a small ridge keeps the
    Newton steps defined when the classes separate.
    """
    rows_a = np.asarray(a[:DISTINGUISHER_ROWS], dtype=float).reshape(min(len(a), DISTINGUISHER_ROWS), -1)
    rows_b = np.asarray(b[:DISTINGUISHER_ROWS], dtype=float).reshape(min(len(b), DISTINGUISHER_ROWS), -1)
    pooled = np.concatenate([rows_a, rows_b])
    centre = pooled.mean(axis=0)
    scale = pooled.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.concatenate([features(pooled, centre, scale), np.ones((len(pooled), 1))], axis=1)
    target = np.concatenate([np.ones(len(rows_a)), np.zeros(len(rows_b))])
    weights = np.zeros(design.shape[1])
    penalty = ridge * len(pooled) * np.eye(design.shape[1])
    penalty[-1, -1] = 1e-9
    for _ in range(iterations):
        fitted = 1.0 / (1.0 + np.exp(-np.clip(design @ weights, -30, 30)))
        gradient = design.T @ (fitted - target) + penalty @ weights
        hessian = (design * (fitted * (1 - fitted))[:, None]).T @ design + penalty
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return LinearScore(centre, scale, weights[:-1].copy())
