"""Throughput of the Monte Carlo auditor on a vectorised Laplace mechanism, scalar and 20-d.

Prints mechanism runs per second of whole audits (generation on worker processes, event search
and estimation in the caller) on local processes, and — for the same budget — the seconds the
mechanism alone takes to generate the runs in this process (the floor the audit cannot beat on
these cores). Targets (issue 18): ≥ 5·10⁶ runs/s for scalars, ≥ 2·10⁶ runs/s for 20-d outputs, on
2 cores.
Usage: python benchmarks/bench_montecarlo_throughput.py [--samples N] [--dimensions 1 20] [--workers W]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, local_processes
from dpledger.verify.audit.montecarlo.catalog import Laplace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000, help="runs per input (default 1e6)")
    parser.add_argument("--dimensions", type=int, nargs="+", default=[1, 20], help="output dimensions")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with local_processes(args.workers) as pool:
        audit(Laplace(1.0), [NeighbourPair(0.0, 1.0, "0 vs 1")], 1.0, samples=20_000, executor=pool)  # start workers
        for dimension in args.dimensions:
            a, b = (np.zeros(dimension), np.ones(dimension)) if dimension > 1 else (0.0, 1.0)
            pairs = [NeighbourPair(a, b, "0 vs 1 in every coordinate")]
            mechanism = Laplace(float(dimension))  # ε = 1 over all coordinates
            started = time.perf_counter()
            for data in (a, b):
                mechanism(data, args.samples, np.random.default_rng(0))
            generation = time.perf_counter() - started
            for stages, label in [(4, "4 stages"), (1, "1 stage")]:
                for repeat in range(args.repeats):
                    started = time.perf_counter()
                    result = audit(mechanism, pairs, 1.0, samples=args.samples, stages=stages, executor=pool)
                    seconds = time.perf_counter() - started
                    print(
                        f"{dimension:>3}-d {label:<9} run {repeat + 1}: {result.samples_total:,} runs in {seconds:.2f} s "
                        f"= {result.samples_total / seconds / 1e6:.2f}·10⁶ runs/s on {args.workers} workers "
                        f"(generation alone, 1 core: {generation:.2f} s; ε_lower {result.epsilon_lower:.4f}, "
                        f"claim 1, {result.verdict})",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
