"""``dpledger compose``: k-fold composition of an (ε, δ)-DP mechanism, certified."""
from __future__ import annotations

import argparse

from dpledger.accountant import account
from dpledger.accountant.numerics.certified import certainly_le, exact
from dpledger.accountant.events import ApproxDP, Composition
from dpledger.verify.cli.commands import Output, decimal_text, leaf, positive_int


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(subparsers, "compose", "k-fold composition of an (ε, δ)-DP mechanism (certified upper bound on ε)", run)
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="ε of each mechanism (> 0)")
    parser.add_argument("--delta", type=decimal_text, default="0", help="δ of each mechanism, in [0, 1)")
    parser.add_argument("--k", type=positive_int, required=True, help="number of mechanisms")
    parser.add_argument("--target-delta", type=decimal_text,
                        help="total δ (advanced, optimal); with basic, checked against k·δ")
    parser.add_argument("--method", choices=("basic", "advanced", "optimal"), default="optimal")


def run(args: argparse.Namespace) -> Output:
    if args.method != "basic" and args.target_delta is None:
        raise ValueError(f"{args.method} composition needs --target-delta")
    basic = args.method == "basic"
    event = Composition((ApproxDP(args.epsilon, args.delta),), method=args.method,
                        target_delta=None if basic else args.target_delta, repeat=args.k)
    derivation = account(event)
    g = derivation.guarantee
    within_target = None
    if basic and args.target_delta is not None:  # basic composition's δ is k·δ₀; say whether it fits
        within_target = certainly_le(g.delta, exact(args.target_delta, "target_delta")) is True
    payload = {
        "method": args.method,
        "k": args.k,
        "epsilon": g.epsilon_upper,
        "delta": g.delta_upper,
        "epsilon_expr": str(g.epsilon),
        "delta_within_target": within_target,
        "source": derivation.source,
        "rule": derivation.rule,
        "certified": "epsilon and delta are certified upper bounds (outward-rounded interval arithmetic)",
    }
    text = (
        f"{args.method} composition of {args.k} × ({args.epsilon}, {args.delta})-DP ({derivation.source}; "
        f"{derivation.rule}):\n"
        f"  ε ≤ {g.epsilon_upper:.12g}\n  δ ≤ {g.delta_upper:.12g}\n  (certified upper bounds)"
    )
    if within_target is not None:
        text += f"\n  k·δ {'≤' if within_target else 'EXCEEDS'} target δ = {args.target_delta}"
    return Output(payload, text)
