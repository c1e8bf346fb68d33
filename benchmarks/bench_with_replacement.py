"""Sampling with replacement (SubsampleWithReplacement, Lemma 8.15 as derived in the event's docstring):
the accountant's rule, log A = m·log(1 + (e^ε − 1)/N), against the truth over *every* ε-DP child computed
by linear programming (dpledger.verify.audit.with_replacement_lp, HiGHS) on 225 small instances, beside
the looser rule it replaced, log(A/B) with B = (1 + (e^{−ε} − 1)/N)^m; then the δ at ε′ = log A for
(ε, 0.01)-DP children against the LP; then the Boolean oracle's use (ε_B = 1, 4 draws from N = 40), where
the LP is too large and the docstring's witness child proves log A exact.

Run: python benchmarks/bench_with_replacement.py   (prints figures only, asserts nothing; a few seconds)
"""

from __future__ import annotations

import math
import time

from dpledger.accountant import events as ev
from dpledger.accountant.rules import account
from dpledger.verify.audit.with_replacement_lp import exact_delta, exact_epsilon

EPSILONS = [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0]
INSTANCES = (
    [(1, n) for n in range(1, 11)] + [(2, n) for n in range(1, 11)] + [(3, n) for n in range(1, 6)]
)  # (m, N)
DELTA = 0.01


def rule(epsilon: float, delta: float, draws: int, population: int) -> tuple[float, float]:
    child = ev.PureDP(epsilon) if delta == 0 else ev.ApproxDP(epsilon, delta)
    g = account(ev.SubsampleWithReplacement(child, draws, population)).guarantee
    return g.epsilon_upper, g.delta_upper


def looser(epsilon: float, draws: int, population: int) -> float:
    """The replaced rule's ε, log(A/B)."""
    return draws * (
        math.log1p(math.expm1(epsilon) / population) - math.log1p(math.expm1(-epsilon) / population)
    )


def main() -> None:
    start = time.perf_counter()
    ratios_new, ratios_old, worst_delta = [], [], 0.0
    for draws, population in INSTANCES:
        for epsilon in EPSILONS:
            truth = exact_epsilon(epsilon, draws, population)
            derived, _ = rule(epsilon, 0.0, draws, population)
            ratios_new.append(derived / truth)
            ratios_old.append(looser(epsilon, draws, population) / truth)
    print(f"{len(ratios_new)} pure instances: ε ∈ {EPSILONS}, m = 1, 2 with N = 1..10, m = 3 with N = 1..5")
    print(f"  rule log A / LP truth:          min {min(ratios_new):.9f}  max {max(ratios_new):.9f}")
    print(f"  replaced log(A/B) / LP truth:   min {min(ratios_old):.3f}  max {max(ratios_old):.3f}")
    for draws, population in INSTANCES[::4]:
        epsilon = 1.0
        derived_eps, derived_delta = rule(epsilon, DELTA, draws, population)
        truth = exact_delta(epsilon, DELTA, draws, population, derived_eps)
        worst_delta = max(worst_delta, abs(derived_delta - truth) / derived_delta)
        print(
            f"  ε = 1, δ = {DELTA}, m = {draws}, N = {population:>2}: δ′ at log A: rule {derived_delta:.9f}, "
            f"LP {truth:.9f}"
        )
    print(f"  largest relative gap of the δ′ shown: {worst_delta:.2e}")
    derived, _ = rule(1.0, 0.0, 4, 40)
    print(
        f"Boolean oracle's use (ε_B = 1, 4 draws from N = 40): rule log A = {derived:.4f}, "
        f"replaced log(A/B) = {looser(1.0, 4, 40):.4f} ({looser(1.0, 4, 40) / derived:.2f}×)"
    )
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
