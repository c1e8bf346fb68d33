"""Run-wide defaults of :mod:`dpledger.testing`: environment variables read at each call, which the
``dpledger`` pytest plugin (:mod:`dpledger.pytest_plugin`) sets from its command-line options.

One table serves both, so that an option and its variable cannot disagree on what is valid. The
module imports only the standard library: the plugin loads it when pytest starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """A default that a whole run may change: ``variable`` in the environment, ``option`` on the
    pytest command line."""

    variable: str
    option: str
    default: int | float
    parse: Callable[[str], Any]
    valid: Callable[[Any], bool]
    expected: str
    help: str

    def check(self, value: Any, source: str) -> Any:
        """``value`` if valid; ``ValueError`` naming ``source`` and what is expected otherwise."""
        if not self.valid(value):
            raise ValueError(f"{source} must be {self.expected}, got {value!r}")
        return value

    def value(self) -> Any:
        """The variable's value, or the default when it is unset or blank."""
        text = os.environ.get(self.variable, "").strip()
        if not text:
            return self.default
        try:
            parsed = self.parse(text)
        except ValueError:
            raise ValueError(
                f"environment variable {self.variable} must be {self.expected}, got {text!r}"
            ) from None
        return self.check(parsed, f"environment variable {self.variable}")


SAMPLES = Setting(
    "DPLEDGER_SAMPLES",
    "--dpledger-samples",
    100_000,
    int,
    lambda value: value >= 2,
    "an integer ≥ 2",
    "runs per input of assert_private when a call does not say",
)
CONFIDENCE = Setting(
    "DPLEDGER_CONFIDENCE",
    "--dpledger-confidence",
    0.95,
    float,
    lambda value: 0 < value < 1,
    "a number in (0, 1)",
    "confidence of assert_private when a call does not say",
)
SEED = Setting(
    "DPLEDGER_SEED",
    "--dpledger-seed",
    0,
    int,
    lambda value: value >= 0,
    "an integer ≥ 0",
    "base mixed into the seeds derived from test node ids",
)
SETTINGS = (SAMPLES, CONFIDENCE, SEED)
