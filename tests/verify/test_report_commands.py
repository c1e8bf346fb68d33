"""Every command line a report shows beside its figures reproduces them: parsed by the CLI, it calls
the service function the report calls, with the same keyword arguments (defaults filled in)."""

import inspect

import pytest

from dpledger.verify.cli.main import build_parser, service_call
from dpledger.verify.reports import audits, calibration, calibration_dp_sgd, runs

COMMANDS = [
    *audits.LABELBOOST,
    *audits.BLOCKS,
    audits.CATALOG,
    audits.SUITES,
    *runs.CARRY_FORWARD,
    *runs.AGNOSTIC,
    calibration.COMMAND,
    calibration_dp_sgd.COMMAND,
]


def arguments(service, kwargs) -> dict:
    """The call's arguments by parameter name, defaults included."""
    bound = inspect.signature(service).bind(**kwargs)
    bound.apply_defaults()
    return bound.arguments


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.line)
def test_a_reports_command_line_makes_the_reports_service_call(command):
    service, kwargs = service_call(build_parser().parse_args(list(command.argv)))
    assert service is command.service
    assert arguments(service, kwargs) == arguments(command.service, command.kwargs)


def test_the_shown_command_lines_are_unchanged():
    assert runs.CARRY_FORWARD[0].line == (
        "dpledger run carry-forward --class thresholds --domain-size 1024 --n 400000 --calibration paper --seed 1"
    )
    assert (
        calibration.COMMAND.line
        == "dpledger calibrate carry-forward --n 100000000 --k 4 --epsilon 1 --delta 1e-6"
    )
