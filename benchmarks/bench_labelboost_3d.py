"""Benchmark for LabelBoost's trace of halfspaces in d = 3 ("halfspaces in d = 3 at
m = 200 in under 60 s"): Π_C(P) counted by score with :mod:`dpledger.learners.halfspaces.arrangement3d`
(never listed; today's listing refuses d = 3), for |P| = 100, 200, 400 distinct points of [[±256]]³
(m = |S| = |T| = |P|/2, S labeled by a fixed halfspace with 10% of its labels flipped).

Prints per size: |Π_C(P)|, the number of cells by kind (three-plane vertices, two-plane lines,
exact slow path), the count time (building the counts by score) and the time of one exact draw
(Algorithm 1 line 5: score group by the certified grouped exponential mechanism, then the labeling
of a uniform rank and its representative). Wall times depend on the machine's load, so the load
average and the process's CPU time are printed beside them.
With ``--dense`` it adds |P| = 120 on [[±4]]³, where most vertices and lines carry more than
three / two planes and go through the exact slow path (Python per vertex: slower per cell).
Run: python benchmarks/bench_labelboost_3d.py [--quick] [--dense]   (--quick: |P| = 100, 200 only)
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from dpledger.learners.exponential_mechanism import exponential_mechanism_counted
from dpledger.learners.halfspaces.arrangement3d import HalfspaceTrace3D
from dpledger.learners.labelboost import LABELBOOST_EPSILON
from dpledger.learners.randomness import Sampled


def instance(size: int, grid: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|P| = ``size`` distinct points of [[±grid]]³; S = the first half, labeled by 1[⟨a, x⟩ ≥ 1]
    for a fixed a, 10% flipped."""
    rng = np.random.default_rng(seed)
    P = rng.permutation(np.unique(rng.integers(-grid, grid + 1, (4 * size, 3)), axis=0))[:size]
    index = np.arange(size // 2)
    labels = (P[index] @ np.array([3, -2, 5]) >= 1).astype(np.int64)
    flip = rng.random(len(labels)) < 0.1
    return P, index, np.where(flip, 1 - labels, labels)


def figure(size: int, grid: int = 256) -> None:
    P, index, labels = instance(size, grid)
    start, cpu = time.perf_counter(), time.process_time()
    trace = HalfspaceTrace3D(P, index, labels)
    table = trace.score_counts()
    counted, cpu = time.perf_counter() - start, time.process_time() - cpu
    rng = Sampled(0)
    start = time.perf_counter()
    group = exponential_mechanism_counted(table.scores, table.counts, LABELBOOST_EPSILON, 1, rng)
    labeling = trace.labeling(table.scores[group], rng.integer(table.counts[group]))
    hypothesis = trace.representative(labeling)
    drawn = time.perf_counter() - start
    cells = trace.cells
    print(
        f"halfspaces d=3 on [[±{grid}]]³ |P|={size} (m={size // 2}): |Π_C(P)| = {table.size:,} "
        f"({len(cells.simple):,} vertex cells, {len(cells.lines):,} line cells, {len(cells.recipes):,} exact-path cells, "
        f"{int(trace.shared.sum()):,} central); count {counted:.1f} s (CPU {cpu:.1f} s), one draw {drawn:.2f} s "
        f"(score {table.scores[group]} of max {table.scores[-1]}, w = {hypothesis[0]}) "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    sizes = (100, 200) if "--quick" in sys.argv[1:] else (100, 200, 400)
    for size in sizes:
        figure(size)
    if "--dense" in sys.argv[1:]:
        figure(120, 4)


if __name__ == "__main__":
    main()
