"""Laws of ``dpledger audit mechanism`` and ``dpledger audit catalog``."""

from __future__ import annotations

import importlib
import json
import textwrap

import pytest

MECHANISMS = '''
import numpy as np

def laplace_half(data, n, rng):
    """Laplace with scale 1/2 on the sum, snapped to a 2^-10 grid: exactly 2-DP on neighbouring sums."""
    return np.round((float(np.sum(data)) + rng.laplace(0.0, 0.5, n)) * 1024) / 1024

def broken(data, n, rng):
    raise RuntimeError("sensor offline")

def one_run(data, rng):
    return float(data) + rng.laplace(0.0, 1.0)

def float_laplace(data, n, rng):
    """The textbook float Laplace at ε = 1 on the sum."""
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, n)

def sign_flipped(data, n, rng):
    """One random sign times (data + Laplace noise of scale 1 per coordinate), snapped: 3-DP on 3 coordinates."""
    noisy = np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, (n, 3))
    return np.round(rng.choice([-1.0, 1.0], size=(n, 1)) * noisy * 1024) / 1024
'''


@pytest.fixture
def main(tmp_path, monkeypatch):
    """``dpledger.verify.cli.main`` with a user mechanism module ``user_mechanisms`` on the path."""
    (tmp_path / "user_mechanisms.py").write_text(textwrap.dedent(MECHANISMS))
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("dpledger.verify.cli.main").main


def test_audit_mechanism_json_reports_a_violation_with_its_witness(main, capsys):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:laplace_half",
            "--input-a",
            "[0, 1]",
            "--input-b",
            "[1, 1]",
            "--claimed-epsilon",
            "1",
            "--samples",
            "200000",
            "--workers",
            "2",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert status == 1  # a certified violation: exit status 1
    assert payload["violation"] is True and 1.0 < payload["epsilon_lower"] <= 2.0
    assert {
        "epsilon_lower",
        "confidence",
        "claimed_epsilon",
        "violation",
        "samples",
        "seconds",
        "witness",
    } <= payload.keys()
    assert payload["witness"]["pair"]["a"] == [0, 1] and "event" in payload["witness"]


def test_float_laplace_text_names_the_float_leak_its_attack_witness_and_remedy(main, capsys):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:float_laplace",
            "--input-a",
            "[0]",
            "--input-b",
            "[1]",
            "--claimed-epsilon",
            "1",
            "--samples",
            "200000",
            "--workers",
            "1",
        ]
    )
    text = capsys.readouterr().out
    assert status == 1 and text.startswith("verdict: FLOAT LEAK")
    assert (
        "Mironov 2012" in text
        and "significand ends in" in text
        and "remedy:" in text
        and "snapping_laplace" in text
    )


def test_float_laplace_json_separates_real_and_float_bounds(main, capsys):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:float_laplace",
            "--input-a",
            "[0]",
            "--input-b",
            "[1]",
            "--claimed-epsilon",
            "1",
            "--samples",
            "200000",
            "--workers",
            "1",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert status == 1 and payload["verdict"] == "FLOAT LEAK" and payload["violation"] is True
    assert payload["real_epsilon_lower"] <= 1.0 < payload["float_epsilon_lower"] == payload["epsilon_lower"]
    assert payload["float_witness"]["event"]["statistic"] == "output on lattice"


def test_audit_mechanism_per_sample_fallback_runs_in_text_mode(main, capsys):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:one_run",
            "--per-sample",
            "--input-a",
            "0",
            "--input-b",
            "1",
            "--claimed-epsilon",
            "1",
            "--samples",
            "3000",
            "--workers",
            "1",
        ]
    )
    assert status == 0 and "verdict: NO VIOLATION FOUND" in capsys.readouterr().out


