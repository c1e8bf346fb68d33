"""``dpledger compose``: the command line of :func:`dpledger.verify.service.compose.compose`."""

from __future__ import annotations

import argparse

from dpledger.verify.cli.commands import SUMMARIES, decimal_text, leaf, positive_int
from dpledger.verify.service.compose import compose


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(
        subparsers,
        "compose",
        SUMMARIES["compose"],
        compose,
    )
    parser.add_argument("--epsilon", type=decimal_text, required=True, help="ε of each mechanism (> 0)")
    parser.add_argument("--delta", type=decimal_text, help="δ of each mechanism, in [0, 1)")
    parser.add_argument("--k", type=positive_int, required=True, help="number of mechanisms")
    parser.add_argument(
        "--target-delta",
        type=decimal_text,
        help="total δ (advanced, optimal); with basic, checked against k·δ",
    )
    parser.add_argument("--method", choices=("basic", "advanced", "optimal"))
