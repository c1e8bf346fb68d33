"""Benchmark: the free-constant calibration of Theorems 5.1 and 8.19.

For k ∈ {2, 3, 5, 11, 21, 51, 101} at (α, β, δ) = (0.1, 0.1, 1e-6) and ε ∈ {0.5, 1}, prints the
paper's n (Algorithm 2 line 2), the tight n with the paper's constants (ε_A = 4), the n with the
free constants chosen by :mod:`dpledger.learners.calibration.free_constants` (certified at the
choice), the ratios, the chosen constants and the seconds the point took (all three n) — the same
figures as the table of ``reports/calibration_theorems.md``. Theorem 5.1: k components, v = k,
|Y_i| = 2^16 + 1, completion-score oracle; Theorem 8.19: k threshold components on [0, 2^16).
Goal: paper / free ≥ 20 at every k and ≥ 100 at k ≤ 5.
Run: python benchmarks/bench_free_constants.py  (several minutes: the paper and tight columns are
recomputed too)
"""

from __future__ import annotations

import time

from dpledger.verify.reports.calibration_theorems import (
    DEFAULT,
    FREE_EPSILON,
    FREE_K,
    FREE_THEOREMS,
    THEOREMS,
)


def main() -> None:
    print(
        f"{'theorem':<13} {'ε':>4} {'k':>4} {'n paper':>10} {'n tight':>10} {'n free':>10} {'paper/free':>10} "
        f"{'tight/free':>10} {'goal':>5}  chosen constants  (seconds)"
    )
    for epsilon in FREE_EPSILON:
        for name in FREE_THEOREMS:
            point = THEOREMS[name][0]
            for k in FREE_K:
                start = time.perf_counter()
                payload = point({**DEFAULT, "epsilon": epsilon}, k)
                seconds = time.perf_counter() - start
                free = payload["free"]
                c = free["constants"]
                ratio = free["saving_over_paper"]
                goal = "ok" if ratio >= (100 if k <= 5 else 20) and free["guarantee"]["holds"] else "MISS"
                oracle = (
                    f"ε_B = {c['epsilon_B']}, θ = {c['learner_tau_share']}, ε_A ≤ {c['epsilon_A']:.4g}"
                    if "epsilon_B" in c
                    else f"ε_A = {c['epsilon_A']:.4g}"
                )
                print(
                    f"{name:<13} {epsilon:>4} {k:>4} {payload['n_paper']:>10.3e} {payload['n_tight']:>10.3e} "
                    f"{free['n_free']:>10.3e} {ratio:>10.1f} {free['saving_over_tight']:>10.2f} {goal:>5}  "
                    f"{oracle}, ρ = {c['rho']}, τ = {c['tau']:.3g}  ({seconds:.1f})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
