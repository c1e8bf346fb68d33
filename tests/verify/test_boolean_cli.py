"""``dpledger run carry-forward --class boolean`` and ``dpledger calibrate boolean``: JSON keys,
figures that follow from their formulas, and one-line errors on bad input."""

import json
import math

import pytest

from dpledger.verify.cli.main import main

RUN = [
    "run",
    "carry-forward",
    "--class",
    "boolean",
    "--domain-size",
    "64",
    "--n",
    "900",
    "--m",
    "12",
    "--seed",
    "2",
]


def run_json(capsys, *argv):
    """The JSON of a run, after checking its exit status says whether the guarantee meets the target."""
    status = main([*argv, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == (1 if out.get("holds") is False else 0)
    return out


def test_run_carry_forward_boolean_reports_the_same_keys_as_other_classes(capsys):
    out = run_json(
        capsys, *RUN, "--formula", "x1 and (x2 or not x3)", "--components", "thresholds,intervals,thresholds"
    )
    reference = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "thresholds",
        "--domain-size",
        "64",
        "--n",
        "900",
        "--m",
        "12",
    )
    assert set(out) == set(reference)
    assert len(out["hypothesis"]) == 3 and len(out["hypothesis"][1]) == 2 and len(out["rounds"]) == 3
    assert "Proposition 8.16" in out["oracle"] and out["m"] == 12
    assert out["trace"]["claim"]["statement"] == "Lemma 6.12"


def test_run_carry_forward_boolean_accepts_a_truth_table_and_rectangles(capsys):
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "boolean",
        "--domain-size",
        "4",
        "--n",
        "300",
        "--m",
        "5",
        "--truth-table",
        "0111",
        "--components",
        "thresholds,rectangles",
        "--test-size",
        "100",
    )
    assert len(out["hypothesis"][1]) == 4 and "[0, 4)^2" in out["oracle"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--formula", "x1 and (x2 or", "--components", "thresholds,intervals"],
            "formula: not a Boolean formula",
        ),
        (["--formula", "x1 + x2", "--components", "thresholds,intervals"], "formula: only and, or, not"),
        (
            ["--formula", "x1 and x2", "--components", "thresholds,intervals,thresholds"],
            "components: G has arity 2 but 3",
        ),
        (
            ["--formula", "x1 and x2", "--components", "thresholds,ellipses"],
            "components: unknown component class 'ellipses'",
        ),
        (["--truth-table", "011", "--components", "thresholds,intervals"], "truth table must list 2^k bits"),
        (
            ["--formula", "x1", "--truth-table", "01", "--components", "thresholds"],
            "exactly one of --formula",
        ),
        (["--formula", "x1 and x2"], "needs --components"),
    ],
)
def test_bad_boolean_input_is_a_one_line_error_with_status_2(capsys, extra, message):
    assert main([*RUN, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_calibrate_boolean_follows_theorem_8_19_and_reports_the_baseline(capsys):
    out = run_json(
        capsys, "calibrate", "boolean", "--k", "3", "--components", "thresholds,intervals,thresholds"
    )
    thresholds, intervals = out["components"][0], out["components"][1]
    tau, beta_a = 0.1 / 120, 0.1 / 12
    assert thresholds["m_B"] == math.ceil(8 * math.log(2 * 65537 / (beta_a / 2)) / (tau / 2))
    assert intervals["hypotheses"] == 65537 * 65538 // 2
    assert intervals["M_A"] == max(intervals["relabel_m"], 9 * intervals["m_B"]) == out["M_A"]
    assert out["m"] == max(out["M_A"], out["labelboost_term"])
    root = math.sqrt(3 * math.log(2 / 1e-6))
    assert out["n_paper"] == pytest.approx(out["m"] * 12 * math.exp(9) * root / 0.5, rel=1e-9)
    assert out["n_tight"] < out["n_paper"]
    assert out["baseline"]["n"] == 3 * math.ceil(out["M_A"] * (math.exp(4) - 1) / (math.exp(0.5) - 1))
    assert "SUBSTITUTE" in out["baseline"]["model"] and "SUBSTITUTE" in out["labelboost_constant"]


def test_calibrate_boolean_rejects_inconsistent_k(capsys):
    assert main(["calibrate", "boolean", "--k", "2", "--components", "thresholds"]) == 2
    assert "components: --k is 2" in capsys.readouterr().err


@pytest.mark.slow
def test_run_carry_forward_boolean_with_paper_m_meets_its_target(capsys):
    out = run_json(
        capsys,
        "run",
        "carry-forward",
        "--class",
        "boolean",
        "--formula",
        "x1 and (x2 or not x3)",
        "--components",
        "thresholds,intervals,thresholds",
        "--n",
        "2000000",
        "--seed",
        "1",
        "--test-size",
        "1000",
        "--calibration",
        "paper",
    )
    assert out["m"] == 3 and out["holds"] is True and out["guarantee"]["epsilon"] <= 1
