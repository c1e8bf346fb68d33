"""Command modules of the ``dpledger`` CLI: argparse only.

A command module (one per entry of :data:`COMMANDS`, imported only when its command is used)
exposes ``register(subparsers)`` and adds, with :func:`leaf`, one parser per command: the command line of one service function (:mod:`dpledger.verify.service`), whose keyword
arguments are the parser's options. Commands that share a first word (``dpledger audit
labelboost``, ``dpledger audit catalog``) are registered by one module under the table
:func:`group` creates, so nothing outlives a parser build.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from dpledger.verify.service import Output

COMMANDS = ("compose", "calibrate", "report", "run", "audit", "proofs")
"""The command modules, in the order ``dpledger --help`` lists them; each registers the command of
its name (:data:`SUMMARIES` is its one-line help)."""

SUMMARIES = {
    "compose": "k-fold composition of an (ε, δ)-DP mechanism (certified upper bound on ε)",
    "calibrate": "parameters from a target (ε, δ, …): the paper's chain and the tight calibration",
    "report": "regenerate the reports in reports/ (deterministic)",
    "run": "run a learner on synthetic data and derive its certified guarantee",
    "audit": "audit a privacy claim: exact (small discrete mechanisms) or Monte Carlo",
    "proofs": "list every numbered statement of both seeds, split into the parts it claims, with each part's "
    "check and status and the tightness of audited bounds; --run runs the checks",
}
"""The one-line help of each command, here so that ``dpledger --help`` lists them without importing
the command modules (which import the services, sympy and numpy: a second of CPU)."""

Convert = Callable[[dict[str, Any]], dict[str, Any]]
"""A command's parsed options → the keyword arguments of its service function."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr with exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dpledger: error: {self.prog}: {message}\n")


def group(subparsers: argparse._SubParsersAction, name: str, help_text: str) -> argparse._SubParsersAction:
    """The sub-command table of a new group ``name`` (``dpledger name TARGET …``)."""
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    table = parser.add_subparsers(metavar="TARGET", parser_class=OneLineParser)
    table.required = True
    return table


def leaf(
    subparsers: argparse._SubParsersAction,
    name: str,
    help_text: str,
    service: Callable[..., Output],
    convert: Convert = dict,
    aliases: tuple[str, ...] = (),
) -> argparse.ArgumentParser:
    """Add the parser of a command (also reachable under ``aliases``) calling ``service`` with its
    options, passed through ``convert``, and ``--json``. An option that is not given and has no
    ``default`` of its own is left out (``argument_default=SUPPRESS``), so that the service's
    default applies."""
    parser = subparsers.add_parser(
        name, help=help_text, description=help_text, aliases=list(aliases), argument_default=argparse.SUPPRESS
    )
    parser.add_argument("--json", action="store_true", default=False, help="print machine-readable JSON")
    parser.set_defaults(service=service, convert=convert)
    return parser


def _parsed(text: str, convert: Callable[[str], Any], kind: str) -> Any:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None


MAX_EXPONENT = 10_000
"""Largest decimal exponent a number on the command line may have (``1e10000``); beyond it the
exact value alone would take long to build — the accountant's parser has the same limit."""

_EXACT = re.compile(
    r"\s*(?P<decimal>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE](?P<exponent>[+-]?\d+))?)\s*"
    r"|\s*(?P<numerator>[+-]?\d+)\s*/\s*(?P<denominator>\d+)\s*"
)


def _exact(text: str) -> Fraction | None:
    """The exact value of a decimal (``0.1``, ``1e-6``, ``1e1``) or a fraction (``1/3``); None for
    other text. Refused (``ArgumentTypeError``): a zero denominator (not a number), an exponent beyond
    :data:`MAX_EXPONENT`."""
    match = _EXACT.fullmatch(text)
    if match is None:
        return None
    if match["decimal"] is not None:
        if match["exponent"] is not None and abs(int(match["exponent"])) > MAX_EXPONENT:
            raise argparse.ArgumentTypeError(f"exponent beyond ±{MAX_EXPONENT}: {text!r}")
        return Fraction(Decimal(match["decimal"]))
    if int(match["denominator"]) == 0:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    return Fraction(int(match["numerator"]), int(match["denominator"]))


def finite_float(text: str) -> float:
    """argparse type: a finite real number (NaN and infinities are refused)."""
    value = _parsed(text, float, "a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


class ClaimedNumber(float):
    """A claimed ε or δ: the smallest float not below the number written, which remembers how it
    was written — ``str`` gives that text, and says the float audited when it differs (``1e-400``
    is audited as 5e-324), so that an echo never passes the float off as the claim."""

    text: str
    exact: Fraction | None

    def __new__(cls, value: float, text: str, exact: Fraction | None) -> ClaimedNumber:
        number = super().__new__(cls, value)
        number.text, number.exact = text, exact
        return number

    def __str__(self) -> str:
        if self.exact is None or Fraction(float(self)) == self.exact:
            return float.__repr__(self)
        return f"{self.text.strip()} (audited as {float.__repr__(self)}, the smallest float not below it)"

    def __reduce__(self) -> tuple[Any, ...]:
        return ClaimedNumber, (float(self), self.text, self.exact)


def claim_number(text: str) -> float:
    """argparse type: a claimed ε or δ written as a decimal (``1e-6``, ``1e1``) or a fraction
    (``1/3``), as ``compose`` accepts them; the smallest float not below its exact value, so that
    rounding a claim never makes an audit report a violation (a :class:`ClaimedNumber`, whose
    ``str`` keeps the text written)."""
    value = _exact(text)
    if value is None:
        return finite_float(text)  # the error for text that is neither (NaN, inf, words)
    try:
        rounded = float(value)
    except OverflowError:
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}") from None
    if Fraction(rounded) < value:
        rounded = math.nextafter(rounded, math.inf)
    if not math.isfinite(rounded):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return ClaimedNumber(rounded, text, value)


def decimal_text(text: str) -> str:
    """argparse type: a finite decimal (``0.1``, ``1e-6``, ``1e1``) or a fraction (``1/3``) kept as
    text, so that the accountant reads it exactly."""
    if _exact(text) is None:
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


def integer(text: str) -> int:
    """argparse type: an integer, written plainly or in scientific notation (``1e1`` is 10)."""
    return _parsed(text, _integer, "an integer")


def seed(text: str) -> int:
    """argparse type: a random seed, an integer ≥ 0 (``42`` or ``1e3``)."""
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be ≥ 0, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1 (``1000000`` or ``1e6``)."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def names(text: str) -> list[str]:
    """argparse type: comma-separated names (``thresholds,intervals``); empty text gives none."""
    return [name.strip() for name in text.split(",")] if text else []


def path(text: str) -> Path:
    """argparse type: a file or folder path; empty text is refused (it would mean the current
    folder, which an unset shell variable gives unasked)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must be a path, got empty text")
    return Path(text)
