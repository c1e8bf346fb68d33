"""The ``dpledger`` pytest plugin (entry point ``pytest11``): run-wide settings of :mod:`dpledger.testing`.

``--dpledger-samples N`` and ``--dpledger-confidence C`` change the defaults of
:func:`dpledger.testing.assert_private` for one run (a quick suite on every push, a thorough one
nightly); ``--dpledger-seed S`` mixes a base into every seed derived from a test's node id, to
re-run the privacy tests under fresh randomness. Each option sets its environment variable
(:mod:`dpledger.testing_settings`), which :mod:`dpledger.testing` reads at each call — pytest-xdist
workers inherit it and receive the same options — and the variable is restored when pytest ends;
an argument given in a call wins over both. The report header names the settings in force.

The plugin imports only pytest and the standard library (dpledger's auditors load only when a
test calls them) and changes nothing unless an option is given. Disable it with
``-p no:dpledger``.
"""

from __future__ import annotations

import os

import pytest

from dpledger.testing_settings import SETTINGS

_SAVED = pytest.StashKey[dict[str, str | None]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpledger", "dpledger privacy assertions (dpledger.testing)")
    for setting in SETTINGS:
        group.addoption(
            setting.option,
            type=setting.parse,
            default=None,
            metavar=setting.parse.__name__.upper(),
            help=f"{setting.help} (default {setting.default}); sets {setting.variable}",
        )


def pytest_configure(config: pytest.Config) -> None:
    saved: dict[str, str | None] = {}
    for setting in SETTINGS:
        value = config.getoption(setting.option)
        if value is None:
            continue
        try:
            setting.check(value, setting.option)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
        saved[setting.variable] = os.environ.get(setting.variable)
        os.environ[setting.variable] = str(value)
    config.stash[_SAVED] = saved


def pytest_unconfigure(config: pytest.Config) -> None:
    for variable, previous in config.stash.get(_SAVED, {}).items():
        if previous is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = previous


def pytest_report_header(config: pytest.Config) -> str | None:
    changed = [
        f"{s.variable}={os.environ[s.variable]}" for s in SETTINGS if os.environ.get(s.variable, "").strip()
    ]
    return f"dpledger: {', '.join(changed)}" if changed else None
