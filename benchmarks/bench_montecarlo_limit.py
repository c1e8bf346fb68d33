"""Power of the Monte Carlo auditor against the optimal-statistic limit.

For every mechanism of :func:`dpledger.verify.audit.montecarlo.catalogs.optimal_limit.limit_suite` (scalar Laplace,
DP-Sniper's LaplaceParallel, a 20-d Laplace vector, a 20-bit randomized-response vector, Report
Noisy Max releasing the maximum value) prints, at each sample budget: dpledger's certified lower
bound (``audit`` with its defaults — 4 sequential stages, 3 candidates per kind — claimed at the
true ε, so that no stage stops early), the optimal-statistic limit (the likelihood-ratio event
``{L > t}`` with the best expected bound, t chosen on 4× as many independent runs, Clopper–Pearson
bounds on the same
number of runs at the same confidence,
:func:`~dpledger.verify.audit.montecarlo.catalogs.optimal_limit.optimal_statistic_bound`) and their ratio
(the goal is ≥ 0.8 at 10⁶). With ``--seeds N`` the audit runs with seeds 0 … N − 1 and the row shows
the mean bound and ratio, and the smallest ratio (one limit per row: the limit's own noise is not
averaged out). ``--network`` adds the opt-in perceptron family (``audit(..., network=True)``).
Usage: python benchmarks/bench_montecarlo_limit.py [--samples 100000 1000000] [--stages 4] [--workers 2] [--seeds 1] [--network]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpledger.verify.audit.montecarlo import audit, local_processes
from dpledger.verify.audit.montecarlo.catalogs.optimal_limit import (
    LimitCase,
    limit_suite,
    optimal_statistic_bound,
)

CHOICE_RUNS = 4
"""Runs per input to choose the limit's threshold on, as a multiple of the budget."""


def case_limit(case: LimitCase, samples: int, confidence: float, seed: int = 1) -> float:
    """The optimal-statistic limit of ``case`` at ``samples`` runs per input: the threshold chosen on
    ``CHOICE_RUNS`` times as many independent runs, the bounds estimated on ``samples`` runs."""
    rng = np.random.default_rng(seed)

    def ratios(data: object, runs: int) -> np.ndarray:
        chunk = 100_000
        return np.concatenate(
            [
                case.log_ratio(case.mechanism(data, min(chunk, runs - start), rng))
                for start in range(0, runs, chunk)
            ]
        )

    choose = [ratios(data, CHOICE_RUNS * samples) for data in (case.pair.a, case.pair.b)]
    estimate = [ratios(data, samples) for data in (case.pair.a, case.pair.b)]
    (choose_a, choose_b), (estimate_a, estimate_b) = choose, estimate
    return optimal_statistic_bound(estimate_a, estimate_b, confidence, choose_a, choose_b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, nargs="+", default=[100_000, 1_000_000], help="runs per input")
    parser.add_argument("--stages", type=int, default=4, help="sequential stages of the audit (default 4)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--only", nargs="*", help="mechanism names")
    parser.add_argument("--seeds", type=int, default=1, help="audits per row, seeds 0 … N − 1 (default 1)")
    parser.add_argument("--network", action="store_true", help="also search the perceptron's scores")
    args = parser.parse_args()
    print(
        f"confidence {args.confidence}, {args.stages} stage(s); limit = optimal statistic, threshold chosen on independent runs"
    )
    print(
        f"{'mechanism':<30}{'true ε':>8}{'samples':>10}{'dpledger':>10}{'limit':>9}{'ratio':>7}"
        f"{'min ratio':>10}{'seconds':>9}  witness family"
    )
    with local_processes(args.workers) as pool:
        for case in limit_suite():
            if args.only and case.name not in args.only:
                continue
            for samples in args.samples:
                limit = case_limit(case, samples, args.confidence)
                started = time.perf_counter()
                results = [
                    audit(
                        case.mechanism,  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
                        [case.pair],
                        case.true_epsilon,
                        samples=samples,
                        confidence=args.confidence,
                        stages=args.stages,
                        executor=pool,
                        seed=seed,
                        network=args.network,
                    )
                    for seed in range(args.seeds)
                ]
                seconds = (time.perf_counter() - started) / args.seeds
                bounds = np.array([result.epsilon_lower for result in results])
                ratios = bounds / limit if limit > 0 else np.full(len(bounds), np.nan)
                families = sorted({result.witness["family"] if result.witness else "-" for result in results})
                print(
                    f"{case.name:<30}{case.true_epsilon:>8g}{samples:>10,}{bounds.mean():>10.4f}"
                    f"{limit:>9.4f}{ratios.mean():>7.2f}{ratios.min():>10.2f}{seconds:>9.1f}  {', '.join(families)}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
