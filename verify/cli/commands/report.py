"""``dpledger report``: the command line of :func:`dpledger.verify.reports.report`."""

from __future__ import annotations

import argparse

from dpledger.verify.cli.commands import SUMMARIES, leaf, path
from dpledger.verify.reports import report


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(subparsers, "report", SUMMARIES["report"], report)
    parser.add_argument("--out", type=path, help="output folder (default: reports)")
