"""The accounting commands: JSON keys, certified values, one-line errors with status 2."""

import argparse
import json
import subprocess
import sys

import pytest

from dpledger.verify.cli.main import main


def run_json(capsys, *argv, status=0):
    """The JSON a command prints, after checking its exit status (1: a claim fails)."""
    assert main([*argv, "--json"]) == status
    return json.loads(capsys.readouterr().out)


def test_compose_basic_sums_and_reports_certified_epsilon(capsys):
    out = run_json(capsys, "compose", "--epsilon", "0.1", "--k", "10", "--method", "basic")
    assert out["epsilon"] == 1.0 and out["delta"] == 0.0


def test_compose_optimal_at_most_advanced(capsys):
    common = ["compose", "--epsilon", "0.01", "--k", "10000", "--target-delta", "1e-6"]
    optimal = run_json(capsys, *common, "--method", "optimal")["epsilon"]
    advanced = run_json(capsys, *common, "--method", "advanced")["epsilon"]
    assert 0 < optimal <= advanced


def test_calibrate_carry_forward_json_has_the_promised_keys(capsys):
    out = run_json(
        capsys,
        "calibrate",
        "carry-forward",
        "--n",
        "100000000",
        "--k",
        "4",
        "--epsilon",
        "1",
        "--delta",
        "1e-6",
    )
    for key in ("m", "q", "eta", "zeta", "ell", "epsilon_res", "delta_res", "steps", "holds"):
        assert key in out["paper"]
    for key in ("statement", "formula", "value", "claim", "holds"):
        assert key in out["paper"]["steps"][0]
    for key in ("m", "epsilon", "delta", "holds"):
        assert key in out["tight"]
    assert out["paper"]["holds"] and out["tight"]["holds"]
    assert out["tight"]["m"] >= out["paper"]["m"] == 134
    assert out["sample_saving"] > 1


@pytest.mark.parametrize(
    "argv",
    [
        ["compose", "--epsilon", "0", "--k", "3", "--method", "basic"],
        ["compose", "--epsilon", "nan", "--k", "3", "--method", "basic"],
        ["compose", "--epsilon", "1", "--delta", "1", "--k", "3", "--method", "basic"],
        ["compose", "--epsilon", "1", "--k", "0", "--method", "basic"],
        ["compose", "--epsilon", "1", "--k", "3", "--method", "optimal"],
        ["compose", "--epsilon", "1", "--k", "3", "--method", "advanced", "--target-delta", "2"],
        ["calibrate", "carry-forward", "--n", "1000", "--k", "2", "--epsilon", "1", "--delta", "1e-6"],
        ["calibrate", "carry-forward", "--n", "100000000", "--k", "2", "--epsilon", "2", "--delta", "1e-6"],
        ["calibrate", "carry-forward", "--n", "100000000", "--k", "2", "--epsilon", "inf", "--delta", "1e-6"],
        ["calibrate", "unknown-theorem"],
    ],
)
def test_bad_input_is_one_line_on_stderr_with_status_2(argv):
    result = subprocess.run(
        [sys.executable, "-m", "dpledger.verify.cli.main", *argv, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpledger: error:")


def test_compose_basic_checks_k_delta_against_the_target_exactly(capsys):
    fits = run_json(
        capsys,
        "compose",
        "--epsilon",
        "0.1",
        "--delta",
        "1e-7",
        "--k",
        "10",
        "--method",
        "basic",
        "--target-delta",
        "1e-6",
    )
    over = run_json(
        capsys,
        "compose",
        "--epsilon",
        "0.1",
        "--delta",
        "1e-7",
        "--k",
        "11",
        "--method",
        "basic",
        "--target-delta",
        "1e-6",
        status=1,
    )
    assert fits["delta_within_target"] is True and over["delta_within_target"] is False


def test_counts_may_be_written_in_scientific_notation_when_integral():
    from dpledger.verify.cli.commands import positive_int

    assert positive_int("1e8") == 10**8 == positive_int("100000000")
    assert positive_int("2.5e3") == 2500
    for text in ("1.5", "1e-3", "inf", "1e2000", "0"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive_int(text)