def test_audit_mechanism_domain_adds_substitute_one_pairs(main, capsys):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:laplace_half",
            "--input-a",
            "[0, 0]",
            "--input-b",
            "[0, 0]",
            "--domain",
            "[0, 2]",
            "--claimed-epsilon",
            "3",
            "--samples",
            "100000",
            "--workers",
            "2",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    # The given pair is identical inputs; the substitute-one pairs move the sum by 2: ε = 4 > 3.
    assert status == 1 and payload["violation"] and payload["witness"]["pair"]["label"].startswith("record")


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--mechanism", "user_mechanisms:broken"], "sensor offline"),
        (["--claimed-epsilon", "0"], "claimed epsilon"),
        (["--confidence", "1.5"], "confidence"),
        (["--samples", "10", "--claimed-epsilon", "5"], "too few samples"),
        (["--input-a", "[1,"], "not valid JSON"),
        (["--mechanism", "user_mechanisms"], "module:function"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_status_2(main, capsys, arguments, message):
    base = {
        "--mechanism": "user_mechanisms:laplace_half",
        "--input-a": "0",
        "--input-b": "1",
        "--claimed-epsilon": "1",
        "--samples": "5000",
        "--workers": "1",
    }
    for flag, value in zip(arguments[::2], arguments[1::2]):
        base[flag] = value
    status = main(["audit", "mechanism", *[part for item in base.items() for part in item]])
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and message in error[-1] and error[-1].startswith("dpledger: error:")


def test_audit_catalog_json_lists_truth_claim_bound_and_verdict(main, capsys):
    status = main(
        [
            "audit",
            "catalog",
            "--only",
            "laplace",
            "--only",
            "svt_5",
            "--samples",
            "50000",
            "--workers",
            "2",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in payload["mechanisms"]}
    assert status == 0 and payload["all_as_expected"]
    assert rows["svt_5"]["violation"] and not rows["laplace"]["violation"]
    assert rows["laplace"]["true_epsilon"] == 1.0 and rows["laplace"]["epsilon_lower"] <= 1.0


def test_audit_catalog_refuses_unknown_names(main, capsys):
    assert main(["audit", "catalog", "--only", "no_such_mechanism"]) == 2
    assert "unknown catalog mechanism" in capsys.readouterr().err


def test_samples_beyond_the_cap_are_refused_before_running(main, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "audit",
                "mechanism",
                "--mechanism",
                "user_mechanisms:laplace_half",
                "--input-a",
                "0",
                "--input-b",
                "1",
                "--claimed-epsilon",
                "1",
                "--samples",
                "1e15",
            ]
        )
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and "at most 1e+10 runs per input" in error and error.count("\n") == 1


def test_audit_mechanism_without_a_pair_searches_and_certifies_the_leak(main, capsys):
    """No input pair: the search over 2-record datasets on [0, 2] finds the pair moving the sum by 2
    (ε = 4 > 3) and certifies it on fresh runs."""
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:laplace_half",
            "--input-length",
            "2",
            "--domain",
            "[0, 1, 2]",
            "--claimed-epsilon",
            "3",
            "--samples",
            "100000",
            "--screen-samples",
            "2000",
            "--workers",
            "2",
            "--json",
        ]
    )
    payload = json.loads(capsys.readouterr().out)
    assert status == 1 and payload["violation"] and payload["search"]["pairs_tried"] >= 5
    certified = payload["search"]["certified_pairs"][0]
    assert abs(sum(certified["a"]) - sum(certified["b"])) == 2


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--input-a", "[0, 1]"], "give both --input-a and --input-b"),
        (["--search"], "--input-length"),
        (["--input-length", "2"], "needs --domain"),
        (["--input-length", "2", "--domain", "[[0], [1]]"], "JSON list"),
    ],
)
def test_search_without_a_defined_input_space_is_refused_with_status_2(main, capsys, arguments, message):
    status = main(
        [
            "audit",
            "mechanism",
            "--mechanism",
            "user_mechanisms:laplace_half",
            "--claimed-epsilon",
            "1",
            "--workers",
            "1",
            *arguments,
        ]
    )
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and message in error[-1] and error[-1].startswith("dpledger: error:")


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--algorithm", "proper", "--epsilon", "1", "--samples", "10"], "too few samples"),
        (["--algorithm", "nonparametric", "--epsilon", "1"], "invalid choice"),
        (["--algorithm", "proper", "--epsilon", "1", "--extreme", "-1"], "must be > 0"),
        (["--algorithm", "proper", "--epsilon", "0"], "epsilon must be in"),
    ],
)
def test_audit_learner_bad_input_is_one_line_with_status_2(main, capsys, arguments, message):
    try:
        status = main(["audit", "learner", *arguments, "--workers", "1"])
    except SystemExit as exit_:  # argparse's refusals
        status = exit_.code
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and message in error[-1] and error[-1].startswith("dpledger: error:")


def test_audit_mechanism_network_adds_the_perceptrons_events_to_the_search(main, capsys):
    examined = []
    for extra in ([], ["--network"]):
        status = main(
            [
                "audit",
                "mechanism",
                "--mechanism",
                "user_mechanisms:sign_flipped",
                "--input-a",
                "[0, 0, 0]",
                "--input-b",
                "[1, 1, 1]",
                "--claimed-epsilon",
                "3",
                "--samples",
                "20000",
                "--workers",
                "1",
                "--stages",
                "1",
                "--json",
                *extra,
            ]
        )
        payload = json.loads(capsys.readouterr().out)
        assert status == 0 and payload["verdict"] == "NO VIOLATION FOUND"  # exactly 3-DP: nothing to find
        examined.append(payload["correction"]["candidates_searched_on_split_1"])
    assert examined[1] > examined[0]


def test_audit_learner_white_box_passes_the_proper_learner_and_names_each_check(main, capsys):
    status = main(
        ["audit", "learner", "--algorithm", "proper", "--epsilon", "1", "--mode", "white-box", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    white = payload["white_box"]
    assert status == 0 and white["verdict"] == "NO VIOLATION FOUND" and white["findings"] == []
    assert white["noise_tests"][0]["samples"] >= 600 and len(white["selection_tests"]) == 2
    assert min(group["largest_ratio"] for group in white["sensitivity_groups"]) >= 0.75


@pytest.mark.slow
def test_audit_learner_black_box_runs_the_improper_learner_end_to_end(main, capsys):
    status = main(
        ["audit", "learner", "--algorithm", "improper", "--epsilon", "1", "--mode", "black-box"]
        + ["--samples", "100", "--stages", "1", "--workers", "1", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert status == 0 and payload["released"] == ["block_coefs_", "direction_", "block_", "threshold_"]
    assert payload["samples"] == 100
