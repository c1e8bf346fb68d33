"""``dpledger proofs``: the command line of :func:`dpledger.verify.service.proofs.proofs`."""

from __future__ import annotations

import argparse
from typing import Any

from dpledger.verify.cli.commands import SUMMARIES, leaf, path
from dpledger.verify.service.proofs import proofs


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = leaf(
        subparsers,
        "proofs",
        SUMMARIES["proofs"],
        proofs,
        _proofs_call,
    )
    parser.add_argument(
        "--run",
        action="store_true",
        help="run the named tests with pytest (slow) and record their outcomes in the status file",
    )
    parser.add_argument(
        "--fast", action="store_true", help="with --run: skip tests marked slow (they stay 'not run')"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="ID",
        help="only this statement ('Lemma 6.2' or '000:Lemma 6.2'; repeatable)",
    )
    parser.add_argument(
        "--status-file",
        type=path,
        help="where outcomes are read and recorded (default: the committed reports/proofs-status.json "
        "in a source checkout, else ~/.cache/dpledger/proofs-status.json)",
    )
    parser.add_argument(
        "--mutation-status-file",
        type=path,
        help="the recorded privacy-mutant runs that gate privacy parts (default: the committed "
        "reports/mutation-status.json; written by benchmarks/bench_privacy_mutants.py)",
    )
    parser.add_argument(
        "--findings",
        action="store_true",
        help="print the findings (seed statements and cited tools) instead of the table",
    )


def _proofs_call(options: dict[str, Any]) -> dict[str, Any]:
    """``--fast`` is ``slow=False``, and only means something with ``--run``."""
    if options.pop("fast", False):
        if not options.get("run"):
            raise ValueError("--fast only applies with --run")
        options["slow"] = False
    return options
