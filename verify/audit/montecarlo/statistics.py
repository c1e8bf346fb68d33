"""Exact binomial bounds and the privacy-loss bounds derived from them.

The auditor observes, for an event E and a neighbour pair (D, D'), ``k_p`` hits among ``n_p``
runs on D and ``k_q`` hits among ``n_q`` runs on D'. (ε, δ)-DP requires
``P[M(D) ∈ E] ≤ e^ε P[M(D') ∈ E] + δ``; with a lower confidence bound ``p_lo`` on the first
probability and an upper bound ``q_hi`` on the second, ``ε ≥ log((p_lo − δ) / q_hi)``.

* Bounds that decide a verdict are one-sided Clopper–Pearson bounds (Clopper & Pearson 1934,
  "The use of confidence or fiducial limits illustrated in the case of the binomial",
  Biometrika 26): exact, never anti-conservative. scipy's beta quantile is accurate to about
  1e-13 relative; every bound is widened by 1e-9 relative and then checked against the binomial
  tail (the regularized incomplete beta function), widening further until the check holds, so
  that rounding never moves a bound to the wrong side.
* The ε and δ bounds are rounded towards −∞ (``numpy.nextafter``).
* The event *search* ranks candidates with the Wilson score bound (Wilson 1927), a fast
  closed form; the search only chooses which events to test, so its approximation costs power,
  never validity.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

_WIDEN = 1e-9
_TAIL_SLACK = 1e-12


def _check_counts(k: int, n: int, alpha: float) -> None:
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 ≤ k ≤ n and n ≥ 1, got k={k}, n={n}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")


def clopper_pearson_lower(k: int, n: int, alpha: float) -> float:
    """One-sided exact lower bound: ``P[p ≥ bound] ≥ 1 − alpha`` for k successes in n trials.

    The bound is the p with ``P_p[X ≥ k] = alpha`` (Clopper–Pearson 1934), i.e. the
    ``alpha``-quantile of Beta(k, n − k + 1); 0 when k = 0.
    """
    _check_counts(k, n, alpha)
    if k == 0:
        return 0.0
    bound = float(stats.beta.ppf(alpha, k, n - k + 1)) * (1.0 - _WIDEN)
    # P_p[X ≥ k] = I_p(k, n − k + 1) must not exceed alpha at the reported bound.
    while bound > 0.0 and special.betainc(k, n - k + 1, bound) > alpha * (1.0 - _TAIL_SLACK):
        bound *= 1.0 - 1e-6
    return bound


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """One-sided exact upper bound: ``P[p ≤ bound] ≥ 1 − alpha`` for k successes in n trials.

    The p with ``P_p[X ≤ k] = alpha``, the ``(1 − alpha)``-quantile of Beta(k + 1, n − k);
    1 when k = n. With k = 0 it is ``1 − alpha^(1/n)`` ≈ ``log(1/alpha)/n``, so the ε bound
    it feeds has no ceiling: it grows like ``log(n)``.
    """
    _check_counts(k, n, alpha)
    if k == n:
        return 1.0
    bound = min(float(stats.beta.ppf(1.0 - alpha, k + 1, n - k)) * (1.0 + _WIDEN), 1.0)
    # P_q[X ≤ k] = 1 − I_q(k + 1, n − k) must not exceed alpha at the reported bound.
    while bound < 1.0 and special.betaincc(k + 1, n - k, bound) > alpha * (1.0 - _TAIL_SLACK):
        bound = min(bound * (1.0 + 1e-6), 1.0)
    return bound


def wilson_bounds(k: np.ndarray, n: np.ndarray | int, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (Wilson 1927) for arrays of counts: fast ranking bounds for search."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    centre = k + z * z / 2.0
    spread = z * np.sqrt(np.maximum(k * (1.0 - k / n), 0.0) + z * z / 4.0)
    denominator = n + z * z
    return np.maximum(centre - spread, 0.0) / denominator, np.minimum((centre + spread) / denominator, 1.0)


def epsilon_lower(p_lower: float, q_upper: float, delta: float) -> float:
    """``log((p_lo − δ) / q_hi)`` rounded down; −inf when ``p_lo ≤ δ``, +inf when q_hi = 0."""
    numerator = p_lower - delta
    if numerator <= 0.0:
        return -math.inf
    if q_upper <= 0.0:
        return math.inf
    log_p, log_q = math.log(numerator), math.log(q_upper)
    # Each logarithm, the subtraction p_lo − δ and the difference err by at most an ulp or so:
    # subtract a margin covering all of them, then step once more towards −inf.
    margin = 4.0 * math.ulp(1.0) * (abs(log_p) + abs(log_q) + 1.0)
    return float(np.nextafter(log_p - log_q - margin, -np.inf))


def delta_lower(p_lower: float, q_upper: float, epsilon: float) -> float:
    """``p_lo − e^ε q_hi`` rounded down: a lower bound on δ(ε) (possibly negative: no evidence)."""
    scaled = math.exp(epsilon) * q_upper
    margin = 4.0 * math.ulp(1.0) * (p_lower + scaled)
    return float(np.nextafter(p_lower - scaled - margin, -np.inf))


def epsilon_lower_search(
    k_p: np.ndarray, n_p: int, k_q: np.ndarray, n_q: int, delta: float, z: float
) -> np.ndarray:
    """Vectorised ε lower bounds from Wilson bounds: the objective of the event search."""
    p_low, _ = wilson_bounds(k_p, n_p, z)
    _, q_high = wilson_bounds(k_q, n_q, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log(p_low - delta) - np.log(q_high)
    return np.where(p_low > delta, values, -np.inf)


def search_z(alpha: float) -> float:
    """The normal quantile used by the search for a one-sided bound at level ``alpha``."""
    return float(stats.norm.isf(alpha))


def delta_lower_search(
    k_p: np.ndarray, n_p: int, k_q: np.ndarray, n_q: int, epsilon: float, z: float
) -> np.ndarray:
    """Vectorised δ lower bounds ``p_lo − e^ε q_hi`` at the claimed ε from Wilson bounds: the
    search objective of the events that test an (ε, δ) claim through δ."""
    p_low, _ = wilson_bounds(k_p, n_p, z)
    _, q_high = wilson_bounds(k_q, n_q, z)
    return p_low - math.exp(epsilon) * q_high


STAGE_GROWTH = 4.0
"""Each stage's share of alpha is this many times the previous stage's."""


def stage_alphas(alpha: float, stages: int) -> list[float]:
    """Split ``alpha`` over sequential stages, each stage ``STAGE_GROWTH`` times the previous one
    (weights 1, 4, 16, … normalised; the last of 4 stages keeps 64/85 ≈ 75 %).

    A union bound over stages makes every stage's bound hold simultaneously with probability
    ≥ 1 − alpha, so stopping at any stage — e.g. as soon as a violation is certified — and
    reporting the largest bound seen is valid. The early stages see a fraction of the runs and
    are there to stop early on blatant violations, which need little confidence; most of alpha is
    kept for the last, largest stage, whose bound is the one that measures power.
    """
    weights = [STAGE_GROWTH**s for s in range(stages)]
    total = sum(weights)
    return [alpha * w / total for w in weights]


LEAD_SHARE = 0.75
"""Share of a level given to the leading one of several ranked choices (candidates, kinds)."""


def ranked_levels(alpha: float, count: int) -> list[float]:
    """Levels for ``count`` choices ranked on split 1, best first: the first gets ``LEAD_SHARE``
    of ``alpha``, the others share the rest equally (a single choice gets all of it).

    A weighted Bonferroni correction: the levels sum to ``alpha``, and the ranking depends on
    split 1 only, so conditionally on split 1 the union bound over the choices holds at
    ``alpha``. Weighting by rank keeps the level of the likely winner close to ``alpha``
    (``z`` grows with ``log(1/level)``), where an equal split would pay for every runner-up.
    """
    if count < 1:
        raise ValueError(f"need at least one choice, got {count}")
    if count == 1:
        return [alpha]
    rest = alpha * (1.0 - LEAD_SHARE) / (count - 1)
    return [alpha * LEAD_SHARE] + [rest] * (count - 1)


def best_possible_epsilon(n_p: int, n_q: int, delta: float, alpha: float) -> float:
    """The largest ε lower bound any event could certify: all n_p hits on D, none on D'."""
    return epsilon_lower(clopper_pearson_lower(n_p, n_p, alpha), clopper_pearson_upper(0, n_q, alpha), delta)
