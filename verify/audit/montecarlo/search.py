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
  most ``FEW_DISTINCT`` values): values ranked by their empirical likelihood ratio, prefixes of
  that ranking (size 1: a single exact value);
* ``distinguisher`` — intervals of a learned score over the whole output vector
  (:func:`fit_distinguisher`, :class:`~dpledger.verify.audit.montecarlo.events.LearnedScore`)
  for continuous, integer and binary vectors: the score is fitted on split 1 and its
  thresholds are chosen on split 1 too; ``count`` — threshold events of the number of
  coordinates above their split-1 centre, chosen on a fitted model of that count
  (:func:`tilted_count_model`). When some coordinates are correlated on split 1, all three
  again on the output's *innovations* (family suffix ``on innovations``): its coordinates
  decorrelated in their order, for prefix sums the noisy answers
  (:mod:`~dpledger.verify.audit.montecarlo.decorrelation`). Opt-in (``audit(..., network=True)``):
  ``network`` — intervals of a one-hidden-layer perceptron's score, DP-Sniper's MLP
  (:mod:`~dpledger.verify.audit.montecarlo.perceptron`), for losses that no linear score of
  per-coordinate features expresses;
* ``pattern`` — threshold events of an atom-pattern score for vector outputs with atoms (the
  markers of sparse-vector outputs: ⊥, "stopped"): per block of coordinates a cell table of the
  run's pattern of markers and the bin of its released numbers (:mod:`atom_patterns`), cross-fitted on
  split 1 (:func:`_pattern_candidates`); ``pattern (blocks)`` when the output falls into blocks
  with different alphabets (a parallel composition), their tables weighted on split 1.

* ``one-sided values``, ``one-sided off-grid``, ``one-sided <family>`` — outputs one input
  produced and the other (almost) never (:mod:`one_sided`): cross-fitted sets of repeated keys (exact
  values, cells of binned outputs) for numeric outputs, the event "off the grid" of snapped
  outputs, and, in every interval family, its best cell holding runs of one input and at most
  ``one_sided.ONE_SIDED_SHARE`` of that of the other. They are ranked with the other input's
  held-out frequency projected as it is (:meth:`Objective.project`, ``shrink_other``): a count of
  zero there is what certifies, and shrinking it by a split-1 standard error hid rare ε = ∞ leaks.

For an (ε, δ) claim with δ > 0, every family also offers the event of largest δ lower bound at
the claimed ε (``p_lo − e^ε q_hi``, Wilson bounds; family name suffixed ``δ``): the event that
best tests the claim through δ, which need not be the event of largest ε bound at δ.

How events are chosen and ranked. Split 1 is halved: each family's event is chosen on the first
half and scored on the second, so that an event that won on noise among the thousands a family
compares (intervals, value sets, an overfitted score) does not outrank the others; learned scores
are fitted on the first half and thresholded on the second. Both the choice and the score are
the Wilson bound the split-1 frequencies would give on the runs split 2 will estimate them on
(:class:`Objective`, ``target``; frequencies shrunk by one standard error first): the bound the
audit can expect, not the bound of a smaller sample, which would favour frequent events over the
rare ones that certify most. The ``count`` family is the exception: its threshold is chosen and
scored on a model fitted on all of split 1 with one parameter, shrunk by its standard error
(raw tail frequencies of a count over many weak coordinates are mostly noise on split 1).
So is the ``pattern`` family: its thresholds are chosen and scored on held-out scores of all of
split 1 (each half scored by the table fitted on the other), among events of at least
``PATTERN_EVENT_RUNS`` runs and ``PATTERN_EVENT_SHARE`` of them.

Only split 1 is looked at here, so nothing in this module needs a multiplicity correction — however
many families, coordinates and events it compares; the audit corrects for the candidates it then
estimates on split 2. The ``lattice`` families are the float-artefact ones
(:attr:`~dpledger.verify.audit.montecarlo.events.Event.float_artefact`); the audit keeps and
corrects them separately from the real-number families.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

import numpy as np

try:  # optional: scikit-learn brings it; without it BLAS keeps its default threads
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover — exercised only where threadpoolctl is absent
    threadpool_limits = None

from dpledger.verify.audit.montecarlo.atom_patterns import cross_fitted, pattern_layout
from dpledger.verify.audit.montecarlo.decorrelation import Innovations, OnInnovations, fit_innovations
from dpledger.verify.audit.montecarlo.events import (
    CountAbove,
    Event,
    Identity,
    IntervalEvent,
    LatticeCount,
    LearnedScore,
    OnLattice,
    Statistic,
    ValueSetEvent,
    evaluate,
    key_to_json,
    on_lattice,
    row_keys,
)
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.one_sided import (
    MIN_HELD_OUT,
    KeySetEvent,
    OffGrid,
    key_counts,
    key_views,
    one_sided_cells,
    one_sided_keys,
    output_grid,
)
from dpledger.verify.audit.montecarlo.perceptron import fit_network
from dpledger.verify.audit.montecarlo.statistics import (
    delta_lower_search,
    epsilon_lower_search,
    wilson_bounds,
)

