"""Benchmark and utility experiment for CarryForwardLearner (Algorithm 2).

Prints (1) fit time and peak memory for intervals on a 2^20 grid (m = 500, n = 10^6; target
under 10 s) and rectangles on a 16×16 grid (m = 200; target under 60 s); (2) population error
against n on realizable data with the paper's m and with the tight m, how often error ≤ α,
and how often every round's empirical disagreement stayed within 2τ (Lemma 7.1); (3) the n
the paper's constants need for the active sample size Theorem 7.2 asks for.
Run: python benchmarks/bench_carry_forward.py [--quick]
"""

from __future__ import annotations

import math
import resource
import sys
import time

import numpy as np

from dpledger.accountant.section6 import Target, needed_n, paper_m, tight_calibration
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Intervals, Rectangles
from dpledger.learners.synthetic import random_concept


def data(concept_class, n, seed):
    rng = np.random.default_rng(seed)
    target = random_concept(concept_class, rng)
    shape = (n,) if concept_class.dimension == 1 else (n, concept_class.dimension)
    X = rng.integers(0, concept_class.domain_size, size=shape)
    X_test = rng.integers(0, concept_class.domain_size, size=(20000, *shape[1:]))
    return X, concept_class.evaluate(target, X), X_test, concept_class.evaluate(target, X_test)


def timed_fit(concept_class, n, m):
    X, y, X_test, y_test = data(concept_class, n, 0)
    start = time.perf_counter()
    learner = CarryForwardLearner(concept_class, m=m, random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    assert learner.guarantee_ is not None  # set by every fit
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  {concept_class!r:<22} n = {n:>8}, m = {m:>4}: fit {seconds:6.2f} s, peak RSS {peak:7.1f} MiB, "
        f"test error {1 - learner.score(X_test, y_test):.4f}, derived ε ≤ {learner.guarantee_.epsilon_upper:.4g}"
    )


def utility(concept_class, sizes, runs, alpha=0.1, epsilon="1", delta="1e-6"):
    print(
        f"\n(2) utility on {concept_class!r}, ε = {epsilon}, δ = {delta}, α = {alpha}, {runs} runs per cell"
    )
    print(
        f"  {'n':>9} {'calib':>6} {'m':>6} {'mean error':>11} {'P[err ≤ α]':>11} {'rounds ≤ 2τ':>12} {'ε derived':>10}"
    )
    for n in sizes:
        target = Target.of(n, concept_class.k, epsilon, delta)
        for calibration in ("paper", "tight"):
            errors, within, eps = [], 0, 0.0
            for seed in range(runs):
                X, y, X_test, y_test = data(concept_class, n, seed)
                learner = CarryForwardLearner(
                    concept_class,
                    epsilon=epsilon,
                    delta=delta,
                    alpha=alpha,
                    calibration=calibration,
                    random_state=seed,
                    telemetry=True,
                ).fit(X, y)
                assert learner.guarantee_ is not None  # set by every fit
                errors.append(1 - learner.score(X_test, y_test))
                within += all(r.labelboost_disagreement <= r.bound for r in learner.rounds_)
                eps = max(eps, learner.guarantee_.epsilon_upper)
            m = learner.m_
            print(
                f"  {n:>9} {calibration:>6} {m:>6} {np.mean(errors):>11.4f} {np.mean(np.array(errors) <= alpha):>11.2f} "
                f"{within / runs:>12.2f} {eps:>10.4g}"
            )
        del target


def constants(k=2, vc=2, alpha=0.1, beta=0.1, epsilon="1", delta="1e-6"):
    m = math.ceil(k * vc / alpha * math.log(320 * k * k / (alpha * beta)))
    target = Target.of(10**9, k, epsilon, delta)
    paper_n = needed_n(target, m)
    tight = tight_calibration(Target.of(paper_n, k, epsilon, delta), m)
    print(
        f"\n(3) Theorem 7.2 asks m = O((kv/α) log(320k²/(αβ))) = {m} (constant 1) for k = {k}, v = {vc}, α = {alpha}:"
        f"\n  the paper's Algorithm 2 needs n = {paper_n:.3e} to afford it; the tight accounting n = "
        f"{tight.n_tight_for_paper_m:.3e} (×{tight.sample_saving:.3g} fewer)."
    )


def main() -> None:
    quick = "--quick" in sys.argv
    print("(1) fit time and memory")
    timed_fit(Intervals(2**20), 10**6, 500)
    timed_fit(Rectangles(16), 10**5, 200)
    base = needed_n(Target.of(10**6, 2, "1", "1e-6"))
    sizes = [base, 4 * base] if quick else [base, 2 * base, 4 * base, 8 * base]
    utility(Intervals(2**16), sizes, 3 if quick else 10)
    constants()
    print(f"\n  paper m at n = {base}: {paper_m(Target.of(base, 2, '1', '1e-6'))}")


if __name__ == "__main__":
    main()
