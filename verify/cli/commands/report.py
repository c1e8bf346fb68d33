"""``dpledger report``: regenerate every report in ``reports/``."""
from __future__ import annotations

import argparse
from pathlib import Path

from dpledger.verify.cli.commands import Output, leaf


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(subparsers, "report", "regenerate the reports in reports/ (deterministic)", run)
    parser.add_argument("--out", default="reports", help="output folder (default: reports)")


def run(args: argparse.Namespace) -> Output:
    from dpledger.verify.reports import write_reports

    written = write_reports(Path(args.out))
    return Output({"written": [str(p) for p in written]}, "\n".join(f"wrote {p}" for p in written))
