"""Command modules of the ``dpledger`` CLI.

A command module exposes ``register(subparsers)``; it adds its parsers with
:func:`leaf` (which adds ``--json``) and sets a handler ``handler(args) -> Output``.
Commands that share a first word (``dpledger audit labelboost``, ``dpledger audit catalog``)
obtain the shared group parser with :func:`group`.
"""
from __future__ import annotations

import argparse
import importlib
import math
import sys
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Callable, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr with exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dpledger: error: {self.prog}: {message}\n")


@dataclass(frozen=True)
class Output:
    """What a command produced: a JSON-ready payload and the text shown without ``--json``."""

    payload: Any
    text: str
    status: int = 0


_GROUPS: dict[tuple[int, str], argparse._SubParsersAction] = {}


def group(subparsers: argparse._SubParsersAction, name: str, help_text: str) -> argparse._SubParsersAction:
    """The sub-command table of the group ``name`` (created on first use)."""
    key = (id(subparsers), name)
    if key not in _GROUPS:
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        table = parser.add_subparsers(dest=f"{name}_target", metavar="TARGET", parser_class=OneLineParser)
        table.required = True
        _GROUPS[key] = table
    return _GROUPS[key]


def leaf(
    subparsers: argparse._SubParsersAction,
    name: str,
    help_text: str,
    handler: Callable[[argparse.Namespace], Output],
    aliases: tuple[str, ...] = (),
) -> argparse.ArgumentParser:
    """Add a command parser (also reachable under ``aliases``) with ``--json`` and its handler."""
    parser = subparsers.add_parser(name, help=help_text, description=help_text, aliases=list(aliases))
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(handler=handler)
    return parser


def _parsed(text: str, convert: Callable[[str], Any], kind: str) -> Any:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None


def finite_float(text: str) -> float:
    """argparse type: a finite real number (NaN and infinities are refused)."""
    value = _parsed(text, float, "a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def decimal_text(text: str) -> str:
    """argparse type: a finite decimal (``0.1``, ``1e-6``) or a fraction (``1/3``) kept as text, so
    that the accountant reads it exactly."""
    try:
        Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        finite_float(text)  # the error for text that is neither (NaN, inf, words)
    return text


def _integer(text: str) -> int:
    """An integer written plainly or in scientific notation (``1e6``), exactly; at most 1000 digits."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(text) from None
    if not number.is_finite() or number != number.to_integral_value() or number.adjusted() > 1000:
        raise ValueError(text)
    return int(number)


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1 (``1000000`` or ``1e6``)."""
    value = _parsed(text, _integer, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def progress(total: int, label: str) -> Callable[[int], None]:
    """A progress bar on stderr: returns ``advance(done)``; silent for tiny jobs."""
    width = 30
    tty = sys.stderr.isatty()
    last_shown = [-1]

    def advance(done: int) -> None:
        if total <= 1:
            return
        fraction = min(done / total, 1.0)
        step = int(fraction * (width if tty else 4))
        if step == last_shown[0] and done < total:
            return
        last_shown[0] = step
        bar = "#" * int(fraction * width)
        line = f"{label} [{bar:<{width}}] {done}/{total}"
        if tty:
            sys.stderr.write("\r" + line + ("\n" if done >= total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return advance


_MODULE_NAMES = [
    "dpledger.verify.cli.commands.compose",
    "dpledger.verify.cli.commands.calibrate",
    "dpledger.verify.cli.commands.report",
    "dpledger.verify.cli.commands.run_carry_forward",
    "dpledger.verify.cli.commands.audit_blocks",
    "dpledger.verify.cli.commands.audit_mechanism",
    "dpledger.verify.cli.commands.run_agnostic",
    "dpledger.verify.cli.commands.audit_labelboost",
    "dpledger.verify.cli.commands.calibrate_theorems",
    "dpledger.verify.cli.commands.calibrate_boolean",
    "dpledger.verify.cli.commands.calibrate_agnostic",
    "dpledger.verify.cli.commands.proofs",
]

COMMAND_MODULES = [importlib.import_module(name) for name in _MODULE_NAMES]
