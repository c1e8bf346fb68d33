"""The ``dpledger`` pytest plugin (entry point ``pytest11``): run-wide settings of :mod:`dpledger.testing`.

``--dpledger-samples N`` and ``--dpledger-confidence C`` change the defaults of
:func:`dpledger.testing.assert_private` for one run (a quick suite on every push, a thorough one
nightly); ``--dpledger-seed S`` mixes a base into every seed derived from a test's node id, to
re-run the privacy tests under fresh randomness. The options set the environment variables
``DPLEDGER_SAMPLES``, ``DPLEDGER_CONFIDENCE``, ``DPLEDGER_SEED`` that :mod:`dpledger.testing`
reads at each call (pytest-xdist workers inherit them and receive the same options), and restore
them when pytest ends; an argument given in a call wins over both. The report header names the
settings in force.

The plugin imports nothing but ``os`` and ``pytest`` (dpledger's auditors load only when a test
calls them) and does nothing unless an option or variable is set. Disable it with
``-p no:dpledger``.
"""
from __future__ import annotations

import os

import pytest

OPTIONS = (
    ("--dpledger-samples", "DPLEDGER_SAMPLES", int, lambda value: value >= 2,
     "runs per input of assert_private when a call does not say (default 100000)"),
    ("--dpledger-confidence", "DPLEDGER_CONFIDENCE", float, lambda value: 0 < value < 1,
     "confidence of assert_private when a call does not say (default 0.95)"),
    ("--dpledger-seed", "DPLEDGER_SEED", int, lambda value: value >= 0,
     "base mixed into the seeds derived from test node ids (default 0)"),
)

_SAVED = pytest.StashKey[dict[str, str | None]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpledger", "dpledger privacy assertions (dpledger.testing)")
    for flag, variable, kind, _, text in OPTIONS:
        group.addoption(flag, type=kind, default=None, metavar=kind.__name__.upper(), help=f"{text}; sets {variable}")


def pytest_configure(config: pytest.Config) -> None:
    saved: dict[str, str | None] = {}
    for flag, variable, _, valid, _ in OPTIONS:
        value = config.getoption(flag)
        if value is None:
            continue
        if not valid(value):
            raise pytest.UsageError(f"{flag}: invalid value {value!r}")
        saved[variable] = os.environ.get(variable)
        os.environ[variable] = str(value)
    config.stash[_SAVED] = saved


def pytest_unconfigure(config: pytest.Config) -> None:
    for variable, previous in config.stash.get(_SAVED, {}).items():
        if previous is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = previous


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = [f"{variable}={os.environ[variable]}" for _, variable, *_ in OPTIONS if os.environ.get(variable)]
    return f"dpledger: {', '.join(settings)}" if settings else None
