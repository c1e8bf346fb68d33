"""``dpledger calibrate dp-sgd``: ε for a noise multiplier with the sampling it assumes, JSON, and
one line with exit 2 on refused input."""

import json

from dpledger.verify.cli.main import main

BASE = [
    "calibrate",
    "dp-sgd",
    "--dataset-size",
    "1000",
    "--batch-size",
    "10",
    "--steps",
    "20",
    "--delta",
    "1e-5",
]


def test_the_command_prints_the_certified_epsilon_and_what_it_assumes(capsys):
    assert main([*BASE, "--noise-multiplier", "1.5"]) == 0
    out = capsys.readouterr().out
    assert "assumes: Poisson sampling" in out
    assert "certified: ε ≤" in out


def test_json_output_carries_the_sampling_and_the_guarantee(capsys):
    assert main([*BASE, "--noise-multiplier", "1.5", "--sampling", "fixed", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["sampling"] == "fixed" and payload["guarantee"]["relation"] == "substitute"


def test_shuffled_batches_are_refused_in_one_line_with_exit_2(capsys):
    assert main([*BASE, "--noise-multiplier", "1.5", "--sampling", "shuffle"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