CENTRAL_QUANTILES = 64
LATTICE_BITS = (4, 8, 12)
LATTICE_COORDINATES = 16
FEW_DISTINCT = 256
DISTINGUISHER_ROWS = 20_000
TIED_ROWS = 50_000
NETWORK_ROWS = 10_000
TAIL_EXACT = 256
SUBSAMPLE = 1 << 16
PATTERN_EVENT_RUNS = 256
PATTERN_EVENT_SHARE = 1 / 2048
SHORTLIST = 3


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


Fitted = TypeVar("Fitted")  # a statistic, or the innovations the statistics read


class Fits:
    """The statistics fitted on split 1, kept across the stages of an audit (refitting
    them every stage cost more than the search). A fit reads a prefix of each input's split-1 runs
    — their first ``n`` runs, which no later stage changes, as split 1 only grows at its end — so a
    fit of the same kind, pair and ``n`` is the same fit: it is taken from here, and only the
    latest fit of each (pair, kind) is kept.

    ``network``: whether the search fits the perceptron too (family ``network``,
    :mod:`~dpledger.verify.audit.montecarlo.perceptron`), opt-in: it reaches privacy losses outside
    the linear scores, but costs a fit per stage and pair (~0.4 s) where it adds nothing."""

    def __init__(self, network: bool = False) -> None:
        self.network = network
        self.latest: dict[tuple[int, str], tuple[tuple[int, int], Any]] = {}

    def get(self, pair_index: int, kind: str, rows: tuple[int, int], fit: Callable[[], Fitted]) -> Fitted:
        """The fit of ``kind`` on the first ``rows`` runs of each input of the pair (``fit()`` when new)."""
        kept = self.latest.get((pair_index, kind))
        if kept is None or kept[0] != rows:
            kept = (rows, fit())
            self.latest[(pair_index, kind)] = kept
        return kept[1]

    def holds(self, statistic: Statistic) -> bool:
        """Whether ``statistic`` is one of the fits kept (its values may be kept across stages too)."""
        return any(kept is statistic for _, kept in self.latest.values())


def search_pair(
    a: np.ndarray,
    b: np.ndarray,
    pair_index: int,
    delta: float,
    z: float,
    claimed_epsilon: float | None = None,
    target: tuple[int, int] | None = None,
    fits: Fits | None = None,
) -> SearchResult:
    """The best event of every applicable family, in both directions, on split-1 outputs a, b.

    With ``claimed_epsilon`` and ``delta > 0`` every family also offers its event of largest
    δ lower bound at the claimed ε (family suffix ``δ``), when that is not its ε-best event.
    ``target``: the runs on a and on b the candidates will be estimated on (split 2); events are
    chosen and ranked by the bound their split-1 frequencies would give on that many runs.
    ``fits``: the fitted statistics of earlier stages of the same runs (:class:`Fits`).
    """
    kind = output_kind(a)
    results: list[SearchResult] = []
    objective = Objective(delta, z, claimed_epsilon if delta > 0 else None, target)
    scalar = kind == "scalar" or (kind == "discrete" and a.ndim == 1 and a.dtype.kind in "biu")
    if scalar:
        results.append(_interval_candidates(Identity(), a, b, pair_index, "interval", objective))
    if kind == "scalar":
        for bits in LATTICE_BITS:
            statistic = OnLattice(bits)
            if not statistic.keeps_all(a) or not statistic.keeps_all(b):
                results.append(
                    _interval_candidates(statistic, a, b, pair_index, f"lattice-{bits}", objective)
                )
    if kind == "discrete" or _few_distinct(a, b):
        results.append(_value_set_candidates(a, b, pair_index, objective))
    if kind != "discrete" or a.dtype.kind in "biuf":
        results.append(_one_sided_candidates(a, b, pair_index, objective))
    if a.dtype.kind in "biuf":
        results.append(_off_grid_candidates(a, b, pair_index, objective))
    if _fits_apply(a):
        results.extend(_distinguisher_candidates(a, b, pair_index, objective, fits or Fits()))
    if kind == "vector":
        results.append(_pattern_candidates(a, b, pair_index, objective))
        results.extend(_vector_lattice_candidates(a, b, pair_index, objective))
    return SearchResult([c for r in results for c in r.candidates], sum(r.examined for r in results))


