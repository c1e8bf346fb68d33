"""``dpledger calibrate agnostic``: every calibrated noise level is certified by the accountant,
and the exact Gaussian composition needs less noise than advanced composition."""

import json

import pytest

from dpledger.verify.cli.main import main


def test_calibrated_noise_meets_the_target_and_exact_composition_needs_less(capsys):
    assert (
        main(["calibrate", "agnostic", "--epsilon", "1", "--delta", "1e-5", "--steps", "100", "--json"]) == 0
    )
    rows = json.loads(capsys.readouterr().out)["calibrations"]
    assert all(row["holds"] and row["epsilon"] <= 1 for row in rows.values())
    advanced = rows["theorem_2_1_l1_optimiser_advanced"]["sigma_over_sensitivity"]
    exact = rows["theorem_2_1_l1_optimiser_exact_gaussian"]["sigma_over_sensitivity"]
    assert exact < advanced
    assert rows["theorem_3_1_4_1_single_release"]["sigma_over_sensitivity"] < exact


@pytest.mark.parametrize(
    "argv",
    [
        ["--epsilon", "0", "--delta", "1e-5"],
        ["--epsilon", "1", "--delta", "1"],
        ["--epsilon", "101", "--delta", "1e-5"],
        ["--epsilon", "1", "--delta", "1e-5", "--steps", "200000"],
    ],
)
def test_targets_outside_the_learners_range_are_refused(argv, capsys):
    assert main(["calibrate", "agnostic", *argv]) == 2
    assert capsys.readouterr().err.startswith("dpledger: error:")
