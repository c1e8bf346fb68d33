"""The learned families: statistics fitted on split 1 — scores, counts, the perceptron.

``distinguisher`` — intervals of a learned score over the whole output vector
(:func:`fit_distinguisher`, :class:`~dpledger.verify.audit.montecarlo.events.LearnedScore`) for
continuous, integer and binary vectors: the score is fitted on split 1 and its thresholds are
chosen on split 1 too; ``count`` — threshold events of the number of coordinates above their
split-1 centre, chosen on a fitted model of that count (:func:`tilted_count_model`). When some
coordinates are correlated on split 1, all three again on the output's *innovations* (family
suffix ``on innovations``): its coordinates decorrelated in their order, for prefix sums the
noisy answers (:mod:`~dpledger.verify.audit.montecarlo.decorrelation`). Opt-in
(``audit(..., network=True)``): ``network`` — intervals of a one-hidden-layer perceptron's score,
DP-Sniper's MLP (:mod:`~dpledger.verify.audit.montecarlo.perceptron`), for losses that no linear
score of per-coordinate features expresses.

The ``count`` family's threshold is chosen and scored on a model fitted on all of split 1 with
one parameter, shrunk by its standard error (raw tail frequencies of a count over many weak
coordinates are mostly noise on split 1). The fits are kept across stages (:class:`Fits`) and made
as soon as their runs arrive (:func:`prefit`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any, TypeVar

import numpy as np

from dpledger.verify.audit.montecarlo.atom_patterns import find_atoms
from dpledger.verify.audit.montecarlo.decorrelation import Innovations, OnInnovations, fit_innovations
from dpledger.verify.audit.montecarlo.events import (
    CountAbove,
    IntervalEvent,
    LearnedScore,
    Statistic,
    evaluate,
)
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.perceptron import fit_network
from dpledger.verify.audit.montecarlo.search.intervals import interval_candidates
from dpledger.verify.audit.montecarlo.search.logistic import logistic_in_place, one_blas_thread
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
    two_halves,
)

DISTINGUISHER_ROWS = 20_000
TIED_ROWS = 50_000
NETWORK_ROWS = 10_000
ROW_VALUES_BYTES = 64
"""Bytes of a run from which :meth:`Fits.row_values` keeps a statistic's values on split 1 (vectors
of 8 float coordinates and more): a value is then at most an eighth of its run, and the few kept
add little to the audit's memory; on smaller runs the values would outweigh split 1, and their
statistics cost less to evaluate again."""
KEPT_FITS = 2
"""Fits of each kind and pair :class:`Fits` keeps: the latest ones."""
Fitted = TypeVar("Fitted")  # a statistic, or the innovations the statistics read


class Fits:
    """The statistics fitted on split 1, kept across the stages of an audit (refitting
    them every stage cost more than the search). A fit reads a prefix of each input's split-1 runs
    — their first ``n`` runs, which no later stage changes, as split 1 only grows at its end — so a
    fit of the same kind, pair and ``n`` is the same fit: it is taken from here, and the latest
    :data:`KEPT_FITS` fits of each (pair, kind) are kept — a stage's, and the next stage's, made
    before this one is searched (:class:`~dpledger.verify.audit.montecarlo.schedule.Schedule`).
    For the same reason the values of a statistic of
    each run alone on split 1 (the one-sided families' keys and off-grid counts,
    :meth:`row_values`) are kept across stages: a stage evaluates it on its new runs only.

    ``network``: whether the search fits the perceptron too (family ``network``,
    :mod:`~dpledger.verify.audit.montecarlo.perceptron`), opt-in: it reaches privacy losses outside
    the linear scores, but costs a fit per stage and pair (~0.4 s) where it adds nothing."""

    def __init__(self, network: bool = False) -> None:
        self.network = network
        self.latest: dict[tuple[int, str], list[tuple[tuple[int, int], Any]]] = {}
        self.rows: dict[tuple[Hashable, ...], tuple[int, np.ndarray]] = {}
        self.rows_used: set[tuple[Hashable, ...]] = set()

    def get(self, pair_index: int, kind: str, rows: tuple[int, int], fit: Callable[[], Fitted]) -> Fitted:
        """The fit of ``kind`` on the first ``rows`` runs of each input of the pair (``fit()`` when new)."""
        kept = self.latest.setdefault((pair_index, kind), [])
        for kept_rows, fitted in kept:
            if kept_rows == rows:
                return fitted
        kept.append((rows, fit()))
        del kept[:-KEPT_FITS]
        return kept[-1][1]

    def holds(self, statistic: Statistic) -> bool:
        """Whether ``statistic`` is one of the fits kept (its values may be kept across stages too)."""
        return any(fitted is statistic for kept in self.latest.values() for _, fitted in kept)

    def row_values(
        self,
        pair_index: int,
        side: int,
        key: Hashable,
        statistic: Callable[[np.ndarray], np.ndarray],
        runs: np.ndarray,
    ) -> np.ndarray:
        """``statistic(runs)`` for a statistic of each run alone (``key`` names it: equal keys, the
        same function) on the split-1 runs ``runs`` of input ``side`` of the pair — a prefix of
        the audit's split-1 buffer, which later stages only extend: the values on the runs an
        earlier call saw in the same memory are kept, the new runs alone are evaluated (the same
        values, run by run). Values not asked for during a stage are dropped at its end
        (:meth:`end_stage`). Kept only for runs of at least :data:`ROW_VALUES_BYTES`."""
        if len(runs) == 0 or runs[0].nbytes < ROW_VALUES_BYTES:
            return statistic(runs)
        entry = (pair_index, side, key, runs.dtype.str, runs.shape[1:])
        address = runs.__array_interface__["data"][0]
        kept = self.rows.get(entry)
        if kept is None or kept[0] != address or not runs.flags.c_contiguous:
            values = statistic(runs)
        elif len(kept[1]) >= len(runs):
            values = kept[1][: len(runs)]
        else:
            values = np.concatenate([kept[1], statistic(runs[len(kept[1]) :])])
        if kept is None or len(values) >= len(kept[1]):
            self.rows[entry] = (address, values)
        self.rows_used.add(entry)
        return values

    def end_stage(self) -> None:
        """Forget the row values (:meth:`row_values`) no call of the stage asked for."""
        self.rows = {entry: kept for entry, kept in self.rows.items() if entry in self.rows_used}
        self.rows_used = set()


def distinguisher_candidates(
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
        [evaluate([statistic for _, statistic in scores], half) for half in two_halves(rest)]
        for rest in (rest_a, rest_b)
    ]
    results = [
        interval_candidates(
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
        _count_candidates(statistic, a, b, pair_index, objective, family, fits)
        for family, statistic, by_count in fitted
        if by_count
    )
    return results


def fit_rows(selection: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
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
    return max(max(rows) for rows in fit_rows((selection, selection)))


def _fitted(
    a: np.ndarray, b: np.ndarray, pair_index: int, selection: tuple[int, int], fits: Fits
) -> list[tuple[str, Statistic, bool]]:
    """``(family, statistic, thresholded by the count model)`` for every statistic the search fits
    for a pair whose split 1 holds ``selection`` runs per input — the untied and tied learned
    scores and the count, on the outputs and, when coordinates are correlated, on their
    innovations; the perceptron with ``fits.network`` — from ``fits`` or fitted on the first runs
    ``a``, ``b`` (which must hold them)."""
    (n_a, n_b), (t_a, t_b) = fit_rows(selection)
    innovations = fits.get(pair_index, "innovations", (n_a, n_b), lambda: fit_innovations(a[:n_a], b[:n_b]))
    views: list[tuple[str, Innovations | None]] = [("", None)]
    if innovations is not None:
        views.append((" on innovations", innovations))
    fitted = []

    def head(view: Innovations | None, m_a: int, m_b: int) -> HeadMoments | None:
        """The :func:`head_moments` a fit on the outputs' first ``m_a``, ``m_b`` runs reads, made
        once for the fits that read the same first runs (None on innovations)."""
        if view is not None:
            return None
        rows = (min(m_a, DISTINGUISHER_ROWS), min(m_b, DISTINGUISHER_ROWS))
        return fits.get(pair_index, "head", rows, lambda: head_moments(a[: rows[0]], b[: rows[1]]))

    for suffix, view in views:
        for family, (m_a, m_b), fit in (
            ("distinguisher", (n_a, n_b), partial(_fit_score, view, False, head=head(view, n_a, n_b))),
            ("distinguisher (tied)", (t_a, t_b), partial(_fit_score, view, True, head=head(view, t_a, t_b))),
            ("count", (n_a, n_b), partial(_fit_count, view, head=head(view, n_a, n_b))),
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


def _fit_score(
    view: Innovations | None, tied: bool, a: np.ndarray, b: np.ndarray, head: HeadMoments | None = None
) -> Statistic:
    """The learned score on the outputs (markers among numbers standardised apart, ``head`` their
    :func:`head_moments`) or their innovations."""
    fitted = fit_distinguisher(_seen(view, a), _seen(view, b), tied, markers=view is None, head=head)
    return _on_view(view, fitted)


def _fit_count(
    view: Innovations | None, a: np.ndarray, b: np.ndarray, head: HeadMoments | None = None
) -> Statistic:
    """The count of coordinates above their centre, on the outputs (markers among numbers not
    counted, the numbers' centre; ``head``: their :func:`head_moments`, when already made) or
    their innovations."""
    if head is not None:
        markers, centre, _ = head
        return CountAbove(centre.copy(), markers.copy())
    rows = np.concatenate([_seen(view, a), _seen(view, b)])
    rows = np.asarray(rows, dtype=float).reshape(len(rows), -1)
    markers = output_markers(np.asarray(a), rows) if view is None else np.empty(0)
    return _on_view(view, CountAbove(_moments(rows, markers)[0], markers))


HeadMoments = tuple[np.ndarray, np.ndarray, np.ndarray]
"""The markers of the outputs and the centre and spread of each coordinate's numbers on the first
runs (:func:`head_moments`)."""


def head_moments(a: np.ndarray, b: np.ndarray) -> HeadMoments:
    """``(markers, centre, spread)`` of the first :data:`DISTINGUISHER_ROWS` runs of ``a`` and of
    ``b`` as rows (:func:`output_markers`, :func:`_moments`; a spread of 0 where a coordinate's
    numbers are constant): what :func:`fit_distinguisher` standardises with, and the count's
    centre — made once for the fits that read the same first runs."""
    rows_a, rows_b = (np.asarray(x, dtype=float).reshape(len(x), -1) for x in (a, b))
    head = np.concatenate([rows_a[:DISTINGUISHER_ROWS], rows_b[:DISTINGUISHER_ROWS]])
    markers = output_markers(np.asarray(a), head)
    return (markers, *_moments(head, markers))


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
    if not fits_apply(a):
        return []
    if min(len(a), len(b)) < fitted_rows(max(selection)):
        return None
    return [statistic for _, statistic, _ in _fitted(a, b, pair_index, selection, fits)]


def fits_apply(a: np.ndarray) -> bool:
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


def _moments(head: np.ndarray, markers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per coordinate the mean and standard deviation of the rows ``head``, over the entries that
    are not ``markers`` (0 and 0 for a coordinate of markers alone)."""
    if not markers.size:
        return head.mean(axis=0), head.std(axis=0)
    numeric = ~np.isin(head, markers)
    numbers = np.maximum(numeric.sum(axis=0), 1)
    centre = np.where(numeric, head, 0.0).sum(axis=0) / numbers
    return centre, np.sqrt((np.where(numeric, head - centre, 0.0) ** 2).sum(axis=0) / numbers)


def _count_candidates(
    count: Statistic,
    a: np.ndarray,
    b: np.ndarray,
    pair_index: int,
    objective: Objective,
    family: str = "count",
    fits: Fits | None = None,
) -> SearchResult:
    """Per direction the best threshold event ``count ≥ k`` (or ``≤ k``) of the number of
    coordinates above their centre, chosen on a smoothed model of the count's distributions
    fitted on all of split 1 (:func:`tilted_count_model`), not on raw frequencies: when every
    coordinate carries a tiny part of the privacy loss (parallel composition), raw tail
    frequencies on split 1 are mostly noise, while the model pools every run and every
    coordinate into one fitted number. The chosen event is scored on its raw split-1
    frequencies: the model's tilt is exact for a binomial count but extrapolates elsewhere —
    on a sparse vector's outputs its tails scored 0.02–0.04 and certified nothing on split 2,
    taking the slots of events that did — and one event chosen by the model's single fitted
    number needs no correction for a choice among many (nor the shrink of one chosen among
    many cells, :meth:`Objective.project`). ``fits``: the count's values on earlier stages'
    runs, kept (:meth:`Fits.row_values`; a count of the outputs themselves, each run's an exact
    sum of ones)."""
    values_a, values_b = (
        fits.row_values(pair_index, side, count, count, x)
        if fits is not None and isinstance(count, CountAbove)
        else count(x)
        for side, x in enumerate((a, b))
    )
    if min(len(values_a), len(values_b)) == 0:
        return SearchResult([], 0)
    coordinates = np.asarray(a).reshape(len(a), -1).shape[1]
    model_a, model_b = tilted_count_model(values_a, values_b, coordinates)
    runs = (len(values_a), len(values_b))
    frequencies = [
        np.bincount(values.astype(np.int64), minlength=coordinates + 1) / len(values)
        for values in (values_a, values_b)
    ]
    # Tail probabilities of {count ≥ k} for k = 1 … d ("up") and of {count ≤ k} for k = 0 … d − 1
    # ("down"), of the model and on the split-1 runs, as hit counts there.
    tails = [
        (
            [np.cumsum(law[::-1])[::-1][1:] * n for law, n in zip(laws, runs, strict=True)],
            [np.cumsum(law)[:-1] * n for law, n in zip(laws, runs, strict=True)],
        )
        for laws in ((model_a, model_b), frequencies)
    ]
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        for direction, event_of in (
            (0, lambda k: IntervalEvent(k + 0.5, math.inf, count)),
            (1, lambda k: IntervalEvent(-math.inf, k, count)),
        ):
            model, observed = (
                (table[direction][p], runs[p], table[direction][q], runs[q]) for table in tails
            )
            for index, score, suffix in best_cells(model, observed, objective, forward, shrink=False):
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


def fit_distinguisher(
    a: np.ndarray,
    b: np.ndarray,
    tied: bool = False,
    ridge: float = 1e-3,
    iterations: int = 30,
    markers: bool = True,
    head: HeadMoments | None = None,
) -> LearnedScore:
    """A learned test of "came from a" over the whole output vector (:class:`LearnedScore`):
    regularised logistic regression, by Newton's method (IRLS), on the runs given.

    Features are standardised, and a ridge penalty keeps the Newton steps defined when the classes
    separate. ``tied``: one weight per feature group — the sums over coordinates of z_j, z_j² and
    sgn z_j — else one weight per coordinate and group.

    Float outputs that mix markers with numbers (``markers``; :func:`output_markers`: a numeric
    sparse vector's ⊥ and "stopped" among its released numbers) have each coordinate's numbers
    standardised alone, about their own centre, and one indicator feature per marker (and
    coordinate, untied): standardised with the markers, a released number's z is its distance
    from a centre between the markers and the numbers, and its sign says only that it is a
    number — not on which side of the inputs' midpoint it lies, the privacy loss of a number
    released with Laplace noise (NumericalSVT: 0.009 at 10⁶ runs without, 0.02–0.03 with).
    ``head``: :func:`head_moments` of ``a``, ``b`` (with ``markers``), when already made.
    """
    rows_a = np.asarray(a, dtype=float).reshape(len(a), -1)
    rows_b = np.asarray(b, dtype=float).reshape(len(b), -1)
    d = rows_a.shape[1]
    if head is None:
        rows = np.concatenate([rows_a[:DISTINGUISHER_ROWS], rows_b[:DISTINGUISHER_ROWS]])
        values = output_markers(np.asarray(a), rows) if markers else np.empty(0)
        centre, scale = _moments(rows, values)
    else:
        values, centre, scale = (x.copy() for x in head)
    scale[scale == 0] = 1.0
    # One matrix, filled in place: the feature groups (z, z², sign z, one indicator group per
    # marker; summed over the coordinates when tied), max z, min z, then the intercept's ones.
    marked = [np.concatenate([rows_a == value, rows_b == value]) for value in values]
    groups = 3 + len(marked)
    features = (groups if tied else groups * d) + 2
    design = np.empty((len(rows_a) + len(rows_b), features + 1))
    z = np.empty((len(design), d)) if tied else design[:, :d]
    for rows, part in ((rows_a, z[: len(rows_a)]), (rows_b, z[len(rows_a) :])):
        np.subtract(rows, centre, out=part)
    z /= scale
    if marked:
        z[np.logical_or.reduce(marked)] = 0.0
    if tied:
        for column, group in enumerate((z, z * z, np.sign(z), *marked)):
            design[:, column] = group.sum(axis=1)
    else:
        np.multiply(z, z, out=design[:, d : 2 * d])
        np.sign(z, out=design[:, 2 * d : 3 * d])
        for k, entries in enumerate(marked, start=3):
            design[:, k * d : (k + 1) * d] = entries
    for column, extreme in ((features - 2, np.maximum), (features - 1, np.minimum)):
        # along the short rows a reduction is slow; column by column, the same values
        value = z[:, 0].copy()
        for j in range(1, d):
            extreme(value, z[:, j], out=value)
        design[:, column] = value
    column_scale = design[:, :features].std(axis=0)
    column_scale[column_scale == 0] = 1.0
    design[:, :features] /= column_scale
    design[:, features] = 1.0
    weights = logistic_in_place(design, len(rows_a), ridge, iterations) / column_scale
    per_group = [np.full(d, w) for w in weights[:groups]] if tied else np.split(weights[: groups * d], groups)
    return LearnedScore(
        centre,
        scale,
        *per_group[:3],
        weights[-2:],
        tied,
        values,
        np.asarray(per_group[3:]).reshape(len(values), d),
    )  # type: ignore[call-arg]  # per_group holds the three weight groups


def output_markers(outputs: np.ndarray, head: np.ndarray) -> np.ndarray:
    """The markers of float outputs that mix them with numbers: the atoms of ``head`` (the first
    runs of both inputs as rows, :func:`~dpledger.verify.audit.montecarlo.atom_patterns.find_atoms`)
    when some entries are not atoms; none for integer outputs, or outputs of atoms alone (a
    sparse vector's ⊤/⊥ bits, whose z, z² and sign already span every function of three values)."""
    if outputs.dtype.kind != "f":
        return np.empty(0)
    atoms = find_atoms(head)
    return atoms if atoms.size and not np.isin(head, atoms).all() else np.empty(0)


LEARNED = Family("distinguisher", lambda a, b, kind: fits_apply(a), distinguisher_candidates)
