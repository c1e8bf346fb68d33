"""``dpledger calibrate 5.1 / 8.19`` print three numbers — the paper's n, the tight n with the
paper's constants and the n with the free constants — in text and --json, and the
free guarantee takes part in the exit status."""

import json

import pytest

from dpledger.verify.cli.main import main


def run(capsys, *argv):
    status = main(["calibrate", *argv])
    return status, capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ("5.1", "--class", "intervals", "--epsilon", "1"),
        ("8.19", "--k", "2", "--components", "thresholds,intervals"),
    ],
)
def test_calibrate_json_gives_a_certified_free_n_below_the_tight_n(capsys, argv):
    status, out = run(capsys, *argv, "--json")
    payload = json.loads(out)
    free = payload["free"]
    assert status == 0 and free["guarantee"]["holds"]
    assert 0 < free["n_free"] < payload["n_tight"] < payload["n_paper"]
    assert free["saving_over_paper"] == pytest.approx(payload["n_paper"] / free["n_free"])
    assert free["error_bound"] <= 0.1 * (1 + 1e-12) and free["failure_bound"] <= 0.1 * (1 + 1e-12)
    assert "SUBSTITUTE" in free["constants"]["lemma_7_1_constant"]


def test_calibrate_text_prints_the_free_constants_and_their_n(capsys):
    status, out = run(capsys, "5.1", "--class", "thresholds")
    assert status == 0
    line = next(line for line in out.splitlines() if "n (free constants" in line)
    assert "ε_A = " in line and "δ_A = 0" in line and "below the paper" in line


def test_calibrate_with_a_given_oracle_requirement_says_why_it_has_no_free_n(capsys):
    status, out = run(capsys, "5.1", "--oracle-m", "5000", "--k", "3", "--vc", "3", "--json")
    assert status == 0 and json.loads(out)["free"] is None
    status, out = run(capsys, "5.1", "--oracle-m", "5000", "--k", "3", "--vc", "3")
    assert "not computed" in out and "--class" in out


def test_calibrate_json_carries_the_derivation_of_the_free_guarantee(capsys):
    status, out = run(capsys, "5.1", "--class", "intervals", "--json")
    free = json.loads(out)["free"]
    assert status == 0
    assert free["derivation"]["source"] == "Lemma 6.12" and free["derivation"]["claim"]["holds"]
    assert free["derivation"]["guarantee"]["epsilon"] <= free["guarantee"]["epsilon"] <= 0.5
