"""Exponential-mechanism conformance: do a mechanism's draws follow the pmf its event declares?

A release of kind ``"exponential_mechanism"`` (:mod:`dpledger.learners.releases`) carries its
scores (per candidate, or per group with the group sizes), the sensitivity Δ it declared and its
event ``ExponentialMechanism(ε, |candidates|)``. The event's guarantee is McSherry–Talwar's for
the pmf over groups

    p_g ∝ c_g · exp(ε·s_g/(2Δ))     (c_g candidates of score s_g in group g),

so a mechanism whose weights use another ε (or Δ) than it declares releases something else.
:func:`exponential_conformance` redraws the mechanism ``draws`` times on the recorded scores
(through the caller's ``draw``, the code's own sampler) and tests the group counts against p by
Pearson's χ² goodness of fit: groups are pooled, least likely first, until every pooled cell
expects at least :data:`MIN_EXPECTED` draws (the χ² approximation's usual condition), and the
p-value is that of χ² with (cells − 1) degrees of freedom. The test rejects when the p-value is
below 1 − ``confidence``: a sampler that is exactly the declared mechanism is rejected with
probability ≈ 1 − ``confidence`` (the false-alarm rate, up to the χ² approximation; the
tests use confidence 0.999).

:func:`group_of` maps a release's output to its group: the index itself for listed scores, the
run of a point (``"runs"``), the slot of a value (``"slots"``), the cell of an interval
(``"cells"``); for ``"levels"`` the draw must return the group index.

p is computed from exact rationals in high precision (mpmath), each group's log-weight
log c_g + ε·s_g/(2Δ) shifted by the largest, so huge counts and scores never overflow; the
statistic is a float64 sum (it decides a statistical test, not a certified bound).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from dpledger.learners import releases
from dpledger.learners.randomness import Randomness, Sampled

MIN_EXPECTED = 5.0
"""The least expected count of a pooled χ² cell."""


@dataclass(frozen=True)
class ConformanceResult:
    """A χ² test of redrawn groups against the declared pmf.

    Attributes:
        draws: How many draws were made.
        statistic: Pearson's χ².
        cells: The pooled cells (degrees of freedom + 1).
        p_value: The upper tail of χ²(cells − 1) at ``statistic`` (1.0 with a single cell).
        confidence: The test's confidence; it rejects when p_value < 1 − confidence.
    """

    draws: int
    statistic: float
    cells: int
    p_value: float
    confidence: float

    @property
    def conforms(self) -> bool:
        """Whether the draws are consistent with the declared pmf at the confidence."""
        return self.p_value >= 1 - self.confidence


def group_probabilities(release: releases.Release, epsilon: Fraction | None = None) -> np.ndarray:
    """p_g ∝ c_g·exp(ε·s_g/(2Δ)) over the release's groups (module docstring).

    Args:
        release: An exponential-mechanism release.
        epsilon: The ε to weight by; default the ε of the release's event.

    Returns:
        The probabilities of the groups, in the release's group order (float64, summing to 1).

    Raises:
        ValueError: If the release is not an exponential-mechanism release.
    """
    if release.kind != "exponential_mechanism":
        raise ValueError(f"a {release.kind} release has no exponential-mechanism pmf")
    eps = Fraction(release.event.epsilon if epsilon is None else epsilon)
    scale = eps / (2 * release.sensitivity)
    counts = release.counts if release.counts is not None else (1,) * release.statistic.size
    with mpmath.workdps(40):
        logs = [
            mpmath.log(c) + _mp(scale * Fraction(score)) if c else None
            for score, c in zip(release.statistic.tolist(), counts, strict=True)
        ]
        top = max(v for v in logs if v is not None)
        weights = [mpmath.mpf(0) if v is None else mpmath.exp(v - top) for v in logs]
        total = mpmath.fsum(weights)
        return np.array([float(w / total) for w in weights])


def _mp(value: Fraction) -> Any:
    return mpmath.mpf(value.numerator) / value.denominator


def group_of(release: releases.Release, output: Any) -> int:
    """The group of the release's candidates that ``output`` belongs to (module docstring).

    Args:
        release: The release whose groups are meant.
        output: An output of the mechanism (for ``"levels"``, the group index).

    Returns:
        The group index.
    """
    if release.layout in ("listed", "levels"):
        return int(output)
    bounds = release.breakpoints or ()
    if release.layout == "runs":
        return bisect.bisect_right(bounds, output) - 1
    if release.layout == "slots":
        j = bisect.bisect_left(bounds, output)
        return 2 * j + 1 if j < len(bounds) and bounds[j] == output else 2 * j
    low, high = (bisect.bisect_right(bounds, v) - 1 for v in output)  # "cells"
    runs = len(bounds) - 1
    return low * runs - low * (low - 1) // 2 + (high - low)  # numpy.triu_indices order


def exponential_conformance(
    release: releases.Release,
    draw: Callable[[Randomness], Any],
    draws: int,
    confidence: float = 0.999,
    seed: int = 0,
) -> ConformanceResult:
    """Redraw the mechanism ``draws`` times and test the groups against the declared pmf.

    Args:
        release: The recorded release (scores, Δ, event).
        draw: One draw of the mechanism on the recorded scores from the given randomness (the
            code's own sampler), returning an output :func:`group_of` maps to a group.
        draws: How many draws (estimate: a few thousand decide a factor 2 in ε within seconds).
        confidence: The test's confidence in (0, 1).
        seed: Seeds the draws (one ``Sampled`` generator).

    Returns:
        A :class:`ConformanceResult`.

    Raises:
        ValueError: If ``draws`` < 1 or ``confidence`` is not in (0, 1).
    """
    if draws < 1:
        raise ValueError(f"draws must be ≥ 1, got {draws}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    p = group_probabilities(release)
    rng = Sampled(seed)
    observed = np.bincount([group_of(release, draw(rng)) for _ in range(draws)], minlength=len(p))
    expected = p * draws
    if np.any(observed[p == 0] > 0):  # a candidate the declared pmf never draws
        return ConformanceResult(draws, float("inf"), len(p), 0.0, confidence)
    order = np.argsort(expected, kind="stable")
    cells_observed, cells_expected = [], []
    pooled_o = pooled_e = 0.0
    for g in order:
        pooled_o, pooled_e = pooled_o + observed[g], pooled_e + expected[g]
        if pooled_e >= MIN_EXPECTED:
            cells_observed.append(pooled_o)
            cells_expected.append(pooled_e)
            pooled_o = pooled_e = 0.0
    if pooled_e > 0 or pooled_o > 0:
        if cells_expected:
            cells_observed[-1] += pooled_o
            cells_expected[-1] += pooled_e
        else:
            cells_observed, cells_expected = [pooled_o], [pooled_e]
    o, e = np.array(cells_observed), np.array(cells_expected)
    statistic = float(np.sum((o - e) ** 2 / e))
    cells = len(e)
    p_value = 1.0 if cells < 2 else float(stats.chi2.sf(statistic, cells - 1))
    return ConformanceResult(draws, statistic, cells, p_value, confidence)
