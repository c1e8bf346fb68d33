"""Benchmarks for LabelBoost (Algorithm 1) and its exact auditor.

Prints (1) the wall-clock and CPU time of
``dpledger audit labelboost --class intervals --domain-size 6 --labeled 3 --unlabeled 3`` over all
neighbour pairs (target: under 60 s on 2 cores), (2) the time of one sampled LabelBoost run on
|S| = |T| = 1000 points for intervals on a grid of 10^6 (target: under 1 s; ≈ 2·10^6 candidates),
and (3) the exact ε and tightness of every lemma for each class at moderate sizes (``--table``).
Run: python benchmarks/bench_labelboost.py [--quick] [--table]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from dpledger.learners.concept_classes import Intervals
from dpledger.learners.labelboost import labelboost
from dpledger.learners.randomness import Sampled
from dpledger.verify.paper.labelboost_audit import RELEASES, LabelBoostAudit, audit_labelboost


def audit_figure(domain: int, labeled: int, unlabeled: int) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    children = os.times()
    result = audit_labelboost(LabelBoostAudit("intervals", domain, labeled, unlabeled, "carrier"), workers=2)
    wall = time.perf_counter() - wall
    after = os.times()
    cpu = time.process_time() - cpu + (after.children_user - children.children_user)
    print(f"audit labelboost intervals D={domain} |S|={labeled} |T|={unlabeled}: {result.pairs} pairs, "
          f"{result.distributions} distributions, ε_exact ≤ {result.epsilon[1]:.12g}, holds {result.holds}; "
          f"wall {wall:.1f} s, CPU {cpu:.1f} s (2 processes; load average {os.getloadavg()[0]:.1f})")


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
    print(f"labelboost sampled, intervals on 10^6, |S| = |T| = {m}: {result.candidates} candidates, "
          f"median {np.median(times):.3f} s, max {max(times):.3f} s over {repeats} runs; "
          f"err_S(h) = {np.mean(result.labeled != ys):.4f}")


def lemma_table() -> None:
    sizes = {"thresholds": (6, 3, 3), "intervals": (6, 3, 3), "rectangles": (2, 3, 2), "halfspaces": (3, 2, 2)}
    for name, (domain, labeled, unlabeled) in sizes.items():
        for release in RELEASES:
            audit = LabelBoostAudit(name, domain, labeled, unlabeled, release)
            start = time.perf_counter()
            r = audit_labelboost(audit, workers=2)
            print(f"{name:<10} D={domain} {labeled}+{unlabeled} {release:<12} {audit.statement:<14} "
                  f"ε_exact ∈ [{r.epsilon[0]:.9g}, {r.epsilon[1]:.9g}] bound {float(r.bound):.9g} "
                  f"holds {r.holds} tightness {r.tightness:.4f} pairs {r.pairs} δ(bound) ≤ {r.delta_at_bound:.3g} "
                  f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    sampled_figure(1000)
    if "--quick" in sys.argv:
        audit_figure(5, 2, 2)
    else:
        audit_figure(6, 3, 3)
    if "--table" in sys.argv:
        lemma_table()
