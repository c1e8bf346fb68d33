"""False alarms of the Monte Carlo search's event choice on exactly tight mechanisms.

Each mechanism below is exactly ε-DP on its pair, with events attaining ε, so an audit of the
claim ε may flag it only by bad luck — with probability at most 1 − confidence, whatever events
the search chooses on split 1 (the choice is corrected for on split 2). Each exercises families of
the choice: the two-sided geometric on integers (ε = 1; value sets and intervals of integers),
GeoSample (Balcer–Vadhan, ε = ln 9/8; value sets of six values), randomized response on four
bits (ε = 4 × 0.25; value sets of bit rows, learned scores and counts of binary vectors) and a
snapped Laplace vector with input-independent markers
(:class:`~dpledger.verify.audit.montecarlo.catalogs.known_epsilon.MarkedLaplace`, ε = 1; learned
scores and counts that standardise numbers apart from markers).

Per mechanism: ``--audits`` audits (seeds 0, 1, …; ``--samples`` runs per input, one stage,
confidence ``--confidence``), the share whose verdict is ``VIOLATION`` beside the bound
1 − confidence, and how often each family's event certified the audit's bound (its witness).
Usage: python benchmarks/bench_montecarlo_choice.py [--audits A] [--samples N] [--confidence C]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.audit import VIOLATION
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import (
    MarkedLaplace,
    OneSidedLeak,
    RandomizedResponseVector,
)
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import TruncatedGeometric


def tight() -> list[tuple[str, Any, NeighbourPair, float]]:
    """``(name, mechanism, pair, exact ε)`` of the tight mechanisms."""
    geometric = TruncatedGeometric(3, 5)

    def pair(a: Any, b: Any) -> NeighbourPair:
        return NeighbourPair(np.asarray(a), np.asarray(b), f"{a} vs {b}")

    return [
        ("two-sided geometric", OneSidedLeak("discrete", 0.0), pair(0.0, 1.0), 1.0),
        ("GeoSample (k = 3)", geometric, pair(2, 1), geometric.epsilon),
        ("randomized response ×4", RandomizedResponseVector(0.25), pair([0] * 4, [1] * 4), 1.0),
        ("marked Laplace ×4", MarkedLaplace(4.0), pair([0.0] * 4, [1.0] * 4), 1.0),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=500, help="audits per mechanism (default 500)")
    parser.add_argument("--samples", type=int, default=10_000, help="runs per input (default 10^4)")
    parser.add_argument("--confidence", type=float, default=0.9)
    args = parser.parse_args()
    serial = InProcessExecutor()
    print(
        f"false alarms: {args.audits} audits per tight mechanism at its exact ε, "
        f"{args.samples:,} runs per input, one stage, confidence {args.confidence}"
    )
    for name, mechanism, pair, epsilon in tight():
        started = time.process_time()
        results = [
            audit(
                mechanism,
                [pair],
                epsilon,
                samples=args.samples,
                confidence=args.confidence,
                seed=seed,
                executor=serial,
                stages=1,
            )
            for seed in range(args.audits)
        ]
        flagged = sum(result.verdict == VIOLATION for result in results)
        witnesses = Counter(
            result.real_witness["family"] if result.real_witness else "none" for result in results
        )
        print(
            f"{name:<24} flagged {flagged}/{args.audits} = {flagged / args.audits:.3f} "
            f"(bound {1 - args.confidence:.2f}); {time.process_time() - started:.0f} CPU s; "
            "witness families: " + ", ".join(f"{family} {count}" for family, count in witnesses.most_common())
        )


if __name__ == "__main__":
    main()
