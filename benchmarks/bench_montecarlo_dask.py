"""The same audits on a Dask LocalCluster and on local processes: identical numbers, and the time.

Usage: python benchmarks/bench_montecarlo_dask.py [--samples N] [--workers W] [--scheduler ADDR]
(needs ``pip install 'dpledger[dist]'``; ``--scheduler`` points at an existing cluster instead).
"""

from __future__ import annotations

import argparse
import time

from dpledger.verify.audit.montecarlo import dask_executor, local_processes
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import run_catalog

AUDITS = ["laplace", "noisy_max_value", "svt_4", "histogram"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000, help="runs per input (default 1e6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address (default: a LocalCluster)")
    args = parser.parse_args()
    timings = {}
    numbers = {}
    with local_processes(args.workers) as pool:
        started = time.perf_counter()
        numbers["local processes"] = run_catalog(pool, samples=args.samples, names=AUDITS)
        timings["local processes"] = time.perf_counter() - started
    with dask_executor(args.scheduler, workers=args.workers) as executor:
        started = time.perf_counter()
        numbers["dask"] = run_catalog(executor, samples=args.samples, names=AUDITS)
        timings["dask"] = time.perf_counter() - started
    print(f"{'mechanism':<18} {'ε_lower (processes)':>20} {'ε_lower (dask)':>16}  identical")
    for local, dask in zip(numbers["local processes"], numbers["dask"], strict=True):
        same = (local.result.epsilon_lower, local.result.witness) == (
            dask.result.epsilon_lower,
            dask.result.witness,
        )
        print(
            f"{local.entry.name:<18} {local.result.epsilon_lower:>20.6f} {dask.result.epsilon_lower:>16.6f}  {same}"
        )
    cluster = args.scheduler or f"LocalCluster, {args.workers} worker processes"
    print(f"local processes ({args.workers} workers): {timings['local processes']:.2f} s")
    print(f"dask ({cluster}): {timings['dask']:.2f} s (after cluster start-up)")


if __name__ == "__main__":
    main()
