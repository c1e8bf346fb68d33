"""Event search on the first split of the samples: the driver, and the registry of event families.

For one neighbour pair the search returns, per event family and per direction, the event
whose split-1 counts give the largest ε lower bound (Wilson-score approximation,
:func:`dpledger.verify.audit.montecarlo.statistics.epsilon_lower_search`). The families, one
module each, are registered in :data:`FAMILIES`, in the order their candidates are listed:

* :mod:`.intervals` — ``interval``: thresholds and intervals of scalar (or integer) outputs, and
  the interval events (and one-sided cells) of any statistic the other families threshold;
* :mod:`.lattice` — ``lattice-k``, ``lattice-k[j]``, ``lattice-k-count``: the float-artefact
  events on the low bits of the outputs, scalar and vector;
* :mod:`.value_sets` — ``values``: sets of exact values of discrete (or few-valued) outputs;
* :mod:`.one_sided` — ``one-sided values``, ``one-sided off-grid``: outputs one input produced and
  the other (almost) never;
* :mod:`.learned` — ``distinguisher``, ``distinguisher (tied)``, ``count`` (also ``on
  innovations``) and the opt-in ``network``: statistics fitted on split 1, kept across stages
  (:class:`~.learned.Fits`);
* :mod:`.patterns` — ``pattern``, ``pattern (blocks)``: atom-pattern scores of sparse-vector
  outputs.

:mod:`.objective` holds what they share (the candidates, the objective, the choice of cells, the
cut points) and :mod:`.logistic` the logistic regression two of them fit. Besides
:func:`search_pair`, the driver decides :func:`reduction`: when a pair's fitted statistics are all
the search will read of split 2.

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
rare ones that certify most. The ``count``, ``values`` and ``pattern`` families are the
exceptions (:mod:`.learned`, :mod:`.value_sets`, :mod:`.patterns`): they choose on a fitted model,
on all of split 1, or on held-out scores of all of it, and score on the raw frequencies, an
empirical-Bayes model of the counts, or the held-out scores.

Only split 1 is looked at here, so nothing in this package needs a multiplicity correction — however
many families, coordinates and events it compares; the audit corrects for the candidates it then
estimates on split 2.
"""

from __future__ import annotations

import numpy as np

from dpledger.verify.audit.montecarlo.events import Statistic, on_lattice
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.search.intervals import INTERVAL
from dpledger.verify.audit.montecarlo.search.lattice import (
    LATTICE_BITS,
    SCALAR_LATTICE,
    VECTOR_LATTICE,
    low_bits,
)
from dpledger.verify.audit.montecarlo.search.learned import (
    DISTINGUISHER_ROWS,
    LEARNED,
    Fits,
    fit_distinguisher,
    fit_rows,
    fitted_rows,
    prefit,
    tilted_count_model,
)
from dpledger.verify.audit.montecarlo.search.logistic import one_blas_thread
from dpledger.verify.audit.montecarlo.search.objective import Candidate, Family, Objective, SearchResult
from dpledger.verify.audit.montecarlo.search.one_sided import (
    KEY_SETS,
    OFF_GRID,
    kept_keys,
    one_sided_statistics,
)
from dpledger.verify.audit.montecarlo.search.patterns import PATTERN, kept_layout
from dpledger.verify.audit.montecarlo.search.value_sets import VALUES, few_distinct

__all__ = [
    "DISTINGUISHER_ROWS",
    "FAMILIES",
    "Candidate",
    "Family",
    "Fits",
    "SearchResult",
    "fit_distinguisher",
    "fitted_rows",
    "last_fits",
    "one_blas_thread",
    "prefit",
    "reduction",
    "search_pair",
    "tilted_count_model",
]

FAMILIES: tuple[Family, ...] = (
    INTERVAL,
    SCALAR_LATTICE,
    VALUES,
    KEY_SETS,
    OFF_GRID,
    LEARNED,
    PATTERN,
    VECTOR_LATTICE,
)
"""The event families, in the order their candidates are listed (the ranking of equal scores
keeps it)."""


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
    objective = Objective(delta, z, claimed_epsilon if delta > 0 else None, target)
    fitted = fits or Fits()
    results = [
        result
        for family in FAMILIES
        if family.applies(a, b, kind)
        for result in family.search(a, b, pair_index, objective, fitted)
    ]
    return SearchResult([c for r in results for c in r.candidates], sum(r.examined for r in results))


def last_fits(selection: tuple[int, int], final: tuple[int, int]) -> bool:
    """Whether the fits on a split 1 of ``selection`` runs per input are those on the ``final``
    split 1's: they read the same first runs (the fits' caps, :func:`~.learned.fit_rows`)."""
    return fit_rows(selection) == fit_rows(final)


def reduction(
    a: np.ndarray,
    b: np.ndarray,
    fitted: list[Statistic],
    selection: tuple[int, int],
    final: tuple[int, int],
    *,
    pair_index: int = 0,
    fits: Fits | None = None,
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
    correction is unchanged). ``fits``: the audit's, whose split-1 values of pair ``pair_index``
    — key views' keys, pattern layout — are kept across stages (:func:`~.one_sided.kept_keys`,
    :func:`~.patterns.kept_layout`)."""
    if (
        not fitted
        or output_kind(a) != "vector"
        or not last_fits(selection, final)
        or few_distinct(a, b)
        or kept_layout(a, b, pair_index, fits) is not None
    ):
        return ()
    rows = [np.asarray(x, dtype=np.float64).reshape(len(x), -1) for x in (a, b)]
    if not all(on_lattice(low_bits(x), max(LATTICE_BITS))[0] for x in rows):
        return ()
    return (*fitted, *one_sided_statistics(a, b, keys=kept_keys(pair_index, fits)))
