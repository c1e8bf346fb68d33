"""The one-sided families: outputs one input produced and the other (almost) never.

``one-sided values`` and ``one-sided off-grid`` (:mod:`~dpledger.verify.audit.montecarlo.one_sided`
holds their events): cross-fitted sets of repeated keys (exact values, cells of binned outputs)
for numeric outputs, and the event "off the grid" of snapped outputs; ``one-sided <family>``, the
best one-sided cell of every interval family, is offered by
:func:`~dpledger.verify.audit.montecarlo.search.intervals.interval_candidates`. They are ranked
with the other input's held-out frequency projected as it is
(:meth:`~dpledger.verify.audit.montecarlo.search.objective.Objective.project`, ``shrink_other``):
a count of zero there is what certifies, and shrinking it by a split-1 standard error hid rare
ε = ∞ leaks.
"""

from __future__ import annotations

import math

import numpy as np

from dpledger.verify.audit.montecarlo.events import IntervalEvent, Statistic
from dpledger.verify.audit.montecarlo.mechanism import output_kind
from dpledger.verify.audit.montecarlo.one_sided import (
    MIN_HELD_OUT,
    KeySetEvent,
    OffGrid,
    key_counts,
    key_views,
    one_sided_keys,
    output_grid,
)
from dpledger.verify.audit.montecarlo.search.objective import (
    Candidate,
    Family,
    Objective,
    SearchResult,
    best_cells,
    two_halves,
)


def one_sided_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
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
    halves = (two_halves(a), two_halves(b))
    if min(len(half) for side in halves for half in side) == 0:
        return SearchResult([], 0)
    discrete = output_kind(a) == "discrete"
    runs = (len(a), len(b))
    best: dict[tuple[bool, str], Candidate] = {}
    examined = 0
    for view in key_views(a, b):
        whole = [view(x) for x in (a, b)]
        keys = [list(two_halves(side)) for side in whole]
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
            for index, score, suffix in best_cells(
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


def off_grid_candidates(a: np.ndarray, b: np.ndarray, pair_index: int, objective: Objective) -> SearchResult:
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
        for _, score, suffix in best_cells(counts, counts, objective, forward, shrink=False):
            event = IntervalEvent(0.0, math.inf, statistic)
            out.append(Candidate(pair_index, forward, event, "one-sided off-grid" + suffix, score))
    return SearchResult(out, 2)


def one_sided_statistics(a: np.ndarray, b: np.ndarray) -> list[Statistic]:
    """The statistics of the one-sided families (:mod:`one_sided`) on outputs like ``a``, ``b``: the
    key views and, for snapped outputs, the off-grid count — kept on reduced runs too, so that a
    rare one-sided output is estimated however the runs travel (the views of snapped outputs
    depend on their grid alone, hence are the same statistics at every stage)."""
    grid = output_grid(a, b)
    return [*key_views(a, b), *([OffGrid(grid)] if grid is not None else [])]


KEY_SETS = Family(
    "one-sided values",
    lambda a, b, kind: kind != "discrete" or a.dtype.kind in "biuf",
    lambda a, b, pair_index, objective, fits: [one_sided_candidates(a, b, pair_index, objective)],
)
OFF_GRID = Family(
    "one-sided off-grid",
    lambda a, b, kind: a.dtype.kind in "biuf",
    lambda a, b, pair_index, objective, fits: [off_grid_candidates(a, b, pair_index, objective)],
)
