"""The service layer: one function per command, called with typed keyword values, returning the
JSON-ready payload, the text and the exit status; bad input is a ValueError with a one-line message."""

import json

import pytest

from dpledger.verify.paper import proof_runs
from dpledger.verify.service import Output, calibrate, compose, proofs, run


def test_a_service_function_returns_payload_text_and_status():
    output = compose.compose(epsilon="0.1", k=10, method="basic")
    assert isinstance(output, Output) and output.status == 0
    assert output.payload["epsilon"] == 1.0 and json.dumps(output.payload)
    assert output.text.startswith("basic composition of 10 × (0.1, 0)-DP")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: compose.compose(epsilon="1", k=3), "optimal composition needs target_delta"),
        (lambda: calibrate.agnostic_noise(epsilon="101", delta="1e-5"), "epsilon must be in (0, 100]"),
        (lambda: calibrate.theorem_8_19(k=2, components=["thresholds"]), "components: --k is 2"),
        (lambda: run.carry_forward(concept="circles", n=100), "class must be one of"),
        (lambda: run.agnostic(algorithm="deep", dim=2, n=100, epsilon="1"), "algorithm must be one of"),
    ],
)
def test_bad_input_is_a_value_error_with_a_one_line_message(call, message):
    with pytest.raises(ValueError, match=r"^[^\n]*$") as error:
        call()
    assert message in str(error.value)


def test_proofs_reads_the_status_it_is_given(tmp_path):
    output = proofs.proofs(only=["000:Lemma 6.2"], status_file=tmp_path / "none.json")
    assert [row["key"] for row in output.payload] == ["000:Lemma 6.2"] and "no run yet" in output.text


def test_proof_runs_know_the_source_tree_and_fold_junit_cases(tmp_path):
    assert (proof_runs.REPO_ROOT / "tests" / "verify").is_dir()
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuite><testcase classname="tests.verify.test_x" name="test_a[1]"/>'
        '<testcase classname="tests.verify.test_x" name="test_a[2]"><skipped/></testcase>'
        '<testcase classname="tests.verify.test_x" name="test_b"><failure/></testcase>'
        '<testcase classname="" name="collection"/></testsuite>'
    )
    assert proof_runs.junit_outcomes(report) == {
        "tests/verify/test_x.py::test_a": "skipped",
        "tests/verify/test_x.py::test_b": "failed",
    }


def test_compose_reports_a_vacuous_delta_as_vacuous():
    """`compose --method basic --delta 0.01 --k 1000` (δ ≤ 10) says the guarantee is vacuous."""
    from dpledger.verify.service.compose import compose

    vacuous = compose(epsilon="0.01", delta="0.01", k=1000, method="basic")
    assert vacuous.payload["vacuous"] is True and "VACUOUS: δ ≥ 1" in vacuous.text
    fine = compose(epsilon="0.01", delta="1e-6", k=1000, method="basic")
    assert fine.payload["vacuous"] is False and "VACUOUS" not in fine.text


def test_run_agnostic_same_seed_same_run_and_the_learner_seeded_by_the_second_child(monkeypatch):
    """The data and the learner get the two children of SeedSequence(seed), not the same seed."""
    import numpy as np

    from dpledger.learners.agnostic import LEARNERS

    seeds = []
    original = LEARNERS["improper"].fit

    def recording_fit(self, X, y):
        seeds.append(self.random_state)
        return original(self, X, y)

    monkeypatch.setattr(LEARNERS["improper"], "fit", recording_fit)
    first = run.agnostic(algorithm="improper", dim=3, n=400, epsilon="1", seed=9)
    again = run.agnostic(algorithm="improper", dim=3, n=400, epsilon="1", seed=9)
    assert first.payload == again.payload
    assert all(isinstance(s, np.random.SeedSequence) and (s.entropy, s.spawn_key) == (9, (1,)) for s in seeds)
