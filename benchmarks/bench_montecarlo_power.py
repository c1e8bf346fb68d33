"""Power of the Monte Carlo auditor on the catalog: certified lower bound / true ε.

Audits every catalog mechanism with 10⁶ runs per input (per neighbour pair) in one stage (no
sequential stopping, so the bound is the best the budget certifies) on local processes, and
prints per mechanism the true ε, the claim, the certified bound, their ratio and whether the
verdict is the expected one (every buggy mechanism flagged, no correct one).
Usage: python benchmarks/bench_montecarlo_power.py [--samples N] [--workers W]
"""

from __future__ import annotations

import argparse
import time

from dpledger.verify.audit.montecarlo import local_processes
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import run_catalog
from dpledger.verify.service.audit import catalog_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000, help="runs per input (default 1e6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--confidence", type=float, default=0.95)
    args = parser.parse_args()
    started = time.perf_counter()
    with local_processes(args.workers) as pool:
        rows = run_catalog(pool, samples=args.samples, confidence=args.confidence, stages=1)
    print(f"catalog at {args.samples:,} runs per input, confidence {args.confidence}, one stage")
    print(catalog_table(rows))
    flagged_buggy = sum(row.result.violation for row in rows if not row.entry.correct)
    flagged_correct = sum(row.result.violation for row in rows if row.entry.correct)
    print(
        f"buggy flagged: {flagged_buggy}/{sum(not row.entry.correct for row in rows)}; "
        f"correct flagged: {flagged_correct}/{sum(row.entry.correct for row in rows)}; "
        f"{time.perf_counter() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
