"""``dpledger calibrate agnostic``: the Gaussian noise the agnostic learners of seed 002 use
(Theorems 2.1/D.1: T adaptively composed steps of the private L1 optimiser on one block;
Theorems 3.1/4.1: one Gaussian release per block), each certified by the accountant — under
advanced composition (Dwork–Roth Theorem 3.20) and under the exact composition of Gaussian
mechanisms (Dong–Roth–Su Cor 3.3). The seed lost its sample-size formulas, so noise, not n, is
calibrated."""
from __future__ import annotations

import argparse
from fractions import Fraction

from dpledger.verify.cli.commands import Output, decimal_text, group, leaf, positive_int

MAX_STEPS = 100_000


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "calibrate", "parameters from a target (ε, δ, …): the paper's chain and the tight calibration")
    parser = leaf(table, "agnostic", "certified Gaussian noise of the agnostic learners (seed 002)", run)
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="target ε in (0, 100]")
    parser.add_argument("--delta", type=decimal_text, required=True, help="target δ in (0, 1)")
    parser.add_argument("--steps", type=positive_int, default=300,
                        help=f"T, steps of the private L1 optimiser (Theorem 2.1; default 300, at most {MAX_STEPS})")


def _target(args: argparse.Namespace) -> tuple[Fraction, Fraction]:
    epsilon, delta = Fraction(args.epsilon), Fraction(args.delta)
    if not 0 < epsilon <= 100:
        raise ValueError(f"epsilon must be in (0, 100] (the learners' stated range), got {args.epsilon}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {args.delta}")
    if args.steps > MAX_STEPS:
        raise ValueError(f"steps must be at most {MAX_STEPS}, got {args.steps}")
    return epsilon, delta


def run(args: argparse.Namespace) -> Output:
    from dpledger.accountant import account
    from dpledger.learners.calibration.agnostic_noise import certified_ratio, noise_event

    epsilon, delta = _target(args)
    plan = (("theorem_2_1_l1_optimiser_advanced", args.steps, "advanced"),
            ("theorem_2_1_l1_optimiser_exact_gaussian", args.steps, "optimal"),
            ("theorem_3_1_4_1_single_release", 1, "optimal"))
    rows = {}
    for name, steps, method in plan:
        ratio = certified_ratio(epsilon, delta, steps, method)
        guarantee = account(noise_event(1 / ratio, Fraction(1), delta, steps, method)).guarantee
        rows[name] = {"steps": steps, "method": method, "sigma_over_sensitivity": float(1 / ratio),
                      "epsilon": guarantee.epsilon_upper, "delta": guarantee.delta_upper,
                      "holds": guarantee.meets(epsilon, delta).holds}
    payload = {"epsilon": float(epsilon), "delta": float(delta), "calibrations": rows}
    lines = [f"Certified Gaussian noise for the agnostic learners, target (ε, δ) = ({args.epsilon}, {args.delta}):"]
    for key, row in rows.items():
        lines.append(f"  {key:<42} T = {row['steps']:<6} σ/Δ = {row['sigma_over_sensitivity']:<12.6g} "
                     f"certified ε ≤ {row['epsilon']:.6g}, δ ≤ {row['delta']:.3g}: {'holds' if row['holds'] else 'FAILS'}")
    return Output(payload, "\n".join(lines))
