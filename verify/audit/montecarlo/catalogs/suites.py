"""The mechanism suites of StatDP and DP-Sniper, written here from their papers, with each
mechanism's claimed ε, the true ε on the audited pair where known, DP-Sniper's published lower
bound and the optimal-statistic limit (run by ``dpledger audit suites`` and
``benchmarks/bench_audit_suites.py``).

* StatDP — Ding, Wang, Wang, Zhang, Kifer 2018, "Detecting Violations of Differential Privacy"
  (CCS): Report Noisy Max with Laplace / exponential noise returning the index (Algs. 5, 6,
  correct) or the value (Algs. 7, 8, not private), the histogram with Lap(1/ε) (Alg. 9, correct)
  and Lap(ε) (Alg. 10, 1/ε-DP), the sparse vector variants of Lyu–Su–Li 2017 with their bugs.
* DP-Sniper — Bichsel, Steffen, Bogunovic, Vechev 2021, "DP-Sniper: Black-Box Discovery of
  Differential Privacy Violations using Classifiers" (IEEE S&P): StatDP's suite at ε = 0.1 plus
  LaplaceMechanism, TruncatedGeometric, SVT2, SVT3, RAPPOR, OneTimeRAPPOR, LaplaceParallel
  (20 releases at ε = 0.005), SVT34Parallel, PrefixSum and NumericalSVT
  (:mod:`dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms`), each with DP-Sniper's parameters:
  sparse vectors with cutoff c = 1 and threshold T = 1, except SVT1 at T = 0.5 and
  SVT34Parallel, NumericalSVT at c = 2. Its published figures (:attr:`Row.dp_sniper`) are the ε
  lower bounds (``eps_lcb``, logistic regression) of its reference results,
  ``eval_sp2021/reference-results/dd_search_reg_data.log`` in github.com/eth-sri/dp-sniper, on
  the input pair its search found — the pair audited here. DP-Sniper's neighbouring inputs are
  query-answer vectors differing by at most 1 in every answer.

A mechanism is *buggy* when its true ε on the pair exceeds its claim (:attr:`Row.buggy`, from
the papers' analyses); an audit *flags* it when its verdict is not ``NO VIOLATION FOUND``.

The *optimal-statistic limit* at n runs per input (:attr:`Row.limit`): the best bound one event
fixed in advance could certify from n runs per input at the same confidence — over the level sets
of the known likelihood ratio, Clopper–Pearson bounds at the *expected* hit counts, each at
(1 − confidence)/2 (a typical value, not a maximum: a lucky draw can exceed it). The statistics:
tails of the value for one Laplace coordinate, the noisy maximum's value (optimal when the ratio
is monotone) and GeoSample's count; the count of report bits agreeing with input a for RAPPOR;
for Laplace vectors (LaplaceParallel, PrefixSum) the log-likelihood ratio itself, a sum of
clipped coordinates, binned (:func:`laplace_sum_limit`). The ratios are those of the mechanisms
before snapping to the grid 2⁻¹⁰. Where the likelihood ratio has no closed form here (argmax
and sparse vector outputs: integrals over the threshold noise) ``limit`` is None and
:attr:`Row.limit_note` says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from dpledger.accountant.numerics.certified import lower_bound_text
from dpledger.verify.audit.montecarlo.audit import MonteCarloAuditResult, Progress, audit
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace, NoisyMax, SparseVector
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import (
    AboveThresholdRefresh,
    AtThreshold,
    NumericSparseVector,
    Parallel,
    PrefixSum,
    Rappor,
    TruncatedGeometric,
)
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair

EPSILON = 0.1
"""DP-Sniper's (and StatDP's) privacy parameter."""

CONFIDENCE = 0.95
LIMIT_SAMPLES = 10**6
BINS = 400
"""Bins of one clipped Laplace coordinate in :func:`laplace_sum_limit`."""

Limit = Callable[[int, float], float]
NO_RATIO = "no closed-form likelihood ratio for sparse-vector outputs (an integral over the threshold noise)"


@dataclass(frozen=True)
class Row:
    """A mechanism of the suites, the pair audited, its claim, the truth and DP-Sniper's bound.

    ``true_epsilon`` is the exact ε on the pair (``math.inf`` when no finite ε holds), None when
    only ``truth`` (a bound or the papers' verdict) is known; ``buggy``: true ε > ``claimed``.
    """

    name: str
    suites: str
    mechanism: Callable
    a: list[float]
    b: list[float]
    claimed: float
    true_epsilon: float | None
    buggy: bool
    dp_sniper: float
    limit: Limit | None = None
    truth: str = ""
    limit_note: str = NO_RATIO

    @property
    def true_text(self) -> str:
        if self.true_epsilon is None:
            return self.truth
        return "inf" if math.isinf(self.true_epsilon) else f"{self.true_epsilon:.4g}"


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


def tails_limit(tail_a: np.ndarray, tail_b: np.ndarray) -> Limit:
    """The limit over the events {S > t} and {S ≤ t} of a statistic S, from its exact tails
    P[S > t] under a and b at a grid of t, in both directions."""

    def limit(n: int, confidence: float) -> float:
        events = [(tail_a, tail_b), (tail_b, tail_a), (1 - tail_a, 1 - tail_b), (1 - tail_b, 1 - tail_a)]
        return max(_best(p, q, n, confidence) for p, q in events)

    return limit


def _pmf_tails(pmf: np.ndarray) -> np.ndarray:
    """P[S > t] for t = −1, 0, …, len(pmf) − 1 of a statistic with values 0, 1, …"""
    return np.concatenate([[1.0], 1.0 - np.cumsum(pmf)])


def laplace_limit(shift: float, scale: float) -> Limit:
    """One Laplace coordinate moved by ``shift``: the likelihood ratio is monotone, tails are optimal."""
    grid = np.linspace(-40 * scale, 40 * scale + shift, 4001)
    return tails_limit(stats.laplace.sf(grid, 0.0, scale), stats.laplace.sf(grid, shift, scale))


def max_value_limit(a: list[float], b: list[float], scale: float, noise: str) -> Limit:
    """The noisy maximum's value: P[max ≤ t] = Π F_i(t) exactly; threshold events on the value."""
    law = stats.laplace if noise == "laplace" else stats.expon
    grid = np.linspace(min(a + b) - 40 * scale, max(a + b) + 40 * scale, 8001)

    def tail(centres: list[float]) -> np.ndarray:
        return 1 - np.prod([law.cdf(grid, c, scale) for c in centres], axis=0)

    return tails_limit(tail(a), tail(b))


def laplace_sum_limit(copies: int, scale: float, shift: float) -> Limit:
    """``copies`` Laplace(scale) coordinates, each moved by ``shift`` > 0 (LaplaceParallel: 20
    releases of one query; PrefixSum: 10 answers, its prefix sums an invertible post-processing).
    The log-likelihood ratio is Σ_i (|x_i| − |x_i − shift|)/scale = Σ_i (2 clip(x_i, 0, shift) −
    shift)/scale: the sum of the clipped coordinates, here binned (the atoms x ≤ 0 and x ≥ shift
    and :data:`BINS` cells in between) — a statistic of the output, so its events are events of
    the mechanism, optimal up to the binning. Its law is the ``copies``-fold convolution of one
    coordinate's, exactly (Laplace CDFs)."""
    edges = np.linspace(0.0, shift, BINS + 1)

    def coordinate(centre: float) -> np.ndarray:
        cdf = stats.laplace.cdf(edges, centre, scale)
        return np.concatenate([[cdf[0]], np.diff(cdf), [1.0 - cdf[-1]]])

    def law(centre: float) -> np.ndarray:
        one, total = coordinate(centre), np.array([1.0])
        for _ in range(copies):
            total = np.convolve(total, one)
        return np.clip(total, 0.0, None)

    return tails_limit(_pmf_tails(law(shift)), _pmf_tails(law(0.0)))


def geometric_limit(mechanism: TruncatedGeometric, a: int, b: int) -> Limit:
    """GeoSample's count (ratio monotone in the count for neighbouring counts): exact tails from
    the integer CDF."""

    def pmf(count: int) -> np.ndarray:
        cdf = np.array(mechanism.cdf(count), dtype=float)
        return np.diff(np.concatenate([[0.0], cdf])) / cdf[-1]

    return tails_limit(_pmf_tails(pmf(a)), _pmf_tails(pmf(b)))


def rappor_limit(mechanism: Rappor, a: int, b: int) -> Limit:
    """K = the report bits agreeing with a among the filter bits of a or b only (1 on a's, 0 on
    b's): every such bit moves the log-likelihood ratio by the same loss here (p + q = 1), so K
    is the optimal statistic; Binomial under each input, exactly."""
    high, low = mechanism.reported_one()
    only_a, only_b = len(mechanism.bits(a) - mechanism.bits(b)), len(mechanism.bits(b) - mechanism.bits(a))

    def pmf(agree_a: float, agree_b: float) -> np.ndarray:
        return np.convolve(
            stats.binom.pmf(np.arange(only_a + 1), only_a, agree_a),
            stats.binom.pmf(np.arange(only_b + 1), only_b, agree_b),
        )

    return tails_limit(_pmf_tails(pmf(high, 1 - low)), _pmf_tails(pmf(low, 1 - high)))


def suite() -> list[Row]:
    """The mechanisms at DP-Sniper's parameters on DP-Sniper's best pairs (reference results)."""
    eps = EPSILON
    ones, spread = [1.0] * 5, [0.0] + [2.0] * 4
    svt_low_high, svt_high_low = [0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5
    svt_ones, svt_split = [1.0] * 10, [2.0] * 5 + [0.0] * 5
    geometric, rappor, one_time = TruncatedGeometric(3, 5), Rappor(0.75), Rappor(0.95, instantaneous=False)
    svt3 = NumericSparseVector(2 / eps, 1 / (eps / 2), 1)
    svt3_c2, svt4_c2 = NumericSparseVector(2 / eps, 2 * 2 / eps, 2), SparseVector(4 / eps, 4 / (3 * eps), 2)
    argmax = "no closed-form likelihood ratio for the argmax (an integral over the other noises)"
    unbounded = "unknown; > {c} by DP-Sniper's bound (not ε-DP: Lyu–Su–Li 2017)"
    return [
        Row(
            "LaplaceMechanism",
            "DP-Sniper",
            Laplace(1 / eps),
            [1.0],
            [2.0],
            eps,
            eps,
            False,
            0.0968,
            laplace_limit(1.0, 1 / eps),
        ),
        Row(
            "TruncatedGeometric",
            "DP-Sniper (Balcer–Vadhan GeoSample, k = 3)",
            geometric,
            [2.0],
            [1.0],
            geometric.epsilon,
            geometric.epsilon,
            False,
            0.1156,
            geometric_limit(geometric, 2, 1),
        ),
        Row(
            "NoisyHist1",
            "StatDP Alg. 9, DP-Sniper",
            Laplace(1 / eps),
            [0.0] + [1.0] * 4,
            ones,
            eps,
            eps,
            False,
            0.0978,
            laplace_limit(1.0, 1 / eps),
        ),
        Row(
            "NoisyHist2",
            "StatDP Alg. 10, DP-Sniper",
            Laplace(eps),
            [0.0] + [1.0] * 4,
            ones,
            eps,
            1 / eps,
            True,
            4.602,
            laplace_limit(1.0, eps),
        ),
        Row(
            "ReportNoisyMax1",
            "StatDP Alg. 5, DP-Sniper",
            NoisyMax(2 / eps),
            ones,
            spread,
            eps,
            None,
            False,
            0.0923,
            truth="≤ 0.1",
            limit_note=argmax,
        ),
        Row(
            "ReportNoisyMax2",
            "StatDP Alg. 6, DP-Sniper",
            NoisyMax(2 / eps, "exponential"),
            ones,
            spread,
            eps,
            None,
            False,
            0.0975,
            truth="≤ 0.1",
            limit_note=argmax,
        ),
        Row(
            "ReportNoisyMax3",
            "StatDP Alg. 7, DP-Sniper",
            NoisyMax(2 / eps, return_value=True),
            [0.0] * 5,
            ones,
            eps,
            5 * eps / 2,
            True,
            0.2478,
            max_value_limit([0.0] * 5, ones, 2 / eps, "laplace"),
        ),
        Row(
            "ReportNoisyMax4",
            "StatDP Alg. 8, DP-Sniper",
            NoisyMax(2 / eps, "exponential", return_value=True),
            ones,
            [2.0] * 5,
            eps,
            math.inf,
            True,
            0.3463,
            max_value_limit(ones, [2.0] * 5, 2 / eps, "exponential"),
        ),
        Row(
            "SVT1",
            "StatDP, DP-Sniper (Lyu–Su–Li Alg. 1, T = 0.5)",
            AtThreshold(SparseVector(2 / eps, 4 / eps, 1), 0.5),
            svt_low_high,
            svt_high_low,
            eps,
            None,
            False,
            0.0858,
            truth="≤ 0.1",
        ),
        Row(
            "SVT2",
            "DP-Sniper (Lyu–Su–Li Alg. 2)",
            AboveThresholdRefresh(1 / (eps / 2), 2 / (eps / 2), 1),
            svt_low_high,
            svt_high_low,
            eps,
            None,
            False,
            0.0859,
            truth="≤ 0.1",
        ),
        Row(
            "SVT3",
            "StatDP, DP-Sniper (Lyu–Su–Li Alg. 3)",
            svt3,
            svt_ones,
            svt_split,
            eps,
            None,
            True,
            0.1716,
            truth=unbounded.format(c="0.1"),
        ),
        Row(
            "SVT4",
            "StatDP, DP-Sniper (Lyu–Su–Li Alg. 4)",
            SparseVector(4 / eps, 4 / (3 * eps), 1),
            svt_ones,
            svt_split,
            eps,
            None,
            True,
            0.1687,
            truth="≤ 0.175 = (1 + 6c)ε/4 (Lyu–Su–Li)",
        ),
        Row(
            "SVT5",
            "StatDP, DP-Sniper (Lyu–Su–Li Alg. 5)",
            SparseVector(2 / eps, 0.0, None),
            svt_split,
            svt_ones,
            eps,
            math.inf,
            True,
            1.7612,
        ),
        Row(
            "SVT6",
            "StatDP, DP-Sniper (Lyu–Su–Li Alg. 6)",
            SparseVector(2 / eps, 2 / eps, None),
            svt_high_low,
            svt_low_high,
            eps,
            None,
            True,
            0.2720,
            truth=unbounded.format(c="0.1"),
        ),
        Row(
            "RAPPOR",
            "DP-Sniper (Erlingsson et al., ε₁ for one report)",
            rappor,
            [1.0],
            [0.0],
            rappor.claimed_epsilon(),
            rappor.pair_epsilon(1, 0),
            False,
            0.2930,
            rappor_limit(rappor, 1, 0),
        ),
        Row(
            "OneTimeRAPPOR",
            "DP-Sniper (Erlingsson et al., ε∞)",
            one_time,
            [1.0],
            [0.0],
            one_time.claimed_epsilon(),
            one_time.pair_epsilon(1, 0),
            False,
            0.5978,
            rappor_limit(one_time, 1, 0),
        ),
        Row(
            "LaplaceParallel",
            "DP-Sniper (20 × ε = 0.005)",
            Parallel((Laplace(1 / 0.005),) * 20),
            [1.0],
            [0.0],
            20 * 0.005,
            20 * 0.005,
            False,
            0.0350,
            laplace_sum_limit(20, 1 / 0.005, 1.0),
        ),
        Row(
            "SVT34Parallel",
            "DP-Sniper (SVT3 ∥ SVT4, c = 2; claim 0.1 + 0.1)",
            Parallel((svt3_c2, svt4_c2)),
            svt_ones,
            svt_split,
            2 * eps,
            None,
            True,
            0.2610,
            truth=unbounded.format(c="0.2"),
        ),
        Row(
            "PrefixSum",
            "DP-Sniper (Wang et al. 2019; 10 answers each moved by 1: 10 × 0.1)",
            PrefixSum(1 / eps),
            [1.0] * 10,
            [0.0] * 10,
            10 * eps,
            10 * eps,
            False,
            0.5040,
            laplace_sum_limit(10, 1 / eps, 1.0),
        ),
        Row(
            "NumericalSVT",
            "DP-Sniper (Wang et al. 2019, c = 2)",
            NumericSparseVector(3 / eps, 12 / eps, 2, 6 / eps),
            [2.0] * 10,
            [1.0] * 10,
            eps,
            None,
            False,
            0.0343,
            truth="≤ 0.1",
        ),
    ]


def select(names: Sequence[str] | None) -> list[Row]:
    """The suite's rows named in ``names`` (all when None); ValueError naming any unknown name."""
    rows = suite()
    unknown = sorted(set(names or ()) - {row.name for row in rows})
    if unknown:
        raise ValueError(
            f"unknown suite mechanism(s) {', '.join(unknown)}; known: {', '.join(r.name for r in rows)}"
        )
    return [row for row in rows if not names or row.name in names]


def audit_row(
    row: Row,
    samples: int,
    executor: Executor | None = None,
    seed: int = 0,
    on_progress: Progress | None = None,
) -> MonteCarloAuditResult:
    """dpledger's audit of ``row`` on DP-Sniper's pair against its claim: one stage, so that the
    bound measures power rather than stopping just above the claim."""
    pair = NeighbourPair(np.asarray(row.a), np.asarray(row.b), "DP-Sniper's pair")
    return audit(
        row.mechanism,
        [pair],
        row.claimed,
        samples=samples,
        confidence=CONFIDENCE,
        seed=seed,
        executor=executor,
        stages=1,
        on_progress=on_progress,
    )


def entry(row: Row, result: MonteCarloAuditResult, samples: int) -> dict[str, Any]:
    """One row of the ``audit suites`` payload: the bound beside the claim, the truth, the limit
    at the same runs and DP-Sniper's figure; ``sound``: the bound is at most the true ε (or, for a
    correct mechanism whose ε is known only as a bound, it is not flagged)."""
    flagged = result.violation
    truth = row.true_epsilon if row.true_epsilon is not None else (math.inf if row.buggy else row.claimed)
    return {
        "name": row.name,
        "suites": row.suites,
        "claimed_epsilon": row.claimed,
        "true_epsilon": row.true_text,
        "buggy": row.buggy,
        "epsilon_lower": result.real_epsilon_lower,
        "verdict": result.verdict,
        "flagged": flagged,
        "as_expected": flagged == row.buggy,
        "optimal_limit": None if row.limit is None else row.limit(samples, CONFIDENCE),
        "limit_note": "" if row.limit is not None else row.limit_note,
        "dp_sniper_published": row.dp_sniper,
        "pair": [row.a, row.b],
        "seconds": result.seconds,
        "sound": result.real_epsilon_lower <= truth and not (flagged and not row.buggy),
    }


def run_suites(
    rows: Sequence[Row],
    samples: int,
    executor: Executor | None,
    seed: int = 0,
    progress: Callable[[str], Progress] | None = None,
) -> dict[str, Any]:
    """Audit every row at ``samples`` runs per input; the payload of ``dpledger audit suites``."""
    entries = [
        entry(row, audit_row(row, samples, executor, seed, progress(row.name) if progress else None), samples)
        for row in rows
    ]
    return {
        "samples": samples,
        "confidence": CONFIDENCE,
        "mechanisms": entries,
        "all_sound": all(e["sound"] for e in entries),
        "buggy_flagged": sum(e["flagged"] for e in entries if e["buggy"]),
        "buggy": sum(e["buggy"] for e in entries),
        "correct_flagged": sum(e["flagged"] for e in entries if not e["buggy"]),
        "correct": sum(not e["buggy"] for e in entries),
    }


def suites_text(payload: dict[str, Any]) -> str:
    """The plain-text table of :func:`run_suites`' payload."""
    header = (
        f"{'mechanism':<18} {'claim':>7} {'true ε':>7} {'dpledger':>9} {'limit':>8} {'DP-Sniper':>9}  verdict"
    )
    lines = [header, "-" * len(header)]
    for e in payload["mechanisms"]:
        limit = "—" if e["optimal_limit"] is None else format(e["optimal_limit"], ".4f")
        lines.append(
            f"{e['name']:<18} {e['claimed_epsilon']:>7.4g} {e['true_epsilon'][:7]:>7} "
            f"{lower_bound_text(e['epsilon_lower'], 4):>9} {limit:>8} {e['dp_sniper_published']:>9}  {verdict_text(e)}"
        )
    lines.append(
        f"buggy mechanisms flagged: {payload['buggy_flagged']} of {payload['buggy']}; correct ones flagged: "
        f"{payload['correct_flagged']} of {payload['correct']}; every bound sound: {payload['all_sound']}"
    )
    return "\n".join(lines)


def verdict_text(e: dict[str, Any]) -> str:
    """``flagged (buggy)``, ``passed (correct)``, ``MISSED (buggy)`` or ``FALSE ALARM (correct)``."""
    if e["buggy"]:
        return "flagged (buggy)" if e["flagged"] else "MISSED (buggy)"
    return "FALSE ALARM (correct)" if e["flagged"] else "passed (correct)"


def false_alarms(
    rows: Sequence[Row], samples: int, repeats: int, executor: Executor | None, first_seed: int = 1
) -> dict[str, int]:
    """For each correct row, how many of ``repeats`` audits (seeds ``first_seed``, …) flag it: a
    sound audit flags a correct mechanism with probability at most 1 − confidence."""
    return {
        row.name: sum(
            audit_row(row, samples, executor, seed).violation
            for seed in range(first_seed, first_seed + repeats)
        )
        for row in rows
        if not row.buggy
    }
