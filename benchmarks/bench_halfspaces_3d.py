"""CarryForwardLearner on halfspaces in d = 3 as ``dpledger run carry-forward --class halfspaces
--dim 3 --grid X --m M --n N --seed s`` runs it (seed 000, Section 8 and Appendix C; target: test
error ≤ 0.15 at m = 200, grid 8, in under 60 s on 2 cores).

n defaults to the smallest n at which the command's tight calibration for its default (ε, δ) =
(1, 10⁻⁶) takes m itself (Section 6's tight accounting, ``tight_n``: 2,751,753 for m = 200), so
the run's derived guarantee meets its claim; a smaller ``--n`` with ``--m`` runs at an m the
claim does not cover (the claim column says so). Per seed: the run's CPU and wall seconds (the
service call the command makes, without the interpreter's start-up), its test error, whether the
claim holds, and the test error of the non-private LP ERM on the first 3m training records; then
the medians over the seeds. ``--diagnose`` adds, on the same data, the
learner with the exponential coordinate oracle at the command's ε_A = 4 and at ε_A = 1000 (nearly
the exact maximizer of Q_i^S: not a private configuration, it shows what the oracle's privacy
costs at this m; LabelBoost stays as it is).

    python benchmarks/bench_halfspaces_3d.py [--m 200] [--grid 8] [--seeds 5] [--first-seed 0] [--n N] [--diagnose]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
from bench_halfspaces import lp_erm

from dpledger.accountant.section6 import Target, tight_n
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces
from dpledger.learners.synthetic import random_concept
from dpledger.verify.service.run import carry_forward, run_seeds

TEST_SIZE = 10_000
"""The command's default test set."""


def data(
    grid: int, n: int, seed: int
) -> tuple[GridHalfspaces, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The records the command draws for ``--seed seed``: the class, X, y, X_test, y_test."""
    C = GridHalfspaces(3, grid)
    rng = np.random.default_rng(run_seeds(seed)[0])
    target = random_concept(C, rng)
    X = rng.integers(-grid, grid + 1, size=(n, 3))
    X_test = rng.integers(-grid, grid + 1, size=(TEST_SIZE, 3))
    return C, X, C.evaluate(target, X).astype(np.int64), X_test, C.evaluate(target, X_test)


def diagnostic_error(grid: int, n: int, m: int, seed: int, oracle: Any) -> float:
    """The learner's test error on the command's records with another oracle."""
    C, X, y, X_test, y_test = data(grid, n, seed)
    learner = CarryForwardLearner(C, oracle=oracle, m=m, random_state=run_seeds(seed)[1]).fit(X, y)
    return 1 - learner.score(X_test, y_test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--grid", type=int, default=8)
    parser.add_argument("--n", type=int, help="default: the smallest n whose tight calibration gives m")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--first-seed", type=int, default=0, help="seeds first-seed, …, first-seed + seeds − 1"
    )
    parser.add_argument("--diagnose", action="store_true")
    args = parser.parse_args()
    if args.n is None:
        args.n = tight_n(Target.of(3 * args.m, 4, 1, "1e-6"), args.m)
    print(
        f"dpledger run carry-forward --class halfspaces --dim 3 --grid {args.grid} --m {args.m} "
        f"--n {args.n} --seed s (oracle ipconcave), test {TEST_SIZE} points"
    )
    header = f"{'seed':>4} {'CPU s':>7} {'wall s':>7} {'test err':>9} {'claim':>6} {'LP ERM 3m':>9}"
    if args.diagnose:
        header += f" {'EM ε_A=4':>9} {'EM ε_A=1000':>11}"
    print(header)
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        start, cpu = time.perf_counter(), time.process_time()
        out = carry_forward(concept="halfspaces", n=args.n, m=args.m, seed=seed, dim=3, grid=args.grid)
        row = [time.process_time() - cpu, time.perf_counter() - start, out.payload["test_error"]]
        _, X, y, X_test, y_test = data(args.grid, args.n, seed)
        a, w = lp_erm(X[: 3 * args.m], y[: 3 * args.m])
        row.append(float(np.mean((X_test @ a >= w).astype(np.int64) != y_test)))
        claim = "holds" if out.payload["holds"] else "FAILS"
        line = f"{seed:>4} {row[0]:>7.1f} {row[1]:>7.1f} {row[2]:>9.4f} {claim:>6} {row[3]:>9.4f}"
        if args.diagnose:
            for epsilon in (4, 1000):
                oracle = ExponentialDepthOracle(epsilon=epsilon)
                row.append(diagnostic_error(args.grid, args.n, args.m, seed, oracle))
            line += f" {row[4]:>9.4f} {row[5]:>11.4f}"
        rows.append(row)
        print(line, flush=True)
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    line = f"{'med':>4} {medians[0]:>7.1f} {medians[1]:>7.1f} {medians[2]:>9.4f} {'':>6} {medians[3]:>9.4f}"
    if args.diagnose:
        line += f" {medians[4]:>9.4f} {medians[5]:>11.4f}"
    print(line)


if __name__ == "__main__":
    main()
