"""``dpledger run agnostic``: JSON fields, the certified claim, and one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from dpledger.verify.cli.main import main

DEFAULTS = {
    "--algorithm": "improper",
    "--dim": "3",
    "--n": "2000",
    "--noise": "0.1",
    "--noise-model": "adversarial",
    "--epsilon": "1",
    "--delta": "1e-5",
    "--seed": "1",
}


def _arguments(**changes: str) -> list[str]:
    values = {**DEFAULTS, **{f"--{name.replace('_', '-')}": value for name, value in changes.items()}}
    return ["run", "agnostic", *[part for item in values.items() for part in item]]


def _status(arguments: list[str]) -> int:
    """main's exit status, including argparse's own exit on malformed arguments."""
    try:
        return main(arguments)
    except SystemExit as stop:
        assert isinstance(stop.code, int)  # argparse exits with a status
        return stop.code


@pytest.mark.parametrize("algorithm", ["improper", "proper", "semi-agnostic"])
def test_run_agnostic_reports_errors_and_a_certified_claim(
    algorithm: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_arguments(algorithm=algorithm), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for key in ("test_error", "opt_error", "nonprivate_error"):
        assert 0 <= payload[key] <= 1
    assert payload["opt_error"] == pytest.approx(0.1, abs=0.005)
    assert payload["holds"] is True
    assert payload["guarantee"]["epsilon"] <= 1 and payload["guarantee"]["delta"] <= 1e-5
    assert payload["claimed"] == {"statement": payload["statement"], "epsilon": "1", "delta": "1e-5"}
    assert payload["trace"]["claim"]["holds"] is True
    assert "substitute" in payload


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"epsilon": "0"}, "epsilon"),
        ({"delta": "1"}, "delta"),
        ({"noise": "0.7"}, "noise"),
        ({"dim": "10", "degree": "6"}, "8008 features"),
        ({"n": "3"}, "increase n"),
        ({"n": "100000000", "dim": "3"}, "n·dim must be at most"),
        ({"dim": "0"}, "--dim"),
    ],
)
def test_bad_input_is_one_line_with_exit_status_2(
    changes, message, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _status(_arguments(**changes)) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error


def test_cli_algorithm_names_are_the_learners():
    from dpledger.learners.agnostic import LEARNERS
    from dpledger.learners.agnostic.data import NOISE_MODELS
    from dpledger.verify.service.run import ALGORITHMS

    assert ALGORITHMS == tuple(LEARNERS) and NOISE_MODELS == ("random", "adversarial", "two-sided")
