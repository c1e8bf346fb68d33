"""Exact auditor: privacy profiles, and the LabelBoost lemmas of Section 3.5 checked exactly over
all neighbour pairs of small instances (Lemmas 3.14, 3.15, 3.17; the selected hypothesis)."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Hashable
from contextlib import redirect_stdout
from functools import partial
from typing import Any

import numpy as np
import pytest
import sympy

from dpledger.accountant.rules import C_LB
from dpledger.learners.exponential_mechanism import exponential_mechanism
from dpledger.learners.randomness import enumerate_outputs
from dpledger.verify.audit.exact import hockey_stick, pure_epsilon, worst_case
from dpledger.verify.cli.main import main
from dpledger.verify.paper.labelboost_audit import LabelBoostAudit, _run_labelboost, audit_labelboost

E = math.e


def _randomized_response(bit: int, rng) -> int:
    return exponential_mechanism([1 - bit, bit], 2, 1, rng)  # keeps the bit w.p. e/(1+e): 1-DP


def test_privacy_profile_of_randomized_response_is_exact():
    P = enumerate_outputs(partial(_randomized_response, 0))
    Q = enumerate_outputs(partial(_randomized_response, 1))
    eps = pure_epsilon(P, Q)
    assert eps.a <= 1 <= eps.b and eps.delta < 1e-30
    for epsilon, expected in [
        (0, (E - 1) / (E + 1)),
        (sympy.Rational(1, 2), (E - math.exp(0.5)) / (E + 1)),
        (1, 0.0),
    ]:
        delta = hockey_stick(P, Q, epsilon)
        assert float(delta.a) - 1e-15 <= expected <= float(delta.b) + 1e-15
        assert delta.delta < 1e-30


def test_pure_epsilon_is_infinite_when_supports_differ():
    P = enumerate_outputs(lambda rng: rng.integer(2))
    Q = enumerate_outputs(lambda rng: rng.integer(3))
    assert pure_epsilon(P, Q).a == math.inf
    assert float(hockey_stick(P, Q, 5).a) > 0.33


def _selector(dataset: int, rng) -> int:
    return exponential_mechanism([-abs(dataset - c) for c in range(4)], 1, 1, rng)


def test_worst_case_detects_a_violated_claim_and_confirms_a_true_one():
    """The exponential mechanism with ε = 1: exactly 1-DP on these neighbours, so a claim of 1/2 fails."""

    def neighbours(d):
        return [d - 1, d + 1]

    false_claim = worst_case(
        _selector, [0, 1, 2, 3], neighbours, sympy.Rational(1, 2), leaves_per_run=4, workers=1
    )
    assert false_claim.holds is False and false_claim.pairs == 3
    assert false_claim.unlisted == 2  # -1 and 4, the neighbours past the ends of the list
    true_claim = worst_case(
        _selector, [0, 1, 2, 3], neighbours, sympy.Integer(1), leaves_per_run=4, workers=1
    )
    assert true_claim.holds is True and 0.5 < true_claim.epsilon[1] <= 1


def _check_lemma(audit: LabelBoostAudit, workers: int = 1) -> float:
    result = audit_labelboost(audit, workers=workers)
    assert result.holds is True, (audit, result.epsilon, result.worst_pair)
    assert result.epsilon[1] < float(audit.bound) and result.pairs > 0
    assert result.delta_at_bound < 1e-300
    return result.tightness


FAST = [("thresholds", 4, 2, 1), ("intervals", 4, 2, 1), ("rectangles", 2, 2, 1), ("halfspaces", 2, 2, 1)]
SLOW = [("thresholds", 6, 3, 3), ("intervals", 6, 3, 2), ("rectangles", 2, 3, 2), ("halfspaces", 3, 2, 2)]


@pytest.mark.parametrize("name, domain, labeled, unlabeled", FAST)
def test_lemma_3_17_carrier_only_release_is_ln4e_dp(name, domain, labeled, unlabeled):
    assert 0 < _check_lemma(LabelBoostAudit(name, domain, labeled, unlabeled, "carrier")) < 1


@pytest.mark.parametrize("name, domain, labeled, unlabeled", FAST)
def test_lemma_3_14_common_labeling_weights_within_4e(name, domain, labeled, unlabeled):
    assert 0 < _check_lemma(LabelBoostAudit(name, domain, labeled, unlabeled, "weights")) < 1


@pytest.mark.parametrize("name, domain, labeled, unlabeled", FAST[:2])
def test_lemma_3_15_realizable_private_continuation_is_eps_plus_ln4e_dp(name, domain, labeled, unlabeled):
    assert 0 < _check_lemma(LabelBoostAudit(name, domain, labeled, unlabeled, "continuation")) < 1


@pytest.mark.slow
@pytest.mark.parametrize("name, domain, labeled, unlabeled", SLOW)
@pytest.mark.parametrize("release", ["carrier", "weights"])
def test_lemmas_3_14_and_3_17_on_larger_instances(name, domain, labeled, unlabeled, release):
    assert 0 < _check_lemma(LabelBoostAudit(name, domain, labeled, unlabeled, release), workers=2) < 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, domain, labeled, unlabeled", [("thresholds", 5, 3, 2), ("intervals", 5, 2, 2)]
)
def test_lemma_3_15_on_larger_instances(name, domain, labeled, unlabeled):
    assert 0 < _check_lemma(LabelBoostAudit(name, domain, labeled, unlabeled, "continuation"), workers=2) < 1


@pytest.mark.slow
def test_lemma_3_17_intervals_domain_6_three_plus_three():
    tightness = _check_lemma(LabelBoostAudit("intervals", 6, 3, 3, "carrier"), workers=2)
    assert 0.5 < tightness < 0.6  # ε_exact = 1.27172… against ln 4e = 2.38629…


@pytest.mark.parametrize("name", ["thresholds", "intervals"])
def test_releasing_the_selected_hypothesis_is_not_private(name):
    """The representative's candidate set depends on P, so some neighbour can never output it."""
    audit = LabelBoostAudit(name, 4, 2, 1, "hypothesis")
    result = audit_labelboost(audit, workers=1)
    assert result.epsilon[0] == math.inf and result.holds is False and result.worst_pair is not None
    first, second = (enumerate_outputs(partial(_run_labelboost, audit, d)) for d in result.worst_pair)
    assert set(first) != set(second)  # the witness: an output one side can never produce
    assert result.delta_at_bound > 0.3


