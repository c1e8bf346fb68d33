"""Observed sensitivity: a mechanism's own statistics on neighbouring datasets against what each
release declares, under a fixed history of outputs.

A ledger records the sensitivity the code *declared*; a learner whose code halves it records the
halved value and the halved noise together, and the accountant certifies the record. This module
measures the other side. :func:`observed_sensitivity` runs ``run(data)`` inside
:func:`dpledger.learners.releases.record`, then ``run(neighbour)`` for every neighbour inside
:func:`dpledger.learners.releases.replay` of that record — every release forced to output what
the recorded run output, so the j-th statistic on the neighbour is the one the mechanism computes
*given the same history* (adaptive composition conditions on it) — and compares the j-th
statistics of the two runs in the norm of the release's kind
(:data:`dpledger.learners.releases.NORMS`):

* noise (discrete Gaussian / Laplace): ‖v − v′‖₂ or ‖v − v′‖₁ of the pre-noise statistics;
* the exponential mechanism: max over candidates of |s(c) − s′(c)|. Listed scores are compared
  candidate by candidate. Grouped scores are compared on the common refinement of both runs'
  groups: ``"runs"`` and ``"cells"`` at one integer (pair) of every refined run (cell), ``"slots"``
  at every breakpoint and one rational inside every open gap that holds a domain element — each
  is exactly the largest change over all candidates, since both score functions are constant on
  every refined piece. ``"levels"`` (only how many candidates have each score) gives the
  smallest largest change any matching of the two multisets of scores allows (the sorted
  matching): a lower bound on the true change, so a release it shows above its declared
  sensitivity is certainly wrong.

A neighbour whose replay raises :class:`~dpledger.learners.releases.ReplayMismatch` (another
number, kind or size of releases, or another data-dependent candidate set) is not comparable
under that history; it is counted in :attr:`SensitivityReport.mismatches`, never silently
compared. The changes are computed in float64 from float64 statistics; they decide a test by a
comparison with the declared sensitivity, so :data:`TOLERANCE` (far below any sensitivity the
learners declare, far above the rounding of their sums) is the slack allowed.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from dpledger.learners import releases

D = TypeVar("D")

TOLERANCE = 1e-9
"""Relative slack on observed ≤ declared for float64 statistics (module docstring)."""


@dataclass(frozen=True)
class ReleaseSensitivity:
    """One release position of the recorded run against all comparable neighbours.

    Attributes:
        position: The release's index in the recorded run.
        kind: The release's kind.
        declared: The sensitivity the recorded release's event declares, in real units
            (:func:`declared_sensitivity`: for noise the event's
            grid-unit sensitivity less its rounding allowance, times γ; for the exponential
            mechanism the Δ its weights divide by).
        observed: The largest change of its statistic over the neighbours (same norm and units).
        worst: The index (in the neighbours given) of a neighbour reaching ``observed``, or None.
    """

    position: int
    kind: str
    declared: Fraction
    observed: float
    worst: int | None

    @property
    def ratio(self) -> float:
        """observed / declared."""
        return self.observed / float(self.declared)

    @property
    def within(self) -> bool:
        """Whether observed ≤ declared (up to :data:`TOLERANCE`)."""
        return self.observed <= float(self.declared) * (1 + TOLERANCE)


@dataclass(frozen=True)
class SensitivityReport:
    """What :func:`observed_sensitivity` found.

    Attributes:
        releases: One entry per release of the recorded run.
        compared: How many neighbours were compared under the recorded history.
        mismatches: How many neighbours' replays did not match the recorded run's shape.
        moved: For every compared neighbour, the positions of the releases whose statistic
            changed: releases that read the substituted record. Two of them in one tuple means
            the record is shared by those releases (no parallel composition between them).
    """

    releases: tuple[ReleaseSensitivity, ...]
    compared: int
    mismatches: int
    moved: tuple[tuple[int, ...], ...]

    @property
    def exceeded(self) -> tuple[ReleaseSensitivity, ...]:
        """The releases whose observed change exceeds their declared sensitivity."""
        return tuple(r for r in self.releases if not r.within)

    def ratio(self, kind: str | None = None) -> float:
        """The largest observed/declared ratio (over the releases of ``kind``, or all)."""
        ratios = [r.ratio for r in self.releases if kind is None or r.kind == kind]
        return max(ratios, default=0.0)


def declared_sensitivity(release: releases.Release) -> Fraction:
    """The sensitivity a release's event declares, in real units.

    Args:
        release: A release.

    Returns:
        For noise, the event's grid-unit sensitivity less the rounding allowance, times γ:
        (Δ′ − √D)·γ (discrete Gaussian) or (Δ′₁ − D)·γ (discrete Laplace); for the exponential
        mechanism, whose event is ε-DP for the Δ its weights divide by, that Δ.
    """
    event = release.event
    if release.kind == "exponential_mechanism":
        return release.sensitivity
    gamma = Fraction(release.gamma) if release.gamma is not None else Fraction(1)
    dimension = max(release.size, 1)
    if release.kind == "discrete_gaussian":
        units = float(event.sensitivity_units) - math.sqrt(dimension)
        return Fraction(units) * gamma
    return (Fraction(event.sensitivity_units) - dimension) * gamma


def observed_sensitivity(run: Callable[[D], Any], data: D, neighbours: Iterable[D]) -> SensitivityReport:
    """The statistics of ``run`` on ``data`` and on each neighbour, release by release, under the
    history of outputs of the run on ``data``.

    Args:
        run: Runs the mechanism (its randomness seeded inside, the same on every call, so its
            data-independent coins agree between the runs).
        data: The dataset whose run fixes the history.
        neighbours: Datasets neighbouring ``data`` under the release's relation.

    Returns:
        A :class:`SensitivityReport`.

    Raises:
        ValueError: If the run on ``data`` makes no release.
    """
    with releases.record() as recorded:
        run(data)
    if not recorded:
        raise ValueError("the run made no private release: nothing to compare")
    worst = [0.0] * len(recorded)
    where: list[int | None] = [None] * len(recorded)
    compared = mismatches = 0
    moved: list[tuple[int, ...]] = []
    for index, neighbour in enumerate(neighbours):
        try:
            with releases.replay(recorded) as replayed:
                run(neighbour)
        except releases.ReplayMismatch:
            mismatches += 1
            continue
        if len(replayed) != len(recorded):
            mismatches += 1
            continue
        compared += 1
        changes = [change(a, b) for a, b in zip(recorded, replayed, strict=True)]
        moved.append(tuple(j for j, c in enumerate(changes) if c > 0))
        for j, c in enumerate(changes):
            if where[j] is None or c > worst[j]:
                worst[j], where[j] = c, index
    entries = tuple(
        ReleaseSensitivity(j, r.kind, declared_sensitivity(r), worst[j], where[j])
        for j, r in enumerate(recorded)
    )
    return SensitivityReport(entries, compared, mismatches, tuple(moved))


def change(recorded: releases.Release, replayed: releases.Release) -> float:
    """The change of one release's statistic between two runs, in its kind's norm (module docstring).

    Args:
        recorded: The release of the run on the dataset.
        replayed: The release at the same position of the run on a neighbour.

    Returns:
        ‖v − v′‖ for noise; the largest change of any candidate's score for the exponential
        mechanism (a lower bound on it for the ``"levels"`` layout).

    Raises:
        ValueError: If the two releases are of different kinds or layouts.
    """
    if recorded.kind != replayed.kind or recorded.layout != replayed.layout:
        raise ValueError("the releases differ in kind or layout: not the same release")
    a, b = recorded.statistic, replayed.statistic
    if recorded.kind == "discrete_gaussian":
        return float(np.linalg.norm(a - b))
    if recorded.kind == "discrete_laplace":
        return float(np.abs(a - b).sum())
    if recorded.layout == "listed":
        return float(np.abs(a - b).max())
    measure = {"runs": _runs_change, "cells": _cells_change, "slots": _slots_change, "levels": _levels_change}
    return float(measure[recorded.layout](recorded, replayed))


def _refined(first: Sequence[Any], second: Sequence[Any]) -> list[Any]:
    return sorted(set(first) | set(second))


def _run_of(breakpoints: Sequence[Any], point: Any) -> int:
    return bisect.bisect_right(breakpoints, point) - 1


def _runs_change(a: releases.Release, b: releases.Release) -> float:
    """Integer runs [b_r, b_{r+1}): compare at the start of every run of the common refinement."""
    pa, pb = _bounds(a), _bounds(b)
    starts = _refined(pa, pb)[:-1]
    return max(abs(a.statistic[_run_of(pa, x)] - b.statistic[_run_of(pb, x)]) for x in starts)


def _cells_change(a: releases.Release, b: releases.Release) -> float:
    """Pairs a ≤ b by (run of a, run of b) cells: compare at one pair of every refined cell."""
    pa, pb = _bounds(a), _bounds(b)
    starts = _refined(pa, pb)[:-1]
    index_a, index_b = _cell_index(len(pa) - 1), _cell_index(len(pb) - 1)
    largest = 0.0
    for low, high in itertools.combinations_with_replacement(starts, 2):
        sa = a.statistic[index_a[_run_of(pa, low), _run_of(pa, high)]]
        sb = b.statistic[index_b[_run_of(pb, low), _run_of(pb, high)]]
        largest = max(largest, abs(sa - sb))
    return largest


def _cell_index(runs: int) -> np.ndarray:
    rows, cols = np.triu_indices(runs)
    index = np.full((runs, runs), -1, dtype=np.int64)
    index[rows, cols] = np.arange(len(rows))
    return index


def _slots_change(a: releases.Release, b: releases.Release) -> float:
    """Slots of the line (a breakpoint, or the open gap between two): compare at every breakpoint
    and at a point of every gap of the common refinement, where the domain has an element."""
    pa, pb = list(_bounds(a)), list(_bounds(b))
    points = _refined(pa, pb)
    probes = list(points)
    probes += [(x + y) / 2 for x, y in itertools.pairwise(points)]
    probes += [points[0] - 1, points[-1] + 1] if points else [Fraction(0)]
    largest = 0.0
    for z in probes:
        slot_a, slot_b = _slot_of(pa, z), _slot_of(pb, z)
        if a.counts is not None and not a.counts[slot_a] and b.counts is not None and not b.counts[slot_b]:
            continue
        largest = max(largest, abs(a.statistic[slot_a] - b.statistic[slot_b]))
    return largest


def _slot_of(breakpoints: list[Any], z: Any) -> int:
    j = bisect.bisect_left(breakpoints, z)
    return 2 * j + 1 if j < len(breakpoints) and breakpoints[j] == z else 2 * j


def _levels_change(a: releases.Release, b: releases.Release) -> float:
    """Scores known by level only: the sorted matching of the two multisets of scores (the
    matching that minimises the largest difference), over the pieces of both cumulative counts."""
    ends_a = list(itertools.accumulate(a.counts or ()))
    ends_b = list(itertools.accumulate(b.counts or ()))
    largest = 0.0
    for rank in _refined([0, *ends_a[:-1]], [0, *ends_b[:-1]]):
        sa = a.statistic[bisect.bisect_right(ends_a, rank)]
        sb = b.statistic[bisect.bisect_right(ends_b, rank)]
        largest = max(largest, abs(sa - sb))
    return largest


def _bounds(release: releases.Release) -> tuple[Any, ...]:
    if release.breakpoints is None:
        raise ValueError(f"a {release.layout} release without breakpoints")
    return release.breakpoints
