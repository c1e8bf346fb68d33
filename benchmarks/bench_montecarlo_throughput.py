"""Throughput of the Monte Carlo auditor on a vectorised Laplace mechanism.

Prints mechanism runs per second of whole audits (generation on worker processes, event search
and estimation in the caller) on local processes; the target is ≥ 5·10⁶ runs/s on 2 cores.
Usage: python benchmarks/bench_montecarlo_throughput.py [--samples N] [--workers W]
"""

from __future__ import annotations

import argparse
import time

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, local_processes
from dpledger.verify.audit.montecarlo.catalog import Laplace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5_000_000, help="runs per input (default 5e6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    pairs = [NeighbourPair(0.0, 1.0, "0 vs 1")]
    with local_processes(args.workers) as pool:
        audit(Laplace(1.0), pairs, 1.0, samples=20_000, executor=pool)  # start the workers
        for stages, label in [(4, "sequential (4 stages)"), (1, "single stage")]:
            for repeat in range(args.repeats):
                started = time.perf_counter()
                result = audit(Laplace(1.0), pairs, 1.0, samples=args.samples, stages=stages, executor=pool)
                seconds = time.perf_counter() - started
                print(
                    f"{label:<22} run {repeat + 1}: {result.samples_total:,} runs in {seconds:.2f} s = "
                    f"{result.samples_total / seconds / 1e6:.2f}·10⁶ runs/s on {args.workers} workers "
                    f"(ε_lower {result.epsilon_lower:.4f}, claim 1, violation {result.violation})"
                )


if __name__ == "__main__":
    main()
