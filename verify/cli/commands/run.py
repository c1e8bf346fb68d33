"""``dpledger run``: the command lines of :mod:`dpledger.verify.service.run` — ``carry-forward``
(with the options of every class set up by :mod:`dpledger.verify.paper.setups`) and ``agnostic``."""

from __future__ import annotations

import argparse
from typing import Any

from dpledger.verify.cli.commands import (
    SUMMARIES,
    decimal_text,
    finite_float,
    group,
    integer,
    leaf,
    names,
    positive_int,
    seed,
)
from dpledger.verify.paper.setups import setup, setups
from dpledger.verify.paper.setups.halfspaces import ORACLES
from dpledger.verify.service.run import ALGORITHMS, agnostic, carry_forward

CLASS_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "domain_size": (
        "--domain-size",
        {
            "type": positive_int,
            "help": "grid size N (default 2^20; rectangles 16 — their trace is O(a²b²) on the a × b distinct coordinates; 64 runs at m = 200)",
        },
    ),
    "formula": (
        "--formula",
        {"help": "boolean class: G as a formula in and/or/not over x1..xk, e.g. 'x1 and (x2 or not x3)'"},
    ),
    "truth_table": (
        "--truth-table",
        {"help": "boolean class: G as 2^k bits, x1 the most significant input (e.g. 0001 = x1 and x2)"},
    ),
    "components": (
        "--components",
        {
            "type": names,
            "help": "boolean class: comma-separated component classes H_1..H_k "
            "(thresholds, intervals, rectangles) on the grid --domain-size "
            "(default 2^16; 16 with rectangles)",
        },
    ),
    "dim": ("--dim", {"type": integer, "help": "halfspaces: dimension d ∈ {1, 2, 3} (default 2)"}),
    "grid": (
        "--grid",
        {"type": integer, "help": "halfspaces: grid bound X, points in [[±X]]^d, X ∈ [1, 256] (default 16)"},
    ),
    "oracle": ("--oracle", {"choices": ORACLES, "help": "halfspaces: coordinate oracle (default ipconcave)"}),
    "blocks": (
        "--blocks",
        {
            "type": integer,
            "help": "halfspaces, ipconcave: number of blocks t (default: enough for the interior point)",
        },
    ),
}
"""The options of the classes' setups (:attr:`ClassSetup.options`), each registered once."""


SEED_HELP = (
    "root seed s (default 0): SeedSequence(s).spawn(2) gives the data's seed and the learner's; "
    "the same s gives the same run and trace"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    table = group(subparsers, "run", SUMMARIES["run"])
    parser = leaf(
        table,
        "carry-forward",
        "CarryForwardLearner (Algorithm 2) on realizable synthetic data",
        carry_forward,
        _carry_forward_call,
    )
    parser.add_argument("--class", dest="concept", choices=tuple(setups()), default="intervals")
    for name, (flag, spec) in CLASS_OPTIONS.items():
        parser.add_argument(flag, dest=name, **spec)
    parser.add_argument("--n", type=positive_int, required=True, help="number of training records")
    parser.add_argument("--m", type=positive_int, help="active sample size (default: from --calibration)")
    parser.add_argument(
        "--calibration",
        choices=("paper", "tight"),
        help="m when --m is not given: tight (default; the largest m the certified accounting allows) or paper "
        "(Algorithm 2 line 2)",
    )
    parser.add_argument("--epsilon", type=decimal_text)
    parser.add_argument("--delta", type=decimal_text)
    parser.add_argument("--alpha", type=finite_float)
    parser.add_argument("--beta", type=finite_float)
    parser.add_argument("--seed", type=seed, help=SEED_HELP)
    parser.add_argument("--test-size", type=positive_int)

    parser = leaf(
        table,
        "agnostic",
        "private agnostic halfspace learner (seed 002) on synthetic Gaussian data",
        agnostic,
    )
    parser.add_argument("--algorithm", choices=ALGORITHMS, required=True)
    parser.add_argument("--dim", type=positive_int, required=True, help="dimension d")
    parser.add_argument(
        "--n", type=positive_int, required=True, help="training sample size (the test set has the same size)"
    )
    parser.add_argument("--noise", type=finite_float, help="fraction of flipped labels, in [0, 0.5)")
    parser.add_argument("--noise-model", choices=("random", "adversarial", "two-sided"))
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="ε (> 0, ≤ 100)")
    parser.add_argument("--delta", type=decimal_text, help="δ in (0, 1)")
    parser.add_argument(
        "--degree",
        type=positive_int,
        help="polynomial degree (improper, proper; default: chosen privately among 1 and 2)",
    )
    parser.add_argument("--seed", type=seed, help=SEED_HELP)


def _carry_forward_call(options: dict[str, Any]) -> dict[str, Any]:
    """Only the options of the chosen class (the parser has every class's; the others are ignored)."""
    reads = setup(options["concept"]).options
    return {name: value for name, value in options.items() if name not in CLASS_OPTIONS or name in reads}
