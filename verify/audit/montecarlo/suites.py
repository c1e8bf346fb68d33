"""The mechanism suites of StatDP and DP-Sniper, written here from their papers, with the true ε
on the audited pair, DP-Sniper's published lower bound and the optimal-statistic limit
(issue 18, item 6; run by ``dpledger audit suites`` and ``benchmarks/bench_audit_suites.py``).

* StatDP — Ding, Wang, Wang, Zhang, Kifer 2018, "Detecting Violations of Differential Privacy"
  (CCS): Report Noisy Max with Laplace / exponential noise returning the index (Algs. 5, 6,
  correct) or the value (Algs. 7, 8, not private), the histogram with Lap(1/ε) (Alg. 9, correct)
  and Lap(ε) (Alg. 10, 1/ε-DP), the sparse vector variants of Lyu–Su–Li 2017.
* DP-Sniper — Bichsel, Steffen, Bogunovic, Vechev 2021, "DP-Sniper: Black-Box Discovery of
  Differential Privacy Violations using Classifiers" (IEEE S&P): StatDP's suite at ε = 0.1 plus
  LaplaceMechanism and LaplaceParallel (20 Laplace releases of one query at ε = 0.005 each).
  Its published figures (:attr:`Row.dp_sniper`) are the ε lower bounds (``eps_lcb``, logistic
  regression) of its reference results, ``eval_sp2021/reference-results/dd_search_reg_data.log``
  in github.com/eth-sri/dp-sniper, on the input pair its search found — the pair audited here.

Each mechanism is the catalog's implementation (:mod:`dpledger.verify.audit.montecarlo.catalog`),
whose continuous outputs are snapped to the grid 2⁻¹⁰ (post-processing: the real-number ε is
unchanged; without it every float Laplace would be a ``FLOAT LEAK`` of unbounded ε).

The *optimal-statistic limit* at n runs per input (:attr:`Row.limit`): the best bound one event
fixed in advance could certify from n runs per input at the same confidence — over the level sets
of the known likelihood ratio, Clopper–Pearson bounds at the *expected* hit counts, each at
(1 − confidence)/2 (a typical value, not a maximum: a lucky draw can exceed it). For Report Noisy
Max returning the value the events are thresholds on the value (optimal when the ratio is
monotone); for LaplaceParallel the binomial count of :func:`parallel_limit`. Where the likelihood
ratio has no closed form here (argmax and sparse vector outputs) ``limit`` is None.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpledger.verify.audit.montecarlo.audit import AuditResult, Progress, audit
from dpledger.verify.audit.montecarlo.catalog import Laplace, NoisyMax, SparseVector
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair

EPSILON = 0.1
"""DP-Sniper's (and StatDP's) privacy parameter."""

CONFIDENCE = 0.95
LIMIT_SAMPLES = 10**6


@dataclass(frozen=True)
class Row:
    """A mechanism of the suites, the pair audited, the truth and DP-Sniper's published bound."""

    name: str
    suites: str
    mechanism: Callable
    a: list[float]
    b: list[float]
    true_epsilon: float
    dp_sniper: float
    limit: Callable[[int, float], float] | None = None

    @property
    def true_text(self) -> str:
        return "inf" if math.isinf(self.true_epsilon) else f"{self.true_epsilon:g}"


def _tail_limit(sf_a: Callable[[np.ndarray], np.ndarray], sf_b: Callable[[np.ndarray], np.ndarray],
                grid: np.ndarray) -> Callable[[int, float], float]:
    """The limit over the events {x > t} and {x ≤ t}, t on ``grid``, from exact tails, both directions."""
    def limit(n: int, confidence: float) -> float:
        p_a, p_b = sf_a(grid), sf_b(grid)
        events = [(p_a, p_b), (p_b, p_a), (1 - p_a, 1 - p_b), (1 - p_b, 1 - p_a)]
        return max(_best(p, q, n, confidence) for p, q in events)
    return limit


def _best(p: np.ndarray, q: np.ndarray, n: int, confidence: float) -> float:
    """max over events of log(CP_lo(np)/CP_hi(nq)) at the expected hit counts, each bound at
    (1 − confidence)/2 (scipy's beta quantiles: a benchmark figure, not a verdict)."""
    alpha = (1 - confidence) / 2
    k_p, k_q = np.round(n * np.clip(p, 0, 1)), np.round(n * np.clip(q, 0, 1))
    usable = k_p > 0
    k_p, k_q = k_p[usable], k_q[usable]
    low = stats.beta.ppf(alpha, k_p, n - k_p + 1)
    high = np.where(k_q >= n, 1.0, stats.beta.ppf(1 - alpha, k_q + 1, np.maximum(n - k_q, 1)))
    return max(float(np.max(np.log(low / high), initial=0.0)), 0.0)


def laplace_limit(shift: float, scale: float) -> Callable[[int, float], float]:
    """One Laplace coordinate moved by ``shift``: the likelihood ratio is monotone, tails are optimal."""
    grid = np.linspace(-40 * scale, 40 * scale + shift, 4001)
    return _tail_limit(lambda t: stats.laplace.sf(t, 0.0, scale), lambda t: stats.laplace.sf(t, shift, scale), grid)


