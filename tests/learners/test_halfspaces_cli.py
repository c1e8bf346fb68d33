"""``dpledger run carry-forward --class halfspaces``: end to end, the oracle's algorithm named, bad input."""

from __future__ import annotations

import pytest

from dpledger.verify.cli.main import main

BASE = [
    "run",
    "carry-forward",
    "--class",
    "halfspaces",
    "--n",
    "600",
    "--m",
    "30",
    "--seed",
    "3",
    "--test-size",
    "200",
]


@pytest.mark.parametrize("oracle", ["ipconcave", "qcopt", "exponential", "ipconcave-em"])
def test_run_halfspaces_end_to_end_names_the_oracle_and_its_algorithm(oracle, capsys):
    # n = 600 is far too small for (1, 1e-6) at m = 30: the run says so and exits 1 (a claim that fails)
    assert main([*BASE, "--dim", "2", "--grid", "6", "--oracle", oracle]) == 1
    out = capsys.readouterr().out
    assert "DOES NOT HOLD" in out
    assert "GridHalfspaces(dimension=2, grid=6)" in out and "round 3:" in out
    named = {
        "ipconcave": "the RecConcave interior point (Beimel–Nissim–Stemmer 2013)",
        "qcopt": "RecConcave (Beimel–Nissim–Stemmer 2013), recursion on interval lengths",
        "exponential": "exponential mechanism over the finite coordinate domain",
        "ipconcave-em": "exponential-mechanism interior point (substitute for Cohen et al.'s log* interior point)",
    }
    assert all((text in out) == (name == oracle) for name, text in named.items())


def test_run_halfspaces_in_three_dimensions_runs_every_round_with_full_depth_domains(capsys):
    """d = 3 on [[±8]]³: four oracle rounds on Q_i^S (two free coefficients at round 2), each
    domain holding a full-depth coordinate (Lemma C.4), LabelBoost after (w, a_1) listed."""
    assert main([*BASE, "--dim", "3", "--grid", "8", "--oracle", "exponential"]) == 1
    out = capsys.readouterr().out
    assert "GridHalfspaces(dimension=3, grid=8)" in out and "round 4:" in out
    assert out.count("(full depth in the domain: True)") == 4


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--dim", "4"], "dimension must be one of (1, 2, 3)"),
        (["--grid", "0"], "grid must be an integer X in [1, 256]"),
        (["--dim", "3", "--grid", "15"], "d = 3 needs X ≤ 14"),
        (["--dim", "3", "--grid", "8", "--n", "3000", "--m", "301"], "too much work: LabelBoost's trace"),
        (["--dim", "3", "--grid", "8", "--n", "3000", "--m", "301"], "use m ≤ 300"),
        (["--dim", "2", "--n", "20000", "--m", "6001"], "use m ≤ 6,000"),
        (
            ["--oracle", "exponential", "--blocks", "3"],
            "blocks: --blocks applies to --oracle ipconcave or ipconcave-em only",
        ),
    ],
)
def test_run_halfspaces_out_of_range_is_one_line_exit_2(arguments, message, capsys):
    assert main([*BASE, *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
