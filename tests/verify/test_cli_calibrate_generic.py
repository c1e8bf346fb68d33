"""``dpledger calibrate noise`` and ``dpledger calibrate composition``: one's own mechanism, no paper.
The printed value is the certified one, --json carries the certified guarantee, bad input exits 2."""

import json

import pytest

from dpledger.verify.cli.main import main


def test_laplace_noise_prints_sensitivity_over_epsilon(capsys):
    assert (
        main(["calibrate", "noise", "--mechanism", "laplace", "--sensitivity", "2", "--epsilon", "0.5"]) == 0
    )
    out = capsys.readouterr().out
    assert "scale = 4.0" in out and "Laplace mechanism (Dwork et al. 2006)" in out


def test_gaussian_noise_for_k_releases_json_meets_the_target(capsys):
    assert (
        main(
            [
                "calibrate",
                "noise",
                "--mechanism",
                "gaussian",
                "--sensitivity",
                "1",
                "--epsilon",
                "1",
                "--delta",
                "1e-5",
                "--k",
                "10",
                "--json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["parameter"] == "sigma" and payload["holds"]
    assert 11.79 < payload["value"] < 11.80
    assert payload["guarantee"]["epsilon"] <= 1 and payload["guarantee"]["delta"] <= 1e-5
    assert payload["event"]["kind"] == "Composition" and payload["event"]["repeat"] == 10
    assert payload["derivation"]["source"].startswith("Dong–Roth–Su 2019")


def test_subsampled_noise_composes_distributions_under_add_remove(capsys):
    assert (
        main(
            [
                "calibrate",
                "noise",
                "--mechanism",
                "laplace",
                "--sensitivity",
                "1",
                "--epsilon",
                "1",
                "--delta",
                "1e-5",
                "--k",
                "20",
                "--poisson-rate",
                "0.05",
                "--json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["guarantee"]["relation"] == "add_remove"
    assert any("privacy-loss distributions are composed" in note for note in payload["notes"])


def test_per_step_epsilon_text_and_json_agree(capsys):
    argv = [
        "calibrate",
        "composition",
        "--k",
        "10",
        "--epsilon",
        "1",
        "--delta",
        "1e-5",
        "--method",
        "advanced",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parameter"] == "epsilon" and 0.06 < payload["value"] < 0.07
    assert f"epsilon = {payload['value']!r}" in text and "Theorem 3.5" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["noise", "--mechanism", "laplace", "--sensitivity", "1", "--epsilon", "0"],
        ["noise", "--mechanism", "gauss", "--sensitivity", "1", "--epsilon", "1"],
        ["noise", "--mechanism", "gaussian", "--sensitivity", "1", "--epsilon", "1"],
        [
            "noise",
            "--mechanism",
            "gaussian",
            "--sensitivity",
            "1",
            "--epsilon",
            "1",
            "--delta",
            "1e-5",
            "--sample-size",
            "3",
        ],
        [
            "noise",
            "--mechanism",
            "gaussian",
            "--sensitivity",
            "1",
            "--epsilon",
            "1",
            "--delta",
            "1e-5",
            "--poisson-rate",
            "0.1",
            "--sample-size",
            "3",
            "--population",
            "10",
        ],
        [
            "noise",
            "--mechanism",
            "gaussian-classic",
            "--sensitivity",
            "1",
            "--epsilon",
            "2",
            "--delta",
            "1e-5",
        ],
        ["noise", "--mechanism", "laplace", "--sensitivity", "nan", "--epsilon", "1"],
        ["composition", "--k", "0", "--epsilon", "1"],
        ["composition", "--k", "10", "--epsilon", "1", "--method", "optimal"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    status: int | str | None
    try:
        status = main(["calibrate", *argv])
    except SystemExit as exit_:  # argparse refuses before the service runs
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("dpledger: error:") and err.count("\n") == 1