def max_value_limit(a: list[float], b: list[float], scale: float, noise: str) -> Callable[[int, float], float]:
    """The noisy maximum's value: P[max ≤ t] = Π F_i(t) exactly; threshold events on the value."""
    law = stats.laplace if noise == "laplace" else stats.expon
    grid = np.linspace(min(a + b) - 40 * scale, max(a + b) + 40 * scale, 8001)

    def sf(centres: list[float]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda t: 1 - np.prod([law.cdf(t, c, scale) for c in centres], axis=0)
    return _tail_limit(sf(a), sf(b), grid)


def parallel_limit(copies: int, scale: float, shift: float) -> Callable[[int, float], float]:
    """``copies`` Laplace releases of one query moved by ``shift`` (> 0): the count K of releases
    below shift/2 is Binomial(copies, F(shift/2)) under each input, exactly. Each term of the
    log-likelihood ratio Σ(|x_i − shift| − |x_i|)/scale is ±shift/scale outside [0, shift], so K
    is the optimal statistic up to the Laplace mass inside [0, shift] (1/400 per release here)."""
    counts = np.arange(copies + 2)

    def sf(centre: float) -> Callable[[np.ndarray], np.ndarray]:
        below = stats.laplace.cdf(shift / 2, centre, scale)
        return lambda k: stats.binom.sf(k - 1, copies, below)  # P[K >= k]
    return _tail_limit(sf(0.0), sf(shift), counts)


def suite() -> list[Row]:
    """The mechanisms at ε = 0.1 on DP-Sniper's best pairs (reference results)."""
    eps = EPSILON
    ones, spread = [1.0] * 5, [0.0] + [2.0] * 4
    svt_a, svt_b = [1.0] * 10, [2.0] * 5 + [0.0] * 5
    return [
        Row("LaplaceMechanism", "DP-Sniper", Laplace(1 / eps), [1.0], [2.0], eps, 0.0968, laplace_limit(1.0, 1 / eps)),
        Row("NoisyHist1", "StatDP Alg. 9, DP-Sniper", Laplace(1 / eps), [0.0] + [1.0] * 4, ones, eps, 0.0978,
            laplace_limit(1.0, 1 / eps)),
        Row("NoisyHist2", "StatDP Alg. 10, DP-Sniper", Laplace(eps), [0.0] + [1.0] * 4, ones, 1 / eps, 4.602,
            laplace_limit(1.0, eps)),
        Row("ReportNoisyMax1", "StatDP Alg. 5, DP-Sniper", NoisyMax(2 / eps), ones, spread, eps, 0.0923),
        Row("ReportNoisyMax2", "StatDP Alg. 6, DP-Sniper", NoisyMax(2 / eps, "exponential"), ones, spread, eps, 0.0975),
        Row("ReportNoisyMax3", "StatDP Alg. 7, DP-Sniper", NoisyMax(2 / eps, return_value=True), [0.0] * 5, ones,
            5 * eps / 2, 0.2478, max_value_limit([0.0] * 5, ones, 2 / eps, "laplace")),
        Row("ReportNoisyMax4", "StatDP Alg. 8, DP-Sniper", NoisyMax(2 / eps, "exponential", return_value=True), ones,
            [2.0] * 5, math.inf, 0.3463, max_value_limit(ones, [2.0] * 5, 2 / eps, "exponential")),
        Row("LaplaceParallel", "DP-Sniper", _Parallel(20, 1 / 0.005), [1.0], [0.0], 20 * 0.005, 0.0350,
            parallel_limit(20, 1 / 0.005, 1.0)),
        Row("SVT1", "StatDP (Lyu–Su–Li Alg. 1), DP-Sniper", SparseVector(2 / eps, 4 / eps, 1),
            [0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5, eps, 0.0858),
        Row("SVT4", "StatDP (Lyu–Su–Li Alg. 4), DP-Sniper", SparseVector(4 / eps, 4 / (3 * eps), 1), svt_a, svt_b,
            7 * eps / 4, 0.1687),
        Row("SVT5", "StatDP (Lyu–Su–Li Alg. 5), DP-Sniper", SparseVector(2 / eps, 0.0, None), svt_b, svt_a, math.inf,
            1.7612),
        Row("SVT6", "StatDP (Lyu–Su–Li Alg. 6), DP-Sniper", SparseVector(2 / eps, 2 / eps, None),
            [1.0] * 5 + [0.0] * 5, [0.0] * 5 + [1.0] * 5, math.inf, 0.2720),
    ]


@dataclass(frozen=True)
class _Parallel:
    """DP-Sniper's LaplaceParallel: ``copies`` independent Laplace(scale) releases of one query, snapped."""

    copies: int
    scale: float

    def __call__(self, data: object, n: int, rng: np.random.Generator) -> np.ndarray:
        return Laplace(self.scale)(np.full(self.copies, float(np.asarray(data).ravel()[0])), n, rng)


def audit_row(row: Row, samples: int, executor: Executor | None = None, seed: int = 0,
              on_progress: Progress | None = None) -> AuditResult:
    """dpledger's audit of ``row`` on DP-Sniper's pair against the suites' ε = 0.1: one stage, so
    that the bound measures power rather than stopping just above the claim."""
    pair = NeighbourPair(np.asarray(row.a), np.asarray(row.b), "DP-Sniper's pair")
    return audit(row.mechanism, [pair], EPSILON, samples=samples, confidence=CONFIDENCE, seed=seed,
                 executor=executor, stages=1, on_progress=on_progress)
