"""Rare one-sided leaks, δ leaks and false alarms of the Monte Carlo auditor's one-sided families.

Part 1, power: for each place of the leak (:class:`~dpledger.verify.audit.montecarlo.catalogs.known_epsilon.OneSidedLeak`:
tail, bulk, float atom, discrete value, vector row, the input released exactly, a shifted copy of the
law) and each budget of ``k/p`` runs per input, the share of ``--seeds`` audits (claim ε = 1;
``--stages``, default one, so that the bound is the budget's and not an early stop's) whose verdict
is ``VIOLATION``, the median certified bound, and the bound of the single best fixed event — "the
output is the leak", counted on all the runs at the level of the leading event of a one-stage
audit, known in advance — with the median's ratio to it.

Part 2, δ: the same leaks at probability ``--delta-p`` (2·10⁻⁵) against the claim (1, 10⁻⁵) — true
δ(1) = 2·10⁻⁵ — at each of ``--delta-budgets`` runs per input, audited as by default (four stages,
``--delta-stages``): the share of ``--delta-seeds`` audits that fail the claim through δ (``delta_violation``: a certified δ at ε = 1 above 10⁻⁵), the
median certified δ, and the δ bound of the best fixed event (as in part 1).

Part 3, validity: ``--audits`` audits per tight mechanism (the leak-free mechanisms at their
exact ε = 1, ``--false-samples`` runs per input, confidence ``--confidence``; the snapped Laplace
also against (1, 10⁻⁵)), and the share ``VIOLATION`` (real-number false alarms), which must stay
≤ 1 − confidence; the float atom case uses numpy's float Laplace, whose ``FLOAT LEAK`` is right
(Mironov 2012) and counted apart.
Usage: python benchmarks/bench_montecarlo_rare.py [--p P] [--multiples 30,50,100] [--seeds S]
[--places tail,bulk,...] [--delta-p P] [--delta-budgets 4e6,6e6,1e7] [--delta-seeds S]
[--audits A] [--false-samples N] [--confidence C]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.audit import FLOAT_LEAK, VIOLATION
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import LEAK_PLACES, Laplace, OneSidedLeak
from dpledger.verify.audit.montecarlo.statistics import (
    LEAD_SHARE,
    clopper_pearson_lower,
    clopper_pearson_upper,
    delta_lower,
    epsilon_lower,
    stage_alphas,
)

PAIRS = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


def fixed_event_level(alpha: float, stages: int) -> float:
    """The level of each bound of the leading event of an audit of ``stages`` stages."""
    return stage_alphas(alpha, stages)[-1] * LEAD_SHARE * LEAD_SHARE / 2


def fixed_event_bound(p: float, samples: int, alpha: float, stages: int) -> float:
    """The ε bound of the event "output = the leak" with its expected hits among all ``samples``
    runs (none on the other input), both bounds at the leading event's level of an audit of
    ``stages`` stages."""
    level = fixed_event_level(alpha, stages)
    hits = round(p * samples)
    if hits == 0:
        return -math.inf
    return epsilon_lower(
        clopper_pearson_lower(hits, samples, level), clopper_pearson_upper(0, samples, level), 0.0
    )


def fixed_event_delta(p: float, samples: int, epsilon: float, alpha: float, stages: int) -> float:
    """The δ bound at ``epsilon`` of the event "output = the leak", as :func:`fixed_event_bound`."""
    level = fixed_event_level(alpha, stages)
    return delta_lower(
        clopper_pearson_lower(round(p * samples), samples, level),
        clopper_pearson_upper(0, samples, level),
        epsilon,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=float, default=1e-3, help="probability of the leak (default 1e-3)")
    parser.add_argument("--multiples", default="30,50,100", help="budgets, in units of 1/p runs per input")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--places", default=",".join(LEAK_PLACES), help="places of the leak (part 1)")
    parser.add_argument("--delta-p", type=float, default=2e-5, help="probability of the δ leaks (part 2)")
    parser.add_argument("--delta-places", default="bulk,discrete,input,shifted")
    parser.add_argument("--delta-budgets", default="4e6,6e6,1e7", help="runs per input of part 2")
    parser.add_argument("--delta-seeds", type=int, default=8)
    parser.add_argument("--delta-stages", type=int, default=4, help="stages of part 2 (the audit's default)")
    parser.add_argument("--audits", type=int, default=500, help="audits per tight mechanism (default 500)")
    parser.add_argument("--false-samples", type=int, default=5000)
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument(
        "--stages", type=int, default=1, help="stages of the power audits (default 1: no early stop)"
    )
    args = parser.parse_args()
    serial = InProcessExecutor()
    started = time.perf_counter()
    if args.seeds > 0:
        print(f"one-sided leak of probability {args.p:g}, claim ε = 1, confidence 0.95, {args.seeds} seeds")
        print(
            f"{'where':<9} {'runs/input':>11} {'flagged':>8} {'median bound':>13} {'fixed event':>12} {'ratio':>6}"
        )
        for where in args.places.split(","):
            for multiple in (int(m) for m in args.multiples.split(",")):
                samples = round(multiple / args.p)
                results = [
                    audit(
                        OneSidedLeak(where, args.p),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
                        PAIRS,
                        1.0,
                        samples=samples,
                        seed=seed,
                        executor=serial,
                        stages=args.stages,
                    )
                    for seed in range(args.seeds)
                ]
                median = statistics.median(r.real_epsilon_lower for r in results)
                fixed = fixed_event_bound(args.p, samples, 0.05, args.stages)
                print(
                    f"{where:<9} {samples:>11,} {sum(r.verdict == VIOLATION for r in results):>4}/{args.seeds:<3} "
                    f"{median:>13.3f} {fixed:>12.3f} {median / fixed:>6.2f}",
                    flush=True,
                )
    if args.delta_seeds > 0:
        print(
            f"\nδ leaks of probability {args.delta_p:g} against the claim (1, {args.delta_p / 2:g}), true δ(1) = "
            f"{args.delta_p:g}, confidence 0.95, {args.delta_seeds} seeds"
        )
        print(f"{'where':<9} {'runs/input':>11} {'δ flagged':>9} {'median δ':>10} {'fixed event':>12}")
        for where in args.delta_places.split(","):
            for samples in (int(float(b)) for b in args.delta_budgets.split(",")):
                results = [
                    audit(
                        OneSidedLeak(where, args.delta_p),  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
                        PAIRS,
                        1.0,
                        claimed_delta=args.delta_p / 2,
                        samples=samples,
                        seed=seed,
                        executor=serial,
                        stages=args.delta_stages,
                    )
                    for seed in range(args.delta_seeds)
                ]
                median = statistics.median(r.delta_lower or -math.inf for r in results)
                fixed = fixed_event_delta(args.delta_p, samples, 1.0, 0.05, args.delta_stages)
                print(
                    f"{where:<9} {samples:>11,} {sum(r.delta_violation for r in results):>5}/{args.delta_seeds:<3} "
                    f"{median:>10.3g} {fixed:>12.3g}",
                    flush=True,
                )
    if args.audits < 1:
        print(f"{time.perf_counter() - started:.0f} s")
        return
    print(
        f"\nfalse alarms: {args.audits} audits per tight mechanism at its exact ε = 1, "
        f"{args.false_samples:,} runs per input, confidence {args.confidence}"
    )
    tight = {
        "snapped Laplace": (Laplace(1.0), 0.0),
        "snapped Laplace (δ)": (Laplace(1.0), 1e-5),
    } | {f"{where} (no leak)": (OneSidedLeak(where, 0.0), 0.0) for where in ("float", "discrete", "vector")}
    for name, (mechanism, claimed_delta) in tight.items():
        verdicts = [
            audit(
                mechanism,  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
                PAIRS,
                1.0,
                claimed_delta=claimed_delta,
                samples=args.false_samples,
                confidence=args.confidence,
                seed=seed,
                executor=serial,
            ).verdict
            for seed in range(args.audits)
        ]
        flagged = verdicts.count(VIOLATION)
        floats = verdicts.count(FLOAT_LEAK)
        print(
            f"{name:<20} flagged {flagged}/{args.audits} = {flagged / args.audits:.3f} (limit {1 - args.confidence:.2f}); "
            f"FLOAT LEAK {floats}",
            flush=True,
        )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