@dataclass(frozen=True)
class Objective:
    """What the search maximises: the Wilson ε bound at ``delta`` (``z``: the normal quantile of
    the bounds' level) and, with a ``claim``, the δ bound at the claimed ε — both of the counts
    projected onto ``target`` runs on a and on b (None: the counts as they are)."""

    delta: float
    z: float
    claim: float | None
    target: tuple[int, int] | None

    def project(
        self,
        counts: tuple[np.ndarray, int, np.ndarray, int],
        forward: bool,
        shrink: bool = True,
        shrink_other: bool = True,
    ) -> tuple:
        """``(k_p, n_p, k_q, n_q)`` rescaled to the target runs: the counts expected there, the
        frequencies first shrunk by one standard error (Wilson bounds at z = 1: p down, q up), so
        that a handful of split-1 hits — or none — is not taken for a precise frequency
        (``shrink=False``: expected counts of a fitted model, whose caution lies in the fit;
        ``shrink_other=False``: q as it is, for one-sided events, :mod:`one_sided`)."""
        if self.target is None:
            return counts
        k_p, n_p, k_q, n_q = counts
        t_p, t_q = self.target if forward else self.target[::-1]
        if not shrink:
            return k_p / n_p * t_p, t_p, k_q / n_q * t_q, t_q
        p_low, _ = wilson_bounds(k_p, n_p, 1.0)
        q_high = wilson_bounds(k_q, n_q, 1.0)[1] if shrink_other else np.asarray(k_q, dtype=float) / n_q
        return p_low * t_p, t_p, q_high * t_q, t_q


def _best_cells(
    chosen_on: tuple[np.ndarray, int, np.ndarray, int],
    scored_on: tuple[np.ndarray, int, np.ndarray, int],
    objective: Objective,
    forward: bool,
    valid: np.ndarray | None = None,
    shrink: bool = True,
    shrink_other: bool = True,
    shortlist: int = 1,
) -> list[tuple[int, float, str]]:
    """``(flat index, score, family suffix)`` of the ε-best cell of ``chosen_on`` (counts
    ``k_p, n_p, k_q, n_q``) and, with a claim, of its δ-best cell at the claimed ε if it differs;
    each scored by its ε bound on ``scored_on`` (cells scoring −∞ there are left out). Counts are
    projected onto the objective's target runs first (``shrink``, ``shrink_other``: see
    :meth:`Objective.project`). ``shortlist``: the ``shortlist`` ε-best cells of ``chosen_on``
    are scored and the best of them on ``scored_on`` is kept — a choice made on half the runs
    is noisy, and the runner-up there is often the better event (the wrong tail of
    ReportNoisyMax3 won on one seed in ten and certified 0.13 where the others gave 0.21; with 3, its ten seeds give 0.204–0.234)."""
    chosen_on, scored_on = (
        objective.project(counts, forward, shrink, shrink_other) for counts in (chosen_on, scored_on)
    )
    score = epsilon_lower_search(*scored_on, objective.delta, objective.z).reshape(-1)
    by_epsilon = epsilon_lower_search(*chosen_on, objective.delta, objective.z)
    if valid is not None:
        by_epsilon = np.where(valid, by_epsilon, -np.inf)
    flat = by_epsilon.reshape(-1)
    top = np.argpartition(-flat, shortlist - 1)[:shortlist] if shortlist < flat.size else np.arange(flat.size)
    top = top[flat[top] > -np.inf]
    chosen = [(int(top[np.argmax(score[top])]), "")] if top.size else []
    if objective.claim is not None:
        by_delta = delta_lower_search(*chosen_on, objective.claim, objective.z)
        if valid is not None:
            by_delta = np.where(valid, by_delta, -np.inf)
        best_delta = int(np.argmax(by_delta))
        if not chosen or best_delta != chosen[0][0]:
            chosen.append((best_delta, " δ"))
    return [(index, float(score[index]), suffix) for index, suffix in chosen if score[index] > -np.inf]


