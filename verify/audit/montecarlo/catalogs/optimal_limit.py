"""The optimal-statistic limit of a Monte Carlo audit, and mechanisms whose likelihood ratio is known.

For a neighbour pair (a, b) with output densities p_a, p_b, the most powerful test of the
privacy inequality at a given event size is the likelihood-ratio event ``{y : L(y) > t}`` with
``L = log(p_a / p_b)`` (Neyman–Pearson 1933). An auditor that knew ``L`` would need no search
and no split: it would estimate ``P[M(a) ∈ E]`` and ``P[M(b) ∈ E]`` on all ``n`` runs of each
input, with two one-sided Clopper–Pearson bounds at ``α/2`` each, and report
``log(p_lo / q_hi)`` for the best threshold ``t``. :func:`optimal_statistic_bound` computes that
bound — *the limit* against which the auditor's power is measured (the "optimal
statistic" of DP-Sniper, Bichsel et al. 2021, Section 4) — choosing t on independent runs, as
an auditor who knew the distributions would choose it (up to the noise of n runs).

The suite (:func:`limit_suite`): DP-Sniper's LaplaceParallel (20 Laplace coordinates at ε/20,
Bichsel et al. 2021, Table 1), a 20-d Laplace vector and a 20-bit randomized-response vector
(true ε 2, spread over every coordinate), Report Noisy Max releasing the maximum value (StatDP's
NoisyMax3, Ding et al. 2018; true 5ε/2 = 0.25) and the scalar Laplace mechanism. Outputs are
snapped to the grid 2⁻¹⁰ like the catalog's; the log-likelihood ratios are those of the
continuous mechanisms, a valid (and, up to the grid, optimal) statistic for the snapped ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import (
    Laplace,
    NoisyMax,
    RandomizedResponseVector,
)
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair
from dpledger.verify.audit.montecarlo.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower,
)

THRESHOLDS = 4000
"""Thresholds scanned by :func:`optimal_statistic_bound` when the statistic takes more values."""


@dataclass(frozen=True)
class LaplaceLogRatio:
    """``log p_a(y)/p_b(y) = Σ_j (|y_j − b_j| − |y_j − a_j|) / scale`` of the Laplace mechanism."""

    scale: float
    a: np.ndarray
    b: np.ndarray

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        rows = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        return (np.abs(rows - self.b) - np.abs(rows - self.a)).sum(axis=1) / self.scale


@dataclass(frozen=True)
class BitFlipLogRatio:
    """Randomized response per bit at ``epsilon``: each differing bit adds ±ε."""

    epsilon: float
    a: np.ndarray
    b: np.ndarray

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        rows = np.asarray(outputs).reshape(len(outputs), -1)
        differ = self.a != self.b
        return self.epsilon * np.where(rows[:, differ] == self.a[differ], 1.0, -1.0).sum(axis=1)


@dataclass(frozen=True)
class NoisyMaxValueLogRatio:
    """The log density ratio of ``max_i (x_i + Lap(scale))`` on answers a and b.

    The density of the maximum is ``Σ_i f(y − x_i) Π_{k≠i} F(y − x_k)`` (f, F: the Laplace
    density and distribution function), evaluated in logarithms.
    """

    scale: float
    a: np.ndarray
    b: np.ndarray

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        y = np.asarray(outputs, dtype=float).reshape(-1, 1)
        return self._log_density(y, self.a) - self._log_density(y, self.b)

    def _log_density(self, y: np.ndarray, answers: np.ndarray) -> np.ndarray:
        u = (y - answers) / self.scale
        log_cdf = np.where(u < 0, math.log(0.5) + np.minimum(u, 0), np.log1p(-0.5 * np.exp(-np.abs(u))))
        log_pdf = math.log(0.5 / self.scale) - np.abs(u)
        return special.logsumexp(log_pdf - log_cdf + log_cdf.sum(axis=1, keepdims=True), axis=1)


@dataclass(frozen=True)
class LimitCase:
    """A mechanism, one neighbour pair, its true ε on the pair and its log-likelihood ratio."""

    name: str
    mechanism: Callable[[Any, int, np.random.Generator], np.ndarray]
    pair: NeighbourPair
    true_epsilon: float
    log_ratio: Callable[[np.ndarray], np.ndarray]


COORDINATES = 20


def limit_suite() -> list[LimitCase]:
    """The mechanisms of the power table, each with its known likelihood ratio."""
    zeros, ones = np.zeros(COORDINATES), np.ones(COORDINATES)
    parallel_scale = COORDINATES / 0.1
    bits_a, bits_b = np.zeros(COORDINATES, dtype=np.int8), np.ones(COORDINATES, dtype=np.int8)
    counts_a, counts_b = np.zeros(5), np.ones(5)
    return [
        LimitCase(
            "laplace",
            Laplace(1.0),
            NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1"),
            1.0,
            LaplaceLogRatio(1.0, np.zeros(1), np.ones(1)),
        ),
        LimitCase(
            "laplace_parallel",
            Laplace(parallel_scale),
            NeighbourPair(zeros, ones, "0 vs 1 in all 20"),
            0.1,
            LaplaceLogRatio(parallel_scale, zeros, ones),
        ),
        LimitCase(
            "laplace_vector_20d",
            Laplace(10.0),
            NeighbourPair(zeros, ones, "0 vs 1 in all 20"),
            2.0,
            LaplaceLogRatio(10.0, zeros, ones),
        ),
        LimitCase(
            "randomized_response_20_bits",
            RandomizedResponseVector(0.1),
            NeighbourPair(bits_a, bits_b, "all bits 0 vs 1"),
            2.0,
            BitFlipLogRatio(0.1, bits_a, bits_b),
        ),
        LimitCase(
            "noisy_max_value",
            NoisyMax(20.0, return_value=True),
            NeighbourPair(counts_a, counts_b, "5 counts 0 vs 1"),
            0.25,
            NoisyMaxValueLogRatio(20.0, counts_a, counts_b),
        ),
    ]


def optimal_statistic_bound(
    ratio_a: np.ndarray, ratio_b: np.ndarray, confidence: float, choose_a: np.ndarray, choose_b: np.ndarray
) -> float:
    """``log(p_lo / q_hi)`` of the best likelihood-ratio event, Clopper–Pearson bounds at
    ``(1 − confidence)/2`` each on the runs ``ratio_a``, ``ratio_b`` (the log-likelihood ratio L
    of each run on a and on b).

    The event — ``{L > t}`` with p on a's runs, or ``{L ≤ t}`` with p on b's runs — is the one
    whose *expected* bound on that many runs is largest, the probabilities of the events read
    from independent runs ``choose_a``, ``choose_b`` (take several times more of them: the choice
    should be that of an auditor who knows the distributions). A threshold chosen on the
    estimation runs themselves would report a noise-inflated maximum over thousands of thresholds,
    not what any test could certify. Thresholds: every distinct value, or ``THRESHOLDS`` pooled
    quantiles plus the tails, scanned with vectorised beta quantiles.
    """
    level = (1.0 - confidence) / 2
    above, threshold = _best_event(np.sort(choose_a), np.sort(choose_b), len(ratio_a), len(ratio_b), level)
    p_runs, q_runs = (ratio_a, ratio_b) if above else (ratio_b, ratio_a)
    k_p = int(np.count_nonzero(p_runs > threshold if above else p_runs <= threshold))
    k_q = int(np.count_nonzero(q_runs > threshold if above else q_runs <= threshold))
    p_lo = clopper_pearson_lower(k_p, len(p_runs), level) if k_p else 0.0
    bound = epsilon_lower(p_lo, clopper_pearson_upper(k_q, len(q_runs), level), 0.0)
    return max(bound, 0.0)


def _best_event(
    sorted_a: np.ndarray, sorted_b: np.ndarray, n_a: int, n_b: int, level: float
) -> tuple[bool, float]:
    """(direction, threshold) of the largest expected bound on ``n_a``, ``n_b`` runs, with the
    event probabilities read from the given runs."""
    pooled = np.concatenate([sorted_a, sorted_b])
    thresholds = np.unique(pooled)
    if len(thresholds) > THRESHOLDS:
        tails = np.logspace(-math.log10(len(pooled)), -1, THRESHOLDS // 4)
        levels = np.concatenate([np.linspace(0, 1, THRESHOLDS), tails, 1 - tails])
        thresholds = np.unique(np.quantile(pooled, levels))
    best, choice = -math.inf, (True, float(thresholds[0]))
    for p_runs, q_runs, n_p, n_q, above in (
        (sorted_a, sorted_b, n_a, n_b, True),
        (sorted_b, sorted_a, n_b, n_a, False),
    ):
        k_p = np.rint(_count(p_runs, thresholds, above) * (n_p / len(p_runs)))
        k_q = np.rint(_count(q_runs, thresholds, above) * (n_q / len(q_runs)))
        with np.errstate(divide="ignore", invalid="ignore"):
            p_lo = np.where(k_p > 0, stats.beta.ppf(level, np.maximum(k_p, 1), n_p - k_p + 1), 0.0)
            q_hi = np.where(k_q < n_q, stats.beta.ppf(1 - level, k_q + 1, np.maximum(n_q - k_q, 1)), 1.0)
            values = np.log(p_lo) - np.log(q_hi)
        index = int(np.nanargmax(values))
        if values[index] > best:
            best, choice = values[index], (above, float(thresholds[index]))
    return choice


def _count(sorted_runs: np.ndarray, thresholds: np.ndarray, above: bool) -> np.ndarray:
    """Runs with ``L > t`` (``above``) or ``L ≤ t`` for every threshold t."""
    at_most = np.searchsorted(sorted_runs, thresholds, side="right")
    return len(sorted_runs) - at_most if above else at_most
