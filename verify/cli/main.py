"""The ``dpledger`` command line: argparse and printing only.

Every command is a leaf parser registered by a module in :mod:`dpledger.verify.cli.commands`; a
parsed command line names a service function (:mod:`dpledger.verify.service`) and its keyword
arguments (:func:`service_call`), whose :class:`~dpledger.verify.service.Output` is printed as text
or, with ``--json``, as JSON. Bad input — argparse errors and any ``ValueError`` raised below —
becomes one line on stderr and exit status 2, never a traceback; so do a number too large to
compute with (``OverflowError``) and running out of memory. Ctrl-C prints one line and exits
130. While a command runs its stdout goes to stderr (:func:`stdout_to_stderr`): a mechanism that
prints cannot corrupt ``--json``. The exit statuses are :data:`EXIT_STATUS`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from dpledger import __version__
from dpledger.verify.cli.commands import COMMANDS, SUMMARIES, OneLineParser
from dpledger.verify.service import Output

EXIT_STATUS = """\
exit status (every command; for CI):
  0  every claim the command checks holds (for commands that check none: success)
  1  a claim fails: an audit finds a violation (audit catalog: a verdict other than the
     expected one), or a derived guarantee misses its claim or cannot be certified to meet it
     (run, calibrate, compose --method basic --target-delta, audit labelboost/macro-block)
  2  bad input, or the command could not finish (a mechanism that fails, exceeds --timeout or
     is refused by the auditor's checks; out of memory): one line on stderr, no traceback
  130  interrupted (Ctrl-C): one line on stderr; worker processes and shared memory cleaned up"""
"""The epilog of ``dpledger --help``; README.md's "Exit status" says the same."""


def build_parser(commands: Collection[str] | None = None) -> argparse.ArgumentParser:
    """A new parser (each build is independent of the others) with the full parsers of
    ``commands`` (default: every command); the others are listed by name and summary only, so that
    their modules are not imported (``dpledger --help`` and ``--version`` stay light)."""
    parser = OneLineParser(
        prog="dpledger",
        description="Executable privacy proofs: certified accounting, calibration and audits.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dpledger {__version__}")
    subparsers = parser.add_subparsers(metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for name in COMMANDS:
        if commands is None or name in commands:
            importlib.import_module(f"dpledger.verify.cli.commands.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=SUMMARIES[name], description=SUMMARIES[name])
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The command an argument list names: its first word that is not an option, or None."""
    return next((word for word in argv if not word.startswith("-")), None)


def service_call(args: argparse.Namespace) -> tuple[Callable[..., Output], dict[str, Any]]:
    """The service function a parsed command line calls, and its keyword arguments."""
    options = {
        name: value for name, value in vars(args).items() if name not in ("service", "convert", "json")
    }
    return args.service, args.convert(options)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    word = command_word(words)
    args = build_parser([word] if word is not None and word in COMMANDS else []).parse_args(words)
    try:
        with stdout_to_stderr():
            service, kwargs = service_call(args)
            output = service(**kwargs)
    except ValueError as error:
        return _refuse(str(error))
    except OverflowError as error:
        return _refuse(f"a number is too large to compute with ({error}); use smaller values")
    except MemoryError:
        return _refuse(
            "out of memory: the input asks for more memory than this machine has; use smaller sizes"
        )
    except KeyboardInterrupt:
        print("dpledger: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    text = json.dumps(_finite(output.payload), indent=2, allow_nan=False) if args.json else output.text
    try:
        print(text, flush=True)
    except BrokenPipeError:  # the reader (e.g. `| head`) left: the verdict's status still stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return output.status


EXIT_INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT, the shell's convention)."""


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """While a command runs, whatever it prints — a mechanism's ``print``, a library's chatter, the
    output of worker processes started meanwhile (they inherit the descriptor) — goes to stderr,
    so that stdout carries the result alone (``--json`` stays parseable). Both ``sys.stdout`` and
    file descriptor 1 are redirected, and restored after."""
    if sys.stdout is not None:  # None when the process started with stdout closed
        sys.stdout.flush()
    try:
        saved: int | None = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # a closed descriptor: nothing to protect at that level
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if sys.stderr is not None:
            sys.stderr.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _refuse(message: str) -> int:
    """Print ``message`` as one line on stderr; the exit status of bad input."""
    print(f"dpledger: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


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
