"""Benchmarks for LabelBoost (Algorithm 1) and its exact auditor.

Prints (1) the wall-clock and CPU time (parent and worker processes) of the exact audit behind
``dpledger audit labelboost --class intervals --domain-size D --labeled 3 --unlabeled 3`` over all
neighbour pairs, for D = 6 (288,288 pairs; target: under 10 s on 2 cores) and D = 8
(1,958,400 pairs; target: under 2 minutes), on 2 local processes and, with ``--dask``, on a local
Dask cluster of 2 workers — the same certified ε on both; (2) the time of one sampled LabelBoost
run on |S| = |T| = 1000 points for intervals on a grid of 10^6 (target: under 1 s; ≈ 2·10^6
candidates), (3) halfspaces on [[±256]]² at |S| = |T| = m = 200, 500, 1000 (d = 2 at
m = 1,000): the time to count the trace by score, of one exact draw (score group, labeling,
representative), and of today's listing where it still runs (m = 200; all three with
``--listing``), and (4) the exact ε and tightness of every lemma for each class at moderate sizes
(``--table``). Wall times depend on the machine's load, so the load average is printed beside them.
Run: python benchmarks/bench_labelboost.py [--quick] [--dask] [--table] [--listing]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from dpledger.learners.carry_forward import CarryForwardLearner
from dpledger.learners.concept_classes import Intervals, Rectangles
from dpledger.learners.exponential_mechanism import exponential_mechanism_counted
from dpledger.learners.halfspaces import GridHalfspaces
from dpledger.learners.halfspaces.geometry import restricted_trace
from dpledger.learners.labelboost import LABELBOOST_EPSILON, labelboost
from dpledger.learners.randomness import Sampled
from dpledger.learners.trace_counting import counted_trace
from dpledger.verify.audit.montecarlo.executors import dask_executor
from dpledger.verify.paper.labelboost_audit import (
    RELEASES,
    LabelBoostAudit,
    audit_labelboost,
)


def audit_figure(domain: int, labeled: int, unlabeled: int, scheduler: str = "processes") -> None:
    """One exact carrier audit on 2 workers: local processes, or a local Dask cluster."""
    audit = LabelBoostAudit("intervals", domain, labeled, unlabeled, "carrier")
    wall, cpu, children = time.perf_counter(), time.process_time(), os.times()
    if scheduler == "dask":
        with dask_executor(None, workers=2) as executor:
            result = audit_labelboost(audit, executor=executor)
    else:
        result = audit_labelboost(audit, workers=2)
    wall = time.perf_counter() - wall
    after = os.times()
    cpu = time.process_time() - cpu + (after.children_user - children.children_user)
    print(
        f"audit labelboost intervals D={domain} |S|={labeled} |T|={unlabeled} on 2 {scheduler}: {result.pairs} pairs, "
        f"{result.datasets} datasets, {result.distributions} distributions, ε_exact ∈ [{result.epsilon[0]!r}, "
        f"{result.epsilon[1]!r}], holds {result.holds}; wall {wall:.1f} s, CPU {cpu:.1f} s "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


def sampled_figure(m: int, repeats: int = 5) -> None:
    """Fresh data on every repeat (LabelBoost memoises its deterministic part on the input)."""
    data, rng, times = np.random.default_rng(0), Sampled(0), []
    for _ in range(repeats):
        xs = data.integers(0, 10**6, m)
        ys = ((xs >= 200_000) & (xs < 700_000)).astype(int)
        xt = data.integers(0, 10**6, m)
        start = time.perf_counter()
        result = labelboost(Intervals(10**6), xs, ys, xt, rng)
        times.append(time.perf_counter() - start)
    print(
        f"labelboost sampled, intervals on 10^6, |S| = |T| = {m}: {result.candidates} candidates, "
        f"median {np.median(times):.3f} s, max {max(times):.3f} s over {repeats} runs; "
        f"err_S(h) = {np.mean(result.labeled != ys):.4f}"
    )


def rectangle_figures(quick: bool) -> None:
    data = np.random.default_rng(0)
    small = Rectangles(16)
    P = data.integers(0, 16, (60, 2))
    start = time.perf_counter()
    size = small.trace(P).size
    box = time.perf_counter() - start
    start = time.perf_counter()
    listed = small.enumerated_trace(P).size
    print(
        f"rectangles on 16×16, |P| = 60: tight-box trace {size} labelings in {box:.3f} s; listed by evaluating "
        f"all {len(list(small.completions()))} hypotheses: {listed} labelings in {time.perf_counter() - start:.2f} s"
    )
    C, target = Rectangles(64), (10, 50, 5, 40)
    xs, xt = data.integers(0, 64, (200, 2)), data.integers(0, 64, (200, 2))
    start = time.perf_counter()
    result = labelboost(C, xs, C.evaluate(target, xs), xt, Sampled(0))
    print(
        f"labelboost sampled, rectangles on 64×64, |S| = |T| = 200: {result.candidates} candidates in "
        f"{time.perf_counter() - start:.2f} s (the point-set listing was O(|P|⁵): not run)"
    )
    if quick:
        return
    X, X_test = data.integers(0, 64, (6000, 2)), data.integers(0, 64, (20000, 2))
    start = time.perf_counter()
    learner = CarryForwardLearner(C, m=200, random_state=0).fit(X, C.evaluate(target, X))
    print(
        f"CarryForwardLearner, rectangles on 64×64, m = 200: fit {time.perf_counter() - start:.2f} s, "
        f"test error {1 - learner.score(X_test, C.evaluate(target, X_test)):.4f}"
    )


def halfspace_figure(m: int, listing: bool) -> None:
    """Algorithm 1 over halfspaces on [[±256]]², S labeled by a fixed halfspace, |S| = |T| = m."""
    C, data = GridHalfspaces(2, 256), np.random.default_rng(m)
    records = data.integers(-256, 257, (2 * m, 2))
    ys = C.evaluate((1, 3, -2), records[:m]).astype(np.int64)
    points, position = np.unique(records, axis=0, return_inverse=True)
    position = position.reshape(-1)[:m]
    start = time.perf_counter()
    counted = counted_trace(C, points, position, ys)
    assert counted is not None  # halfspaces are counted
    table = counted.score_counts()
    count = time.perf_counter() - start
    start, rng = time.perf_counter(), Sampled(0)
    group = exponential_mechanism_counted(table.scores, table.counts, LABELBOOST_EPSILON, 1, rng)
    labeling = counted.labeling(table.scores[group], rng.integer(table.counts[group]))
    hypothesis = counted.representative(labeling)
    draw = time.perf_counter() - start
    assert (C.evaluate(hypothesis, points) == labeling).all()
    line = (
        f"halfspaces d = 2 on [[±256]]², m = {m}, |P| = {len(points)}: {table.size} labelings counted in "
        f"{count:.2f} s; one exact draw (score group, labeling, representative) "
        f"{draw:.2f} s, score {table.scores[group]}/{m}"
    )
    if listing:
        start = time.perf_counter()
        listed = restricted_trace(C, (), points)
        listed.agreement(position, ys)
        line += f"; listing {listed.size} labelings {time.perf_counter() - start:.1f} s"
    print(line + f" (load average {os.getloadavg()[0]:.1f})")


def lemma_table() -> None:
    sizes = {
        "thresholds": (6, 3, 3),
        "intervals": (6, 3, 3),
        "rectangles": (2, 3, 2),
        "halfspaces": (3, 2, 2),
    }
    for name, (domain, labeled, unlabeled) in sizes.items():
        for release in RELEASES:
            audit = LabelBoostAudit(name, domain, labeled, unlabeled, release)
            start = time.perf_counter()
            r = audit_labelboost(audit, workers=2)
            print(
                f"{name:<10} D={domain} {labeled}+{unlabeled} {release:<12} {audit.statement:<14} "
                f"ε_exact ∈ [{r.epsilon[0]:.9g}, {r.epsilon[1]:.9g}] bound {float(r.bound):.9g} "
                f"holds {r.holds} tightness {r.tightness:.4f} pairs {r.pairs} δ(bound) ≤ {r.delta_at_bound:.3g} "
                f"({time.perf_counter() - start:.1f} s)"
            )


if __name__ == "__main__":
    sampled_figure(1000)
    for size in (200, 500, 1000):
        halfspace_figure(size, size == 200 or "--listing" in sys.argv)
    rectangle_figures("--quick" in sys.argv)
    schedulers = ["processes", "dask"] if "--dask" in sys.argv else ["processes"]
    for scheduler in schedulers:
        for domain, labeled, unlabeled in [(5, 2, 2)] if "--quick" in sys.argv else [(6, 3, 3), (8, 3, 3)]:
            audit_figure(domain, labeled, unlabeled, scheduler)
    if "--table" in sys.argv:
        lemma_table()
