"""The ``dpledger`` command line.

Every command is a leaf parser registered by a module in :mod:`dpledger.verify.cli.commands`; each leaf
gets ``--json`` and a handler returning :class:`dpledger.verify.cli.commands.Output`. Bad input — argparse
errors and any ``ValueError`` raised by the library — becomes one line on stderr and exit
status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from dpledger import __version__
from dpledger.verify.cli.commands import COMMAND_MODULES, Output, OneLineParser


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dpledger",
        description="Executable privacy proofs: certified accounting, calibration and audits.",
    )
    parser.add_argument("--version", action="version", version=f"dpledger {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        output: Output = args.handler(args)
    except ValueError as error:
        message = " ".join(str(error).split())
        print(f"dpledger: error: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_finite(output.payload), indent=2, allow_nan=False))
    else:
        print(output.text)
    return output.status


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float written as the string "inf", "-inf" or "nan" (JSON
    has no infinity); certified upper bounds may be infinite."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
