"""``dpledger calibrate <theorem>``: sample sizes from a target (α, β, ε, δ), the paper's chain
beside the tight certified calibration — Theorems 5.1, 8.5, 8.8, 8.14 of seed 000 here
(8.19: :mod:`dpledger.verify.cli.commands.calibrate_boolean`), Theorems 2.1, 3.1, 4.1 of seed 002.
Parameters outside a theorem's hypotheses are refused with the hypothesis that fails."""
from __future__ import annotations

import argparse

from dpledger.verify.cli.commands import Output, decimal_text, group, leaf, positive_int
from dpledger.verify.cli.commands.calibrate_boolean import CALIBRATE_HELP, add_target_arguments

HALFSPACE_ORACLES = {"8.5": ("exponential", "ipconcave-em", "qcopt", "ipconcave"), "8.8": ("qcopt",),
                     "8.14": ("ipconcave",)}


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "calibrate", CALIBRATE_HELP)
    parser = leaf(table, "5.1", "Theorem 5.1 (CarryForwardLearner): m and n from (α, β, ε, δ), paper and tight",
                  run_5_1)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--oracle-m", type=positive_int, help="M_A of your component oracles (needs --k and --vc)")
    source.add_argument("--class", dest="concept_class", choices=("thresholds", "intervals", "rectangles"),
                        help="a grid class with the completion-score oracle (sets k and v)")
    parser.add_argument("--k", type=positive_int, help="number of components k (with --oracle-m)")
    parser.add_argument("--vc", type=positive_int, help="VC dimension v of the class (with --oracle-m)")
    parser.add_argument("--domain-size", type=positive_int, default=None, help="grid size N with --class (default 2^16)")
    add_target_arguments(parser)
    for number, oracles in HALFSPACE_ORACLES.items():
        parser = leaf(table, number, f"Theorem {number} (halfspaces by CarryForwardLearner): n from (α, β, ε, δ, d)",
                      run_halfspaces)
        parser.add_argument("--dimension", type=positive_int, default=2, help="dimension d (k = d + 1; default 2)")
        parser.add_argument("--grid", type=positive_int, default=16, help="grid bound X of [[±X]]^d (default 16)")
        parser.add_argument("--oracle", choices=oracles, default=oracles[0],
                            help=f"component oracle (default {oracles[0]})")
        parser.set_defaults(theorem=f"Theorem {number}")
        add_target_arguments(parser)
    for number, learner in (("2.1", "improper agnostic"), ("3.1", "proper agnostic"), ("4.1", "semi-agnostic")):
        parser = leaf(table, number, f"Theorem {number} of seed 002 ({learner} halfspace learner): n from "
                                     "(α, β, ε, δ, d), paper and tight noise accounting", run_agnostic)
        parser.add_argument("--dimension", type=positive_int, default=10, help="dimension d (default 10)")
        if number != "4.1":
            parser.add_argument("--degree", type=positive_int, default=None,
                                help="polynomial degree D (default ⌈1/α²⌉, a SUBSTITUTE constant)")
        parser.add_argument("--alpha", type=decimal_text, default="0.2", help="excess error α in (0, 1) (default 0.2)")
        parser.add_argument("--beta", type=decimal_text, default="0.1", help="failure probability β in (0, 1)")
        parser.add_argument("--epsilon", type=decimal_text, default="0.5", help="target ε in (0, 100] (default 0.5)")
        parser.add_argument("--delta", type=decimal_text, default="1e-6", help="target δ in (0, 1) (default 1e-6)")
        parser.set_defaults(theorem=f"Theorem {number}")


def run_5_1(args: argparse.Namespace) -> Output:
    from dpledger.verify.paper.theorem_calibration import theorem_5_1

    if args.oracle_m is not None and (args.k is None or args.vc is None):
        raise ValueError("--oracle-m needs --k and --vc")
    if args.concept_class is not None and (args.k is not None or args.vc is not None):
        raise ValueError(f"--class {args.concept_class} sets k and v itself: drop --k and --vc")
    if args.oracle_m is not None and args.domain_size is not None:
        raise ValueError("--domain-size applies to --class only")
    result = theorem_5_1(args.k, args.vc, args.alpha, args.beta, args.epsilon, args.delta, oracle_m=args.oracle_m,
                         component_class=args.concept_class,
                         domain_size=args.domain_size if args.domain_size is not None else 2**16)
    return Output(result["payload"], result["text"])


def run_halfspaces(args: argparse.Namespace) -> Output:
    from dpledger.verify.paper.theorem_calibration import halfspace_theorem

    result = halfspace_theorem(args.theorem, args.oracle, args.dimension, args.grid, args.alpha, args.beta,
                               args.epsilon, args.delta)
    return Output(result["payload"], result["text"])


def run_agnostic(args: argparse.Namespace) -> Output:
    from dpledger.verify.paper.theorem_calibration import agnostic_theorem

    result = agnostic_theorem(args.theorem, args.dimension, getattr(args, "degree", None), args.alpha, args.beta,
                              args.epsilon, args.delta)
    return Output(result["payload"], result["text"])