def test_cli_audit_labelboost_json():
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            [
                "audit",
                "labelboost",
                "--class",
                "intervals",
                "--domain-size",
                "4",
                "--labeled",
                "2",
                "--unlabeled",
                "1",
                "--release",
                "carrier",
                "--workers",
                "1",
                "--json",
            ]
        )
    payload = json.loads(out.getvalue())
    assert status == 0 and payload["holds"] is True and payload["pairs"] == 896
    assert payload["epsilon_exact"] < payload["bound"] == pytest.approx(float(C_LB))
    assert len(payload["worst_pair"]) == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--class", "circles", "--domain-size", "4", "--labeled", "2", "--unlabeled", "1"], "class"),
        (
            ["--class", "intervals", "--domain-size", "65", "--labeled", "2", "--unlabeled", "1"],
            "domain-size",
        ),
        (["--class", "intervals", "--domain-size", "4", "--labeled", "9", "--unlabeled", "1"], "labeled"),
        (["--class", "intervals", "--domain-size", "4", "--labeled", "2", "--unlabeled", "-1"], "unlabeled"),
        (["--class", "intervals", "--domain-size", "64", "--labeled", "8", "--unlabeled", "8"], "limit"),
        (["--class", "rectangles", "--domain-size", "8", "--labeled", "4", "--unlabeled", "4"], "limit"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["audit", "labelboost", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_cli_hypothesis_release_reports_infinite_epsilon_and_a_witness():
    out = io.StringIO()
    with redirect_stdout(out):
        main(
            [
                "audit",
                "labelboost",
                "--class",
                "intervals",
                "--domain-size",
                "4",
                "--labeled",
                "2",
                "--unlabeled",
                "1",
                "--release",
                "hypothesis",
                "--workers",
                "1",
                "--json",
            ]
        )
    payload = json.loads(out.getvalue())
    assert payload["epsilon_exact"] == "inf" and payload["holds"] is False
    assert payload["worst_pair_profile"]["epsilon"] == ["inf", "inf"]
    assert payload["delta_at_bound"] > 0.6  # (c_LB, δ) needs δ ≥ 0.62 on the worst pair


def _continuation_on(sample, rng):
    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.labelboost import realizable_randomized_response

    X = np.array([x for x, _ in sample])
    y = np.array([label for _, label in sample])
    return realizable_randomized_response(Intervals(4), sympy.Rational(1, 2))(X, y, rng).output


def test_lemma_3_15_continuation_is_private_on_realizable_inputs_only():
    """The hypothesis of Lemma 3.15 holds exactly: ε_A = 1/2 between realizable neighbours, ∞ otherwise."""
    from itertools import combinations_with_replacement

    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.labelboost import realizable

    records = [(x, y) for x in range(4) for y in (0, 1)]
    samples = list(combinations_with_replacement(records, 3))

    def neighbours(sample):
        for old in set(sample):
            for new in records:
                rest = list(sample)
                rest.remove(old)
                yield tuple(sorted([*rest, new]))

    anywhere = worst_case(
        _continuation_on, samples, neighbours, sympy.Rational(1, 2), leaves_per_run=2, workers=1
    )
    assert anywhere.epsilon[0] == math.inf and anywhere.holds is False
    realizable_only = [s for s in samples if realizable(Intervals(4), [x for x, _ in s], [y for _, y in s])]
    exact = worst_case(
        _continuation_on, realizable_only, neighbours, sympy.Rational(1, 2), leaves_per_run=2, workers=1
    )
    assert exact.epsilon[0] <= 0.5 <= exact.epsilon[1]  # ε = ε_A exactly ...
    assert exact.holds is None  # ... so "≤ 1/2" is undecidable by certified arithmetic, never guessed
    slack = worst_case(
        _continuation_on,
        realizable_only,
        neighbours,
        sympy.Rational(1, 2) + sympy.Rational(1, 10**9),
        leaves_per_run=2,
        workers=1,
    )
    assert slack.holds is True


def test_exact_auditor_parses_a_text_epsilon_and_never_evaluates_it(tmp_path, monkeypatch):
    from mpmath import iv

    monkeypatch.chdir(tmp_path)
    P: dict[Hashable, Any] = {0: iv.mpf(1) / 2, 1: iv.mpf(1) / 2}
    Q: dict[Hashable, Any] = {0: iv.mpf(1) / 4, 1: iv.mpf(3) / 4}
    assert float(hockey_stick(P, Q, "log(3/2)").b) == pytest.approx(0.125, abs=1e-12)
    with pytest.raises(ValueError, match="not a number or an arithmetic expression"):
        hockey_stick(P, Q, "__import__('os').system('touch PWNED')")
    assert list(tmp_path.iterdir()) == []


def test_audit_labelboost_on_a_local_dask_cluster_gives_the_result_of_local_processes():
    pytest.importorskip("distributed")
    from dpledger.verify.service.audit import labelboost

    on_processes = labelboost(
        class_name="intervals", domain_size=4, labeled=2, unlabeled=1, workers=1
    ).payload
    on_dask = labelboost(
        class_name="intervals", domain_size=4, labeled=2, unlabeled=1, workers=2, scheduler="local"
    ).payload
    for payload in (on_processes, on_dask):
        payload.pop("seconds", None)
    assert on_dask == on_processes
