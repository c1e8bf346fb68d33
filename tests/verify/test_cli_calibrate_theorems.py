"""``dpledger calibrate <theorem>``: every theorem answers with paper and tight n in JSON, and
parameters outside a theorem's hypotheses are refused with the hypothesis, in one line, status 2."""

import json

import pytest

from dpledger.verify.cli.main import main


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "argv",
    [
        ("5.1", "--class", "intervals"),
        ("5.1", "--oracle-m", "5000", "--k", "3", "--vc", "3"),
        ("8.5", "--oracle", "ipconcave-em"),
        ("8.8", "--dimension", "3"),
        ("8.14",),
        ("8.19", "--k", "2"),
    ],
)
def test_calibrate_theorem_reports_the_papers_n_and_a_smaller_tight_n(capsys, argv):
    out = run_json(capsys, "calibrate", *argv)
    assert out["statement"] == f"Theorem {argv[0]}" or argv[0] == "8.5"
    assert out["m"] == max(out["M_A"], out["labelboost_term"])
    assert 0 < out["n_tight"] < out["n_paper"]
    assert "SUBSTITUTE" in out["labelboost_constant"]
    assert out["guarantee_paper"]["holds"] and out["guarantee_tight"]["holds"]
    assert out["guarantee_paper"]["epsilon"] < out["guarantee_tight"]["epsilon"] <= out["claim"]["epsilon"]


def test_boolean_is_an_alias_of_theorem_8_19(capsys):
    assert run_json(capsys, "calibrate", "boolean", "--k", "2") == run_json(
        capsys, "calibrate", "8.19", "--k", "2"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("5.1", "--class", "intervals", "--epsilon", "1.5"),
            "epsilon must be in (0, 1] (hypothesis of Theorem 5.1",
        ),
        (("8.8", "--delta", "0.2"), "delta must be ≤ beta (hypothesis of Theorem 8.8)"),
        (("8.14", "--alpha", "1.5"), "alpha must be in (0, 1) (hypothesis of Theorem 8.14)"),
        (("8.19", "--k", "2", "--beta", "0"), "beta must be in (0, 1) (hypothesis of Theorem 8.19)"),
        (("5.1", "--oracle-m", "100"), "--oracle-m needs --k and --vc"),
        (("5.1", "--class", "intervals", "--k", "3"), "sets k and v itself"),
        (
            ("5.1", "--oracle-m", "100", "--k", "2", "--vc", "2", "--domain-size", "64"),
            "--domain-size applies to --class",
        ),
        (("8.8", "--oracle", "exponential"), "invalid choice: 'exponential'"),
        (("8.8", "--dimension", "60"), "dimension must be at most 50"),
        (("9.9",), "invalid choice: '9.9'"),
        (("5.1", "--class", "intervals", "--epsilon", "1/0"), "not a number: '1/0'"),
    ],
)
def test_calibrate_refuses_input_outside_the_theorems_hypotheses(capsys, argv, message):
    status: int | str | None
    try:
        status = main(["calibrate", *argv])
    except SystemExit as exit_:  # argparse refusals exit from the parser
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv", [("2.1", "--degree", "2"), ("2.1",), ("3.1", "--degree", "2"), ("4.1",)])
def test_seed_002_theorems_report_both_accountings_with_the_substitutes_named(capsys, argv):
    out = run_json(capsys, "calibrate", *argv, "--epsilon", "0.5")
    paper, tight = out["paper"], out["tight"]
    assert out["seed"] == "002" and out["statement"] == f"Theorem {argv[0]}"
    assert out["n_paper"] == paper["n"] == sum(t["value"] for t in paper["terms"])
    assert out["n_tight"] == tight["n"] < paper["n"]
    assert tight["parameters"]["sigma_over_sensitivity"] < paper["parameters"]["sigma_over_sensitivity"]
    assert paper["substitutes"] and "lost" in out["note"]
    for accounting in ("paper", "tight"):
        guarantee = out[f"guarantee_{accounting}"]
        assert guarantee["holds"] and guarantee["gaussian_releases"]["epsilon"] <= 0.5


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("2.1", "--epsilon", "200"), "epsilon must be in (0, 100]"),
        (("3.1", "--alpha", "1"), "alpha must be in (0, 1) (hypothesis of Theorem 3.1)"),
        (("4.1", "--delta", "0"), "delta must be in (0, 1) (hypothesis of Theorem 4.1)"),
        (("4.1", "--degree", "2"), "unrecognized arguments: --degree 2"),
    ],
)
def test_seed_002_calibration_refuses_input_outside_the_hypotheses(capsys, argv, message):
    status: int | str | None
    try:
        status = main(["calibrate", *argv])
    except SystemExit as exit_:
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1


def test_the_printed_lemma_6_12_command_reproduces_the_chain_at_the_papers_n(capsys):
    out = run_json(capsys, "calibrate", "8.8", "--dimension", "1")
    chain = out["paper_chain"]
    assert (
        chain["holds"] and "--delta 1/2000000" in chain["command"]
    )  # Theorem 8.5 runs the learner at δ/2, exactly
    again = run_json(capsys, *chain["command"].split()[1:])
    assert again["paper"]["steps"] == chain["steps"] and again["paper"]["m"] == out["m"]


def test_astronomical_sample_sizes_print_in_scientific_notation_and_json_keeps_every_digit(capsys):
    from dpledger.verify.paper.theorem_calibration import count_text

    assert count_text(999_999) == "999,999" and count_text(10**15) == "1.000e15"
    assert count_text(123_456_789_012_345_678) == "1.235e17" and count_text(99_995 * 10**20) == "1.000e25"
    out = run_json(capsys, "calibrate", "2.1", "--dimension", "1000", "--alpha", "0.01")
    assert out["n_paper"] > 10**1400 and isinstance(out["n_paper"], int)
    assert out["guarantee_paper"]["holds"] and isinstance(out["paper"]["parameters"]["clip_norm"], str)
    assert main(["calibrate", "2.1", "--dimension", "1000", "--alpha", "0.01"]) == 0
    assert "e14" in capsys.readouterr().out
