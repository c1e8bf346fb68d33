"""Run a ``dpledger`` command in-process for a report, so that every figure in a report is one
that a named command prints (DESIGN: "say which command")."""
from __future__ import annotations

from typing import Any


def command_payload(argv: list[str]) -> tuple[str, Any]:
    """``(the command line, its --json payload)`` for ``dpledger *argv``."""
    from dpledger.verify.cli.main import build_parser

    args = build_parser().parse_args(argv)
    return "dpledger " + " ".join(argv), args.handler(args).payload
