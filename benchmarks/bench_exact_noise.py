"""Fit time of the seed-002 agnostic learners at d = 10, n = 100 000 (cost target:
exact discrete noise costs no more than 2× float samplers).

    /work/venv/bin/python benchmarks/bench_exact_noise.py [--repeats 3]

Prints, per learner, the median wall-clock fit time over ``--repeats`` seeds (ε = 1, δ = 1e-5).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dpledger.learners.agnostic import (
    PrivateImproperLearner,
    PrivateProperLearner,
    PrivateSemiAgnosticLearner,
)
from dpledger.learners.agnostic.data import halfspace_data
from dpledger.learners.randomness import Sampled

LEARNERS = {
    "improper D=2 (Thm 2.1)": lambda seed: PrivateImproperLearner(1.0, 1e-5, degree=2, random_state=seed),
    "proper D=2 (Thm 3.1)": lambda seed: PrivateProperLearner(1.0, 1e-5, random_state=seed),
    "semi-agnostic (Thm 4.1)": lambda seed: PrivateSemiAgnosticLearner(1.0, 1e-5, random_state=seed),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=10)
    args = parser.parse_args()
    data = halfspace_data(args.n, args.dim, 0.1, "random", Sampled(0))
    for name, factory in LEARNERS.items():
        times = []
        for seed in range(args.repeats):
            start = time.perf_counter()
            with np.errstate(all="ignore"):
                factory(seed).fit(data.X, data.y)
            times.append(time.perf_counter() - start)
        print(
            f"{name:28s} median {statistics.median(times):7.3f} s  (runs: {', '.join(f'{t:.3f}' for t in times)})"
        )


if __name__ == "__main__":
    main()