def _distinguisher_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: Fits
) -> list[SearchResult]:
    """Interval events of the learned scores (per-coordinate and tied weights) and of the number of
    coordinates above their centre. Each score is fitted on the first half of split 1 (at most
    ``DISTINGUISHER_ROWS`` runs per input, ``TIED_ROWS`` for the tied score's five features), its
    thresholds chosen — and its split-1 rank scored — on the other half, so that an overfitted
    score does not outrank an honest one. The count, which fits nothing but its centre (the mean
    of ``DISTINGUISHER_ROWS`` runs per input), has its thresholds chosen on all of split 1.
    Fits on the same first runs as an earlier stage's — or made while split 1 arrived
    (:func:`prefit`) — are taken from ``fits``.

    When coordinates are correlated on the fitting rows, the same three families are offered on
    the innovations too (family suffix ``on innovations``; :mod:`~dpledger.verify.audit.montecarlo.decorrelation`:
    the coordinates decorrelated in their order — for prefix sums, the noisy answers). With
    ``fits.network``, the perceptron score too (``network``, fitted on at most ``NETWORK_ROWS``
    runs per input of the first half, thresholded on the other)."""
    fitted = _fitted(a, b, pair_index, (len(a), len(b)), fits)
    rest_a, rest_b = a[len(a) // 2 :], b[len(b) // 2 :]
    scores = [(family, statistic) for family, statistic, by_count in fitted if not by_count]
    # Every score on each half in one pass (events.evaluate: standardised runs are shared).
    values = [
        [evaluate([statistic for _, statistic in scores], half) for half in _halves(rest)]
        for rest in (rest_a, rest_b)
    ]
    results = [
        _interval_candidates(
            statistic,
            rest_a,
            rest_b,
            pair_index,
            family,
            objective,
            [[together[i] for together in side] for side in values],
        )
        for i, (family, statistic) in enumerate(scores)
    ]
    results.extend(
        _count_candidates(statistic, a, b, pair_index, objective, family)
        for family, statistic, by_count in fitted
        if by_count
    )
    return results


def _fit_rows(selection: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The first runs per input that the (untied, tied) fits read on a split 1 of ``selection``
    runs per input: the first half of it, at most ``DISTINGUISHER_ROWS`` (``TIED_ROWS``); the
    innovations and the count read the untied fit's runs, the perceptron at most
    ``NETWORK_ROWS ≤ DISTINGUISHER_ROWS`` of them."""
    return tuple(
        (min(selection[0] // 2, rows), min(selection[1] // 2, rows))  # type: ignore[return-value]
        for rows in (DISTINGUISHER_ROWS, TIED_ROWS)
    )


def fitted_rows(selection: int) -> int:
    """The first runs per input that a pair's fits read on a split 1 of ``selection`` runs per input."""
    return max(max(rows) for rows in _fit_rows((selection, selection)))


def _fitted(
    a: np.ndarray, b: np.ndarray, pair_index: int, selection: tuple[int, int], fits: Fits
) -> list[tuple[str, Statistic, bool]]:
    """``(family, statistic, thresholded by the count model)`` for every statistic the search fits
    for a pair whose split 1 holds ``selection`` runs per input — the untied and tied learned
    scores and the count, on the outputs and, when coordinates are correlated, on their
    innovations; the perceptron with ``fits.network`` — from ``fits`` or fitted on the first runs
    ``a``, ``b`` (which must hold them)."""
    (n_a, n_b), (t_a, t_b) = _fit_rows(selection)
    innovations = fits.get(pair_index, "innovations", (n_a, n_b), lambda: fit_innovations(a[:n_a], b[:n_b]))
    views: list[tuple[str, Innovations | None]] = [("", None)]
    if innovations is not None:
        views.append((" on innovations", innovations))
    fitted = []
    for suffix, view in views:
        for family, (m_a, m_b), fit in (
            ("distinguisher", (n_a, n_b), partial(_fit_score, view, False)),
            ("distinguisher (tied)", (t_a, t_b), partial(_fit_score, view, True)),
            ("count", (n_a, n_b), partial(_fit_count, view)),
        ):
            statistic = fits.get(pair_index, family + suffix, (m_a, m_b), partial(fit, a[:m_a], b[:m_b]))
            fitted.append((family + suffix, statistic, family == "count"))
    if fits.network:
        m_a, m_b = min(n_a, NETWORK_ROWS), min(n_b, NETWORK_ROWS)
        fitted.append(
            (
                "network",
                fits.get(pair_index, "network", (m_a, m_b), partial(_network, a[:m_a], b[:m_b])),
                False,
            )
        )
    return fitted


def _fit_score(view: Innovations | None, tied: bool, a: np.ndarray, b: np.ndarray) -> Statistic:
    return _on_view(view, fit_distinguisher(_seen(view, a), _seen(view, b), tied))


def _fit_count(view: Innovations | None, a: np.ndarray, b: np.ndarray) -> Statistic:
    return _on_view(view, CountAbove(_centre(_seen(view, a), _seen(view, b))))


def prefit(
    a: np.ndarray, b: np.ndarray, pair_index: int, selection: tuple[int, int], fits: Fits
) -> list[Statistic] | None:
    """The fitted statistics the search will ask ``fits`` for on a split 1 of ``selection`` runs per
    input, made now from the first runs ``a``, ``b`` that arrived: the audit fits while the rest
    of split 1 is still being generated — the same fits as the search would
    make, so nothing changes but when. None while the runs that arrived do not suffice; empty
    when the outputs get no fitted statistics."""
    if len(a) == 0 or len(b) == 0:
        return None
    if not _fits_apply(a):
        return []
    if min(len(a), len(b)) < fitted_rows(max(selection)):
        return None
    return [statistic for _, statistic, _ in _fitted(a, b, pair_index, selection, fits)]


def reduction(
    a: np.ndarray, b: np.ndarray, fitted: list[Statistic], selection: tuple[int, int], final: tuple[int, int]
) -> tuple[Statistic, ...]:
    """The statistics whose values may stand in for split 2's runs of chunks generated from now on
    (:class:`~dpledger.verify.audit.montecarlo.tasks.ReducingChunkTask`); empty when the runs
    are still needed. Decided on the first split-1 runs ``a``, ``b`` alone, hence the same at
    every run of the audit: the ``fitted`` statistics (of a split 1 of ``selection`` runs per
    input) qualify when they are the audit's last fits (the rows they read are those of the
    ``final`` split 1's) and the search offers no other family on such outputs — float vectors
    with many distinct rows, without atoms (:func:`atom_patterns.pattern_layout`), every coordinate on
    the deepest lattice. Should a later run leave the lattice after all, its lattice events cannot
    be estimated on reduced chunks and are not offered (a choice made on split 1, so the
    correction is unchanged)."""
    if (
        not fitted
        or output_kind(a) != "vector"
        or _fit_rows(selection) != _fit_rows(final)
        or _few_distinct(a, b)
        or pattern_layout(a, b) is not None
    ):
        return ()
    rows = [np.asarray(x, dtype=np.float64).reshape(len(x), -1) for x in (a, b)]
    if not all(on_lattice(_low_bits(x), max(LATTICE_BITS))[0] for x in rows):
        return ()
    return (*fitted, *_one_sided_statistics(a, b))


def _one_sided_statistics(a: np.ndarray, b: np.ndarray) -> list[Statistic]:
    """The statistics of the one-sided families (:mod:`one_sided`) on outputs like ``a``, ``b``: the
    key views and, for snapped outputs, the off-grid count — kept on reduced runs too, so that a
    rare one-sided output is estimated however the runs travel (the views of snapped outputs
    depend on their grid alone, hence are the same statistics at every stage)."""
    grid = output_grid(a, b)
    return [*key_views(a, b), *([OffGrid(grid)] if grid is not None else [])]


def _fits_apply(a: np.ndarray) -> bool:
    """Whether the search fits statistics on outputs like ``a``: vectors of floats or integers."""
    kind = output_kind(a)
    return kind == "vector" or (kind == "discrete" and a.ndim > 1 and a.dtype.kind in "biu")


def _network(a: np.ndarray, b: np.ndarray) -> Statistic:
    """:func:`~dpledger.verify.audit.montecarlo.perceptron.fit_network`, BLAS on one thread (:func:`one_blas_thread`)."""
    with one_blas_thread():
        return fit_network(a, b)


def _seen(view: Innovations | None, runs: np.ndarray) -> np.ndarray:
    """The runs as a statistic on ``view`` reads them: their innovations, or the runs themselves (None)."""
    return runs if view is None else view(np.asarray(runs).reshape(len(runs), -1))


def _on_view(view: Innovations | None, statistic: Statistic) -> Statistic:
    """``statistic``, fitted on the runs as ``view`` shows them, as a statistic of the outputs."""
    return statistic if view is None else OnInnovations(view, statistic)  # type: ignore[arg-type]  # the statistics read on innovations are block statistics


def _centre(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The mean output vector of the runs of both inputs."""
    head = np.concatenate([a, b])
    return np.asarray(head, dtype=float).reshape(len(head), -1).mean(axis=0)


def _count_candidates(
    count: Statistic,
    a: np.ndarray,
    b: np.ndarray,
    pair_index: int,
    objective: Objective,
    family: str = "count",
) -> SearchResult:
    """Per direction the best threshold event ``count ≥ k`` (or ``≤ k``) of the number of
    coordinates above their centre, chosen and scored on a smoothed model of the count's
    distributions fitted on all of split 1 (:func:`tilted_count_model`), not on raw frequencies:
    when every coordinate carries a tiny part of the privacy loss (parallel composition), raw
    tail frequencies on split 1 are mostly noise, while the model pools every run and every
    coordinate into one fitted number."""
    values_a, values_b = count(a), count(b)
    if min(len(values_a), len(values_b)) == 0:
        return SearchResult([], 0)
    coordinates = np.asarray(a).reshape(len(a), -1).shape[1]
    model_a, model_b = tilted_count_model(values_a, values_b, coordinates)
    # Tail probabilities of {count ≥ k} for k = 1 … d ("up") and of {count ≤ k} for k = 0 … d − 1 ("down"),
    # as expected hit counts on the split-1 runs.
    up = [np.cumsum(model[::-1])[::-1][1:] for model in (model_a, model_b)]
    down = [np.cumsum(model)[:-1] for model in (model_a, model_b)]
    runs = (len(values_a), len(values_b))
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        for tails, event_of in (
            (up, lambda k: IntervalEvent(k + 0.5, math.inf, count)),
            (down, lambda k: IntervalEvent(-math.inf, k, count)),
        ):
            counts = (tails[p] * runs[p], runs[p], tails[q] * runs[q], runs[q])
            for index, score, suffix in _best_cells(counts, counts, objective, forward, shrink=False):
                out.append(Candidate(pair_index, forward, event_of(index), family + suffix, score))
    return SearchResult(out, 4 * coordinates)


def tilted_count_model(
    values_a: np.ndarray, values_b: np.ndarray, coordinates: int
) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed distributions of a count ``C ∈ {0, …, d}`` on a and on b: the pooled frequencies
    ``P₀`` tilted by ``e^{∓λk/2}`` (an exponential family in k, so that the likelihood ratio
    ``P_b(k)/P_a(k) ∝ e^{λk}`` is monotone, as it is exactly for a binomial count), with
    ``λ = Δ / V`` from the difference of the means ``Δ`` shrunk towards 0 by one standard error
    and the mean ``V`` of the two variances — the first-order fit of the tilt (the mean of an
    exponential family moves by its variance per unit of tilt), cautious about a difference that
    could be noise."""
    k = np.arange(coordinates + 1)
    frequencies = [
        np.bincount(values.astype(np.int64), minlength=coordinates + 1) / len(values)
        for values in (values_a, values_b)
    ]
    pooled = (frequencies[0] + frequencies[1]) / 2
    variance = float(values_a.var() + values_b.var()) / 2
    difference = float(values_b.mean() - values_a.mean())
    error = math.sqrt(values_a.var() / len(values_a) + values_b.var() / len(values_b))
    tilt = math.copysign(max(abs(difference) - error, 0.0), difference) / variance if variance > 0 else 0.0
    models = []
    for sign in (-1.0, 1.0):
        weights = pooled * np.exp(sign * tilt * (k - pooled @ k) / 2)
        models.append(weights / weights.sum())
    return models[0], models[1]


def _vector_lattice_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective
) -> list[SearchResult]:
    """Lattice events of vector outputs: per coordinate and the joint count, for every lattice depth."""
    rows_a = np.asarray(a, dtype=np.float64).reshape(len(a), -1)
    rows_b = np.asarray(b, dtype=np.float64).reshape(len(b), -1)
    results = []
    merged = [_low_bits(rows) for rows in (rows_a, rows_b)]
    for bits in LATTICE_BITS:
        if all(on_lattice(low, bits)[0] for low in merged):
            continue  # every coordinate on the lattice: the events would not read low bits
        share_a, share_b = on_lattice(rows_a, bits).mean(axis=0), on_lattice(rows_b, bits).mean(axis=0)
        chosen = np.argsort(-np.abs(share_a - share_b), kind="stable")[:LATTICE_COORDINATES]
        for j in sorted(chosen.tolist()):
            family = f"lattice-{bits}[{j}]"
            results.append(
                _interval_candidates(OnLattice(bits, j), rows_a, rows_b, pair_index, family, objective)
            )
        count = LatticeCount(bits)
        results.append(
            _interval_candidates(count, rows_a, rows_b, pair_index, f"lattice-{bits}-count", objective)
        )
    return results


def _low_bits(rows: np.ndarray) -> np.ndarray:
    """One float64 whose significand's low bits are the OR of those of all ``rows``: it lies on a
    lattice exactly when every value does (one pass over the runs instead of one per depth)."""
    merged = np.bitwise_or.reduce(
        np.ascontiguousarray(rows).view(np.uint64).reshape(-1), initial=np.uint64(0)
    )
    return np.asarray([merged & np.uint64((1 << max(LATTICE_BITS)) - 1)], dtype=np.uint64).view(np.float64)


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


def _halves(runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return runs[: len(runs) // 2], runs[len(runs) // 2 :]


def _interval_candidates(
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
    halves_a, halves_b = _halves(a), _halves(b)
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
            for index, score, suffix in _best_cells(
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
            for index, score, suffix in _best_cells(
                chosen_on, scored_on, objective, forward, one_sided, shrink_other=False, shortlist=SHORTLIST
            ):
                if scored_on[0].reshape(-1)[index] < MIN_HELD_OUT:
                    continue  # a handful of held-out hits: noise
                event = _interval(index, edges, statistic)
                out.append(Candidate(pair_index, forward, event, f"one-sided {family}{suffix}", score))
    return SearchResult(out, 4 * int(valid.sum()))


def _interval(index: int, edges: np.ndarray, statistic: Statistic) -> IntervalEvent:
    """The interval event of cell ``index`` of the ``(bins + 1)²`` table of :func:`_interval_candidates`."""
    low, high = np.unravel_index(index, (len(edges), len(edges)))
    return IntervalEvent(float(edges[low]), float(edges[high]), statistic)


def _interval_counts(sorted_values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """``counts[i, j]``: values in bins i … j − 1 (negative below the diagonal, never used)."""
    cum = np.concatenate([[0], np.searchsorted(sorted_values, cuts, side="right"), [len(sorted_values)]])
    return cum[None, :] - cum[:, None]


def _few_distinct(a: np.ndarray, b: np.ndarray) -> bool:
    """Float outputs (or rows) taking few values: exact-value events apply to them too."""
    return len(np.unique(np.concatenate([row_keys(a[:10_000]), row_keys(b[:10_000])]))) <= FEW_DISTINCT


def _value_set_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective
) -> SearchResult:
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
        for index, score, suffix in _best_cells(chosen_on, scored_on, objective, forward):
            chosen = keys[order[: sizes[index]]]
            event = ValueSetEvent(chosen, tuple(key_to_json(key, a) for key in chosen))
            out.append(Candidate(pair_index, forward, event, "values" + suffix, score))
    return SearchResult(out, 2 * len(sizes))


def _one_sided_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective
) -> SearchResult:
    """Per direction the best one-sided set of keys (:mod:`one_sided`) over the views of the output
    (exact values, cells from fine to coarse): keys the producing input repeats and the other
    (almost) never shows. Cross-fitted, as the pattern family: each half of split 1 chooses one
    set per repeat threshold (:func:`one_sided.one_sided_keys`), counted on the other half; the
    threshold and view of best held-out score are kept, among sets of at least
    ``one_sided.MIN_HELD_OUT`` held-out hits (the other input's held-out counts projected as they are,
    ``shrink_other=False``; the producing input's shrunk, as a set won among ~100 on noise) — with a rare leak, every held-out hit counts
    (a leak of p is seen ~10 times in a split 1 of 10/p runs). The event is the set chosen by the
    same rule on all of split 1 at twice the threshold: the keys that stay one-sided on twice the
    runs (the union of the halves' sets would add both halves' spurious keys)."""
    halves = (_halves(a), _halves(b))
    if min(len(half) for side in halves for half in side) == 0:
        return SearchResult([], 0)
    discrete = output_kind(a) == "discrete"
    runs = (len(a), len(b))
    best: dict[tuple[bool, str], Candidate] = {}
    examined = 0
    for view in key_views(a, b):
        whole = [view(x) for x in (a, b)]
        keys = [list(_halves(side)) for side in whole]
        sorted_keys = [[np.sort(half) for half in side] for side in keys]
        for forward in (True, False):
            p, q = (0, 1) if forward else (1, 0)
            chosen = [one_sided_keys(sorted_keys[p][h], sorted_keys[q][h], discrete) for h in (0, 1)]
            if not any(members.size for members, _ in chosen):
                continue
            held_out = [
                sum(
                    sets.astype(np.int64) @ key_counts(sorted_keys[side][1 - h], members)
                    for h, (members, sets) in enumerate(chosen)
                )
                for side in (p, q)
            ]
            examined += len(held_out[0])
            counts = (held_out[0], runs[p], held_out[1], runs[q])
            evident = held_out[0] >= MIN_HELD_OUT
            for index, score, suffix in _best_cells(
                counts, counts, objective, forward, evident, shrink_other=False
            ):
                kept = best.get((forward, suffix))
                if kept is not None and kept.score >= score:
                    continue
                members, sets = one_sided_keys(np.sort(whole[p]), np.sort(whole[q]), discrete, 2)
                members = members[sets[index]]
                producing = (a, b)[p]
                shown = tuple(np.asarray(x).tolist() for x in producing[np.isin(whole[p], members)][:4])
                event = KeySetEvent(view, members, shown)
                best[(forward, suffix)] = Candidate(
                    pair_index, forward, event, "one-sided values" + suffix, score
                )
    return SearchResult(list(best.values()), examined)


def _off_grid_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
    """Per direction the event "some coordinate off the grid" of snapped outputs
    (:class:`one_sided.OffGrid`, the grid found on split 1 by :func:`one_sided.output_grid`): one event fixed
    by the grid, so chosen by nothing and scored on all of split 1, the other input's counts as
    they are (``shrink_other=False``)."""
    grid = output_grid(a, b)
    if grid is None:
        return SearchResult([], 0)
    statistic = OffGrid(grid)
    off = [np.asarray([np.count_nonzero(statistic(x) > 0)]) for x in (a, b)]
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        counts = (off[p], len((a, b)[p]), off[q], len((a, b)[q]))
        for _, score, suffix in _best_cells(counts, counts, objective, forward, shrink=False):
            event = IntervalEvent(0.0, math.inf, statistic)
            out.append(Candidate(pair_index, forward, event, "one-sided off-grid" + suffix, score))
    return SearchResult(out, 2)


def _pattern_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
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
    runs), with those weights."""
    layout = pattern_layout(a, b)
    if layout is None:
        return SearchResult([], 0)
    whole, blocks_a, blocks_b = cross_fitted(layout, a, b)
    family, weights = "pattern", np.ones(1)
    if len(layout.blocks) > 1:
        family = "pattern (blocks)"
        design = np.concatenate([blocks_a, blocks_b])
        column_scale = np.where(design.std(axis=0) > 0, design.std(axis=0), 1.0)
        weights = _logistic(design / column_scale, len(blocks_a), ridge=1e-3, iterations=30) / column_scale
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
            for index, score, suffix in _best_cells(counts, counts, objective, forward, large):
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


def fit_distinguisher(
    a: np.ndarray, b: np.ndarray, tied: bool = False, ridge: float = 1e-3, iterations: int = 30
) -> LearnedScore:
    """A learned test of "came from a" over the whole output vector (:class:`LearnedScore`):
    regularised logistic regression, by Newton's method (IRLS), on the runs given.

    Features are standardised, and a ridge penalty keeps the Newton steps defined when the classes
    separate. ``tied``: one weight per feature group — the sums over coordinates of z_j, z_j² and
    sgn z_j — else one weight per coordinate and group.
    """
    rows_a = np.asarray(a, dtype=float).reshape(len(a), -1)
    rows_b = np.asarray(b, dtype=float).reshape(len(b), -1)
    d = rows_a.shape[1]
    pooled = np.concatenate([rows_a, rows_b])
    head = np.concatenate([rows_a[:DISTINGUISHER_ROWS], rows_b[:DISTINGUISHER_ROWS]])
    centre = head.mean(axis=0)
    scale = head.std(axis=0)
    scale[scale == 0] = 1.0
    z = (pooled - centre) / scale
    groups = [z, z * z, np.sign(z)]
    columns = [g.sum(axis=1, keepdims=True) for g in groups] if tied else groups
    design = np.concatenate([*columns, z.max(axis=1, keepdims=True), z.min(axis=1, keepdims=True)], axis=1)
    column_scale = design.std(axis=0)
    column_scale[column_scale == 0] = 1.0
    weights = _logistic(design / column_scale, len(rows_a), ridge, iterations) / column_scale
    per_group = [np.full(d, w) for w in weights[:3]] if tied else np.split(weights[: 3 * d], 3)
    return LearnedScore(centre, scale, *per_group, weights[-2:], tied)  # type: ignore[call-arg]  # per_group holds the three weight groups


def _logistic(design: np.ndarray, positives: int, ridge: float, iterations: int) -> np.ndarray:
    """Weights (without intercept) of a ridge-penalised logistic regression of "row < positives"."""
    with one_blas_thread():
        return _newton(
            np.concatenate([design, np.ones((len(design), 1))], axis=1), positives, ridge, iterations
        )


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread (threadpoolctl, when installed): the workers generating runs hold the
    other cores, and a multithreaded Newton step on an oversubscribed machine runs several times
    slower than a single-threaded one (the audit holds it for its whole run, where the caller's
    estimation threads would otherwise each wake BLAS threads that spin)."""
    if threadpool_limits is None:
        yield
        return
    with threadpool_limits(1, "blas"):
        yield


def _newton(design: np.ndarray, positives: int, ridge: float, iterations: int) -> np.ndarray:
    """IRLS for the ridge-penalised logistic regression; the last column is the intercept."""
    target = np.zeros(len(design))
    target[:positives] = 1.0
    weights = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], ridge * len(design))
    penalty[-1] = 1e-9
    for _ in range(iterations):
        fitted = 1.0 / (1.0 + np.exp(-np.clip(design @ weights, -30, 30)))
        gradient = design.T @ (fitted - target) + penalty * weights
        hessian = (design * (fitted * (1 - fitted))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    return weights[:-1]
