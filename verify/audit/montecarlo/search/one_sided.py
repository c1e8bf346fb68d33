"""The one-sided families: outputs one input produced and the other (almost) never.

``one-sided values`` and ``one-sided off-grid`` (:mod:`~dpledger.verify.audit.montecarlo.one_sided`
holds their events): cross-fitted sets of repeated keys (exact values, cells of binned outputs)
for numeric outputs, and the event "off the grid" of snapped outputs; ``one-sided <family>``, the
best one-sided cell of every interval family, is offered by
:func:`~dpledger.verify.audit.montecarlo.search.intervals.interval_candidates`. They are ranked
with the other input's held-out frequency projected as it is
(:meth:`~dpledger.verify.audit.montecarlo.search.objective.Objective.project`, ``shrink_other``):
a count of zero there is what certifies, and shrinking it by a split-1 standard error hid rare
ε = ∞ leaks; and scored — ranked for the audit's level — by their bid, the producing input's
frequency one standard error up (:func:`~dpledger.verify.audit.montecarlo.search.objective.best_cells`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpledger.verify.audit.montecarlo.events import IntervalEvent, Statistic
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.one_sided import (
    MIN_ATOM_HITS,
    MIN_HELD_OUT,
    Keys,
    KeySetEvent,
    KeyView,
    OffGrid,
    Surroundings,
    chance_repeats,
    dense,
    key_counts,
    key_views,
    one_sided_keys,
    output_grid,
    repeats,
    view_keys,
)
from dpledger.verify.audit.montecarlo.search.learned import Fits
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
    two_halves,
)


def one_sided_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: Fits | None = None
) -> SearchResult:
    """Per direction the best one-sided set of keys (:mod:`one_sided`) over the views of the output
    (exact values, cells from fine to coarse): keys the producing input repeats and the other
    (almost) never shows — nor, in a dense view, its surroundings
    (:class:`one_sided.Surroundings`).

    Cross-fitted, as the pattern family: each half of split 1 chooses one set per repeat threshold
    (:func:`one_sided.one_sided_keys`), counted on the other half; the threshold and view of best
    held-out score are kept, among sets of at least ``one_sided.MIN_HELD_OUT`` held-out hits (the
    other input's held-out counts projected as they are, ``shrink_other=False``; the producing
    input's shrunk, as a set won among ~100 on noise). The event is the set chosen by the same rule
    on all of split 1 at twice the threshold: the keys that stay one-sided on twice the runs (the
    union of the halves' sets would add both halves' spurious keys). The atoms of a sparse view —
    repeated exact values of continuous outputs, repeated rows of vectors, which the law of an
    honest output hardly ever repeats — are chosen and scored on all of split 1 at the thresholds
    of a half, with at least ``one_sided.MIN_ATOM_HITS`` runs, at thresholds above what chance
    repeats reach (:func:`one_sided.chance_repeats`): halving split 1 would lose a leak seen a
    handful of times, and there is little noise for a held-out half to expose. Scores are
    bids (:func:`~dpledger.verify.audit.montecarlo.search.objective.best_cells`). ``fits``: the
    audit's keys of earlier stages' runs (:meth:`Fits.row_values`)."""
    halves = (two_halves(a), two_halves(b))
    if min(len(half) for side in halves for half in side) == 0:
        return SearchResult([], 0)
    discrete = output_kind(a) == "discrete"
    views = _Views.of(a, b, kept_keys(pair_index, fits))
    best: dict[tuple[bool, str], Candidate] = {}
    examined = 0
    for v, view in enumerate(views.views):
        sparse = view.width is None and not dense(np.concatenate([views.sorted(v, 0), views.sorted(v, 1)]))
        chance = chance_repeats(views.sorted(v, 0), views.sorted(v, 1)) if sparse else 0
        for forward in (True, False):
            p, q = (0, 1) if forward else (1, 0)
            if sparse:
                members, sets = one_sided_keys(views.sorted(v, p), views.sorted(v, q), discrete)
                counts = (
                    sets.astype(np.int64) @ key_counts(views.sorted(v, p), members),
                    views.runs[p],
                    sets.astype(np.int64) @ key_counts(views.sorted(v, q), members),
                    views.runs[q],
                )
                evident = (counts[0] >= MIN_ATOM_HITS) & (repeats(discrete) > chance)
            else:
                chosen = []
                for h in (0, 1):
                    around = views.around(v, p, h)  # first: it sorts the keys with their order
                    chosen.append(
                        one_sided_keys(views.sorted(v, p, h), views.sorted(v, q, h), discrete, around=around)
                    )
                held_out = [
                    sum(
                        (
                            sets.astype(np.int64) @ key_counts(views.sorted(v, side, 1 - h), members)
                            for h, (members, sets) in enumerate(chosen)
                        ),
                        np.zeros(len(repeats(discrete)), dtype=np.int64),
                    )
                    for side in (p, q)
                ]
                counts = (held_out[0], views.runs[p], held_out[1], views.runs[q])
                evident = held_out[0] >= MIN_HELD_OUT
            examined += len(counts[0])
            if not evident.any():
                continue
            for index, score, suffix in best_cells(
                counts, counts, objective, forward, evident, shrink_other=False, bid=True
            ):
                kept = best.get((forward, suffix))
                if kept is not None and kept.score >= score:
                    continue
                if not sparse:
                    members, sets = one_sided_keys(
                        views.sorted(v, p), views.sorted(v, q), discrete, 2, views.around(v, p, None)
                    )
                chosen_keys = members[sets[index]]
                if not chosen_keys.size:
                    continue
                producing = (a, b)[p]
                shown = tuple(
                    np.asarray(x).tolist() for x in producing[np.isin(views.keys[v][p], chosen_keys)][:4]
                )
                best[(forward, suffix)] = Candidate(
                    pair_index,
                    forward,
                    KeySetEvent(view, chosen_keys, shown),
                    "one-sided values" + suffix,
                    score,
                )
    return SearchResult(list(best.values()), examined)


@dataclass(frozen=True)
class _Views:
    """The split-1 runs ``outputs`` of both inputs, their ``keys`` in every view of
    :func:`one_sided.key_views` (per view and input), and the outputs' ``grid``; keys are sorted
    once per view, input and part of the runs (:meth:`sorted`)."""

    outputs: tuple[np.ndarray, np.ndarray]
    views: list[KeyView]
    keys: list[list[np.ndarray]]
    grid: float | None
    sorted_keys: dict[tuple[int, int, int | None], np.ndarray] = field(default_factory=dict)
    orders: dict[tuple[int, int, int | None], np.ndarray] = field(default_factory=dict)

    @staticmethod
    def of(a: np.ndarray, b: np.ndarray, keys: Keys) -> _Views:
        views = key_views(a, b, keys=keys)
        return _Views(
            (a, b),
            views,
            [[keys(view, side, x) for side, x in enumerate((a, b))] for view in views],
            output_grid(a, b),
        )

    @property
    def runs(self) -> tuple[int, int]:
        return len(self.outputs[0]), len(self.outputs[1])

    @staticmethod
    def part(values: np.ndarray, half: int | None) -> np.ndarray:
        """``values`` of one half of split 1's runs, or of all of them (None)."""
        return values if half is None else two_halves(values)[half]

    def sorted(self, v: int, side: int, half: int | None = None) -> np.ndarray:
        """The keys of view ``v`` of input ``side``'s runs — of one half of them — sorted (once)."""
        if (v, side, half) not in self.sorted_keys:
            self.sorted_keys[v, side, half] = np.sort(self.part(self.keys[v][side], half))
        return self.sorted_keys[v, side, half]

    def order(self, v: int, side: int, half: int | None = None) -> np.ndarray:
        """The order that sorts the keys of :meth:`sorted` (which it sorts too, when not yet done)."""
        if (v, side, half) not in self.orders:
            keys = self.part(self.keys[v][side], half)
            self.orders[v, side, half] = order = np.argsort(keys)
            self.sorted_keys.setdefault((v, side, half), keys[order])
        return self.orders[v, side, half]

    def around(self, v: int, side: int, half: int | None) -> Surroundings | None:
        """The surroundings of view ``v``'s keys of input ``side`` on a half of split 1 (None: all of
        it); None where keys are counted alone — exact values on no grid."""
        view = self.views[v]
        if view.width is None and self.grid is None:
            return None
        parent = None
        if v + 1 < len(self.views):
            above = self.views[v + 1]
            parent = (above, self.sorted(v + 1, 1 - side, half), parent_volume(view, above, self.grid))
        order = self.order(v, side, half)
        return Surroundings(
            view,
            self.grid or 0.0,
            self.part(self.outputs[side], half),
            order,
            self.sorted(v, side, half),
            self.sorted(v, 1 - side, half),
            parent,
        )


def off_grid_candidates(
    a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective, fits: Fits | None = None
) -> SearchResult:
    """Per direction the event "some coordinate off the grid" of snapped outputs
    (:class:`one_sided.OffGrid`, the grid found on split 1 by :func:`one_sided.output_grid`): one event fixed
    by the grid, so chosen by nothing and scored on all of split 1, the other input's counts as
    they are (``shrink_other=False``). ``fits``: the audit's counts of earlier stages' runs
    (:meth:`Fits.row_values`)."""
    grid = output_grid(a, b)
    if grid is None:
        return SearchResult([], 0)
    statistic = OffGrid(grid)
    fitted = fits or Fits()
    off = [
        np.asarray([np.count_nonzero(fitted.row_values(pair_index, side, statistic, statistic, x) > 0)])
        for side, x in enumerate((a, b))
    ]
    out = []
    for forward in (True, False):
        p, q = (0, 1) if forward else (1, 0)
        counts = (off[p], len((a, b)[p]), off[q], len((a, b)[q]))
        for _, score, suffix in best_cells(counts, counts, objective, forward, shrink_other=False, bid=True):
            event = IntervalEvent(0.0, math.inf, statistic)
            out.append(Candidate(pair_index, forward, event, "one-sided off-grid" + suffix, score))
    return SearchResult(out, 2)


def parent_volume(view: KeyView, parent: KeyView, grid: float | None) -> float:
    """A key's volume in units of its parent's: the ratio of their cell widths over the
    coordinates, an exact value taking the outputs' grid as its width."""
    assert parent.width is not None  # every view but the first is of cells
    width = view.width if view.width is not None else np.full_like(parent.width, grid or 0.0)
    return float(np.prod(width / parent.width))


def one_sided_statistics(a: np.ndarray, b: np.ndarray, *, keys: Keys = view_keys) -> list[Statistic]:
    """The statistics of the one-sided families (:mod:`one_sided`) on outputs like ``a``, ``b``: the
    key views and, for snapped outputs, the off-grid count — kept on reduced runs too, so that a
    rare one-sided output is estimated however the runs travel (the views of snapped outputs
    depend on their grid alone, hence are the same statistics at every stage — but for the views
    of cells, left out where no two of the first runs share a coarsest cell: should a later stage
    offer them, their events are not estimated on reduced runs, a choice made on split 1).
    ``keys``: the views' keys of the runs (:data:`one_sided.Keys`)."""
    grid = output_grid(a, b)
    return [*key_views(a, b, keys=keys), *([OffGrid(grid)] if grid is not None else [])]


def kept_keys(pair_index: int, fits: Fits | None) -> Keys:
    """:data:`one_sided.Keys` of the pair's split-1 runs, kept in ``fits`` across stages."""
    fitted = fits or Fits()

    def keys(view: KeyView, side: int, runs: np.ndarray) -> np.ndarray:
        return fitted.row_values(pair_index, side, view.signature, view, runs)

    return keys


KEY_SETS = Family(
    "one-sided values",
    lambda a, b, kind: kind != "discrete" or a.dtype.kind in "biuf",
    lambda a, b, pair_index, objective, fits: [one_sided_candidates(a, b, pair_index, objective, fits)],
)
OFF_GRID = Family(
    "one-sided off-grid",
    lambda a, b, kind: a.dtype.kind in "biuf",
    lambda a, b, pair_index, objective, fits: [off_grid_candidates(a, b, pair_index, objective, fits)],
)
