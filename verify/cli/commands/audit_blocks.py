"""``dpledger audit macro-block``: exact privacy of CarryForwardLearner's blocks (Lemmas 6.2,
6.4 and the oracle's Assumption 4.4) on tiny instances, worst case over all neighbour pairs."""
from __future__ import annotations

import argparse
from fractions import Fraction

from dpledger.verify.cli.commands import Output, group, leaf, positive_int, progress


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "audit", "audit a privacy claim: exact (small discrete mechanisms) or Monte Carlo")
    parser = leaf(table, "macro-block", "exact ε of a CarryForwardLearner block against Lemma 6.2 / 6.4", run)
    parser.add_argument("--class", dest="concept", choices=("thresholds", "intervals", "rectangles"), default="intervals")
    parser.add_argument("--domain-size", type=positive_int, default=4)
    parser.add_argument("--m", type=positive_int, default=2, help="active sample size (1 to 3)")
    parser.add_argument("--block", choices=("macro", "init", "oracle"), default="macro")
    parser.add_argument("--reservoir", type=positive_int, default=3, help="size of the fixed next reservoir W")
    parser.add_argument("--oracle-epsilon", default="4", help="ε_A of the completion-score oracle (default 4)")
    parser.add_argument("--exact", action="store_true", default=True,
                        help="exact enumeration (the only mode; Monte Carlo audits: dpledger audit mechanism)")


def run(args: argparse.Namespace) -> Output:
    from dpledger.verify.paper.block_audits import BlockAudit, audit_block

    try:
        oracle_epsilon = Fraction(args.oracle_epsilon)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"--oracle-epsilon is not a number: {args.oracle_epsilon!r}") from None
    audit = BlockAudit(args.concept, args.domain_size, args.m, args.block, oracle_epsilon, args.reservoir)
    result = audit_block(audit, progress=progress)
    payload = {
        "block": args.block, "statement": audit.statement, "class": args.concept, "domain_size": args.domain_size,
        "m": args.m, "epsilon_exact": result.epsilon[1], "epsilon_exact_interval": list(result.epsilon),
        "bound": float(audit.bound), "bound_expr": str(audit.bound), "holds": result.holds,
        "tightness": result.tightness, "pairs": result.pairs,
        "worst_pair": [repr(side) for side in result.worst_pair] if result.worst_pair else None,
    }
    verdict = {True: "holds", False: "FAILS", None: "undecided"}[result.holds]
    text = (f"{audit.statement}: exact worst-case ε of the {args.block} block ({args.concept}, D = {args.domain_size}, "
            f"m = {args.m}) over {result.pairs} neighbour pairs\n"
            f"  ε_exact ∈ [{result.epsilon[0]:.10g}, {result.epsilon[1]:.10g}]  bound {audit.bound} ≈ {float(audit.bound):.6g}"
            f"  → {verdict} (tightness {result.tightness:.3g})\n  worst pair: {payload['worst_pair']}")
    return Output(payload, text)
