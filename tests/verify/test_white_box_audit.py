"""``dpledger audit learner`` white box: each learner as written passes; a learner whose draws are
half its declaration (noise at half the declared σ, selections at twice the declared ε) is flagged,
and the finding names the cause."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpledger.learners import exponential_mechanism as em
from dpledger.learners.randomness import Sampled
from dpledger.verify.cli.main import main as cli


@pytest.fixture
def main():
    return cli


def _audit(main, capsys, algorithm, *extra):
    status = main(
        [
            "audit",
            "learner",
            "--algorithm",
            algorithm,
            "--epsilon",
            "1",
            "--mode",
            "white-box",
            "--json",
            *extra,
        ]
    )
    return status, json.loads(capsys.readouterr().out)["white_box"]


def test_carry_forward_learner_as_written_passes_the_white_box_audit(main, capsys):
    status, white = _audit(main, capsys, "carry-forward", "--delta", "1e-6")
    assert status == 0 and white["verdict"] == "NO VIOLATION FOUND", white["findings"]
    assert len(white["selection_tests"]) >= 2


def test_carry_forward_learner_drawing_at_twice_its_declared_epsilon_is_flagged(main, capsys, monkeypatch):
    scale = em._scale
    monkeypatch.setattr(em, "_scale", lambda epsilon, sensitivity: 2 * scale(epsilon, sensitivity))
    status, white = _audit(main, capsys, "carry-forward", "--delta", "1e-6")
    assert status == 1 and white["verdict"] == "VIOLATION"
    assert any(finding.startswith("SELECTION NOT AS DECLARED") for finding in white["findings"])


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["improper", "proper", "semi-agnostic"])
def test_an_agnostic_learner_drawing_half_its_declared_noise_is_flagged_as_noise(
    main, capsys, monkeypatch, algorithm
):
    draw = Sampled.discrete_gaussian
    monkeypatch.setattr(Sampled, "discrete_gaussian", lambda self, scale, size: draw(self, scale / 2, size))
    status, white = _audit(main, capsys, algorithm)
    assert status == 1 and white["verdict"] == "VIOLATION"
    assert white["findings"][0].startswith("NOISE NOT AS DECLARED"), white["findings"]
    assert white["noise_tests"][0]["scale_ratio"] == pytest.approx(0.5, abs=0.05)
    assert not np.isnan(white["noise_tests"][0]["p_value"])
