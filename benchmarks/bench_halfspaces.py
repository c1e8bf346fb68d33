"""Halfspaces by CarryForwardLearner with the coordinate oracles of seed 000, Sections 8.1–8.3.

Prints (1) one full fit per (d, oracle, seed) at m = 200 on [[±X]]^d: wall and CPU time, test
error, the non-private LP ERM's test error on the same training data, and per round the depth
Q_i^S(y_i) achieved against m; (2) for d = 3, the time of the exact Q_2^S (two free coefficients)
on realizable samples of growing m; (3) the sample requirements M_A(τ) each oracle's analysis
gives for the domain sizes N of Definition 8.2 at this grid (constants c = 1 where the seed hides them).

    python benchmarks/bench_halfspaces.py [--grid X] [--m M] [--seeds S] [--dims 1,2,3] [--oracles ...]

d = 3 needs X ≤ 14 (domain sizes below 2^62); its LabelBoost after (w,) counts a 3-D arrangement
whose degenerate vertices (frequent on small grids) take the slow exact path.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy
from scipy.optimize import linprog

from dpledger.learners.calibration.halfspaces import ORACLES, requirement_at
from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.halfspaces import ExponentialDepthOracle, GridHalfspaces, IPConcaveOracle, QCOptOracle
from dpledger.learners.halfspaces.depth import coordinate_objective
from dpledger.learners.halfspaces.oracles import ORACLE_DELTA
from dpledger.learners.synthetic import random_concept


def lp_erm(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Non-private ERM on realizable data: a feasible (a, w) of ℓ_j(⟨a, x_j⟩ − w) ≥ 1 (HiGHS LP)."""
    signs = 2 * y - 1
    A = -signs[:, None] * np.hstack([X, -np.ones((len(X), 1))])
    result = linprog(
        np.zeros(X.shape[1] + 1), A_ub=A, b_ub=-np.ones(len(X)), bounds=(None, None), method="highs"
    )
    if result.status != 0:
        raise RuntimeError(f"LP ERM failed: {result.message}")
    return result.x[:-1], float(result.x[-1])


def fit_row(dimension: int, grid: int, m: int, seed: int, name: str) -> dict:
    C = GridHalfspaces(dimension, grid)
    rng = np.random.default_rng(seed)
    target = random_concept(C, rng)
    X = rng.integers(-grid, grid + 1, size=(3 * m, dimension))
    X_test = rng.integers(-grid, grid + 1, size=(20_000, dimension))
    y, y_test = C.evaluate(target, X).astype(np.int64), C.evaluate(target, X_test)
    oracle = {"exponential": ExponentialDepthOracle, "qcopt": QCOptOracle, "ipconcave": IPConcaveOracle}[
        name
    ](telemetry=True)
    start, cpu = time.perf_counter(), time.process_time()
    learner = CarryForwardLearner(C, oracle=oracle, m=m, random_state=seed).fit(X, y)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    a, w = lp_erm(X, y)
    erm_error = float(np.mean((X_test @ a >= w).astype(np.int8) != y_test))
    depths = " ".join(f"{r.depth}/{r.m}" for r in oracle.history_)
    return {
        "d": dimension,
        "oracle": name,
        "seed": seed,
        "seconds": seconds,
        "cpu": cpu,
        "error": 1 - learner.score(X_test, y_test),
        "erm": erm_error,
        "depths": depths,
        "full_depth": all(r.full_depth_in_domain for r in oracle.history_),
    }


def objective_timings(grid: int, sizes: tuple[int, ...] = (50, 100, 200)) -> list[str]:
    """Wall and CPU seconds of the exact Q_2^S for d = 3 (prefix (w,)) on realizable samples."""
    C = GridHalfspaces(3, grid)
    rows = []
    for m in sizes:
        rng = np.random.default_rng(m)
        target = random_concept(C, rng)
        X = rng.integers(-grid, grid + 1, size=(m, 3))
        y = C.evaluate(target, X).astype(np.int64)
        start, cpu = time.perf_counter(), time.process_time()
        Q = coordinate_objective(X, y, target[:1])
        rows.append(
            f"  m = {m}: {time.perf_counter() - start:.2f} s wall, {time.process_time() - cpu:.2f} s CPU, "
            f"{len(Q.breakpoints)} breakpoints after merging, maximum {Q.maximum}"
        )
    return rows


def requirements(dimension: int, grid: int, alpha: float = 0.1, beta: float = 0.1) -> list[str]:
    """M_A(τ) of each oracle at τ = α/(40k), β_A = β/(4k), ε_A = 4 and the oracles' default δ_A,
    from the calibration (:func:`~dpledger.learners.calibration.halfspaces.requirement_at`)."""
    C = GridHalfspaces(dimension, grid)
    k = dimension + 1
    tau = sympy.nsimplify(alpha) / (40 * k)
    beta_a = sympy.nsimplify(beta) / (4 * k)
    prefix: tuple = (1,)
    N = 2
    for _ in range(dimension):
        domain = C.next_values(prefix)
        N = max(N, domain.size)
        prefix += (domain[0],)
    delta_a = sympy.Rational(ORACLE_DELTA.numerator, ORACLE_DELTA.denominator)
    lines = [
        f"d = {dimension}, X = {grid}: N = {N:.3e}, τ = {float(tau):.3g}, β_A = {float(beta_a):.3g}, δ_A = {float(delta_a):.0e}"
    ]
    for name, label in ORACLES.items():
        req = requirement_at(name, dimension, sympy.log(N), tau, beta_a, delta_a)
        detail = (
            f"E = {req.loss:.1f}" if req.loss is not None else f"t = {req.blocks} × r = {req.block_size:,}"
        )
        depth = "" if req.depth is None else f", recursion depth {req.depth}"
        lines.append(f"  {label}: {detail}{depth} → M_A = {req.m_oracle:,}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=16)
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--dims", default="1,2", help="comma-separated dimensions (3: grid ≤ 14)")
    parser.add_argument("--oracles", default="exponential,qcopt,ipconcave")
    args = parser.parse_args()
    dimensions = [int(v) for v in args.dims.split(",")]
    print(
        f"CarryForwardLearner on halfspaces, grid [[±{args.grid}]]^d, m = {args.m}, n = 3m, test 20 000 points"
    )
    print(
        f"{'d':>2} {'oracle':>12} {'seed':>4} {'fit s':>7} {'CPU s':>7} {'test err':>9} {'LP ERM err':>10}  depth/m per round   full depth in Ỹ_i"
    )
    for dimension in dimensions:
        for name in args.oracles.split(","):
            for seed in range(args.seeds):
                row = fit_row(dimension, args.grid, args.m, seed, name)
                print(
                    f"{row['d']:>2} {row['oracle']:>12} {row['seed']:>4} {row['seconds']:>7.1f} {row['cpu']:>7.1f} {row['error']:>9.4f} "
                    f"{row['erm']:>10.4f}  {row['depths']:<19} {row['full_depth']}"
                )
    if 3 in dimensions:
        print(f"\nExact Q_2^S for d = 3 on [[±{args.grid}]]³ (two free coefficients):")
        print("\n".join(objective_timings(args.grid)))
    print("\nSample requirements M_A(τ) of the oracles (α = β = 0.1, ε_A = 4):")
    for dimension in dimensions:
        print("\n".join(requirements(dimension, args.grid)))


if __name__ == "__main__":
    main()
