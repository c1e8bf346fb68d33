"""Benchmark for Boolean compositions (seed 000, Section 8.4) on CarryForwardLearner.

Prints (0) one LabelBoost draw (Algorithm 1) over thresholds,intervals,thresholds by the trace
counted by score (:mod:`dpledger.learners.trace_counting`) against the listed trace (what the
exact auditor enumerates), where listing still
runs; (1) fit time of CarryForwardLearner with the Proposition 8.16 oracles for k = 3
components on the grid 2^16, G = x1 and (x2 or not x3): thresholds×3 and
thresholds,intervals,thresholds at m = 200 (target under 60 s, test error ≤ 0.15); (2) samples used by CarryForwardLearner against the
per-component baseline (SUBSTITUTE model of Alon et al., :mod:`dpledger.learners.boolean.baseline`) at
equal target accuracy: the calibrated n of both (Theorem 8.19 vs the baseline's formula) for
k = 2..6, and, at the same active sample size m, the n each needs to meet (ε, δ) = (1, 10⁻⁶)
with the test errors both reach.
Run: python benchmarks/bench_boolean.py [--quick]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dpledger.accountant.section6 import Target, needed_n
from dpledger.learners.boolean.baseline import SeparateSampleLearner
from dpledger.learners.boolean.composition import (
    BooleanComposition,
    HypothesisSpace,
    component_class,
    composition_vc_bound,
)
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.boolean.oracle import RelabelOracle
from dpledger.learners.calibration.boolean import separate_samples_baseline, theorem_8_19
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.labelboost import labelboost
from dpledger.learners.randomness import Randomness, Sampled

FORMULA = "x1 and (x2 or not x3)"
DOMAIN = 2**16


def problem(names: list[str], n: int, seed: int):
    C = BooleanComposition(parse_formula(FORMULA), [component_class(name, DOMAIN) for name in names])
    rng = np.random.default_rng(seed)
    target = (
        (int(rng.integers(DOMAIN // 4)),),
        *tuple(
            (int(rng.integers(DOMAIN // 4, DOMAIN // 2)), int(rng.integers(DOMAIN // 2, DOMAIN)))
            if name == "intervals"
            else (int(rng.integers(DOMAIN // 2, DOMAIN)),)
            for name in names[1:]
        ),
    )
    X, X_test = rng.integers(0, DOMAIN, size=n), rng.integers(0, DOMAIN, size=20000)
    return C, X, C.evaluate(target, X), X_test, C.evaluate(target, X_test)


class Listing(Randomness):
    """Sampled draws through a randomness that is not :class:`Sampled`, so LabelBoost lists the
    trace (its path under enumeration) — the listing implementation, for comparison only."""

    def __init__(self, seed: int) -> None:
        self.inner = Sampled(seed)

    def integer(self, n):
        return self.inner.integer(n)

    def choice_grouped(self, log_weights, counts):
        return self.inner.choice_grouped(log_weights, counts)

    def choice(self, weights):
        return self.inner.choice(weights)

    def laplace(self, scale, size=None):
        return self.inner.laplace(scale, size)

    def gaussian(self, sigma, size=None):
        return self.inner.gaussian(sigma, size)


def labelboost_draws(quick: bool) -> None:
    print(
        "(0) one LabelBoost draw over C = G(thresholds, intervals, thresholds), S = m records, T = ∅ "
        "(the first call of Algorithm 2): counted by score vs listed"
    )
    for m in (40, 80) if quick else (40, 80, 200, 1000):
        C, X, y, _, _ = problem(["thresholds", "intervals", "thresholds"], m, 0)
        start = time.perf_counter()
        counted = labelboost(C, X, y, X[:0], Sampled(0))
        line = (
            f"  m = {m:>4}: |Π_C(P)| = {counted.candidates:>14,}, counted {time.perf_counter() - start:7.3f} s, "
            f"err_S = {np.mean(counted.labeled != y):.3f}"
        )
        if m <= 80:
            start = time.perf_counter()
            listed = labelboost(C, X, y, X[:0], Listing(0))
            line += f"; listed {time.perf_counter() - start:7.3f} s (same |Π_C(P)|: {listed.candidates == counted.candidates})"
        else:
            line += "; listed: not run (more than the 5·10⁶ residual states of trace_limit)"
        print(line)


def timed_fits(quick: bool) -> None:
    print(f"(1) fit time, G = {FORMULA}, grid [0, 2^16), n = 30·m (only m records are active)")
    cases = [(["thresholds"] * 3, 200), (["thresholds", "intervals", "thresholds"], 80 if quick else 200)]
    for names, m in cases:
        C, X, y, X_test, y_test = problem(names, 30 * m, 0)
        start = time.perf_counter()
        learner = CarryForwardLearner(C, oracle=RelabelOracle(), m=m, random_state=0).fit(X, y)
        seconds = time.perf_counter() - start
        print(
            f"  {','.join(names):<32} m = {m:>3}: fit {seconds:6.2f} s, test error {1 - learner.score(X_test, y_test):.4f}"
        )


def calibrated(k_values: range) -> None:
    print(
        "(2a) calibrated sample sizes, α = β = 0.1, ε = 0.5, δ = 1e-6, thresholds components "
        "(calibrate 8.19; LabelBoost constant c = 1 is a SUBSTITUTE)"
    )
    print(
        f"  {'k':>2} {'M_A':>10} {'m':>10} {'n paper':>16} {'n tight':>14} {'n baseline':>14} {'paper/base':>10}"
    )
    for k in k_values:
        H = component_class("thresholds", DOMAIN)
        result = theorem_8_19(
            [("thresholds", 1, len(HypothesisSpace(H)))] * k,
            composition_vc_bound([1] * k),
            "0.1",
            "0.1",
            "0.5",
            "1e-6",
        )
        baseline = separate_samples_baseline(result.m_oracle, k, "0.5")
        sample = result.sample
        print(
            f"  {k:>2} {result.m_oracle:>10} {sample.m:>10} {sample.n_paper:>16} {sample.n_tight:>14} {baseline:>14} "
            f"{sample.n_paper / baseline:>10.1f}"
        )


def same_m(m: int) -> None:
    names = ["thresholds"] * 3
    n_cf = needed_n(Target.of(3, 3, 1, "1e-6"), m)
    n_base = separate_samples_baseline(m, 3, 1)
    print(
        f"(2b) same active sample size m = {m}, k = 3 thresholds: n to meet (1, 1e-6): CarryForwardLearner "
        f"{n_cf} (Algorithm 2 line 2), baseline {n_base} (k⌈m(e⁴−1)/(e−1)⌉)"
    )
    C, X, y, X_test, y_test = problem(names, n_base, 1)
    baseline = SeparateSampleLearner(C, m=m, random_state=1).fit(X, y)
    assert baseline.guarantee_ is not None  # set by every fit
    print(
        f"  baseline on n = {n_base}: test error {1 - baseline.score(X_test, y_test):.4f}, derived "
        f"ε ≤ {baseline.guarantee_.epsilon_upper:.4f}, δ ≤ {baseline.guarantee_.delta_upper:.3g}"
    )
    C, X, y, X_test, y_test = problem(names, 30 * m, 1)
    learner = CarryForwardLearner(C, oracle=RelabelOracle(), m=m, random_state=1).fit(X, y)
    print(
        f"  CarryForwardLearner with m = {m} (fit on 30m records: its error depends on m only; its guarantee "
        f"needs n = {n_cf}): test error {1 - learner.score(X_test, y_test):.4f}"
    )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    labelboost_draws(quick)
    timed_fits(quick)
    calibrated(range(2, 5) if quick else range(2, 7))
    same_m(200)
