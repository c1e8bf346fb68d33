"""Laws of the suites benchmark: the mechanisms are DP-Sniper's, with its
parameters and pairs; the optimal-statistic limit never exceeds the true ε and grows with the runs;
a mechanism is buggy exactly when its true ε exceeds its claim; the suites command and the report
set dpledger's bound beside the limit and DP-Sniper's figure."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import SparseVector
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import (
    BELOW,
    STOPPED,
    AboveThresholdRefresh,
    AtThreshold,
    NumericSparseVector,
    PrefixSum,
    Rappor,
    TruncatedGeometric,
    murmur3_32,
)
from dpledger.verify.audit.montecarlo.catalogs.suites import CONFIDENCE, suite
from dpledger.verify.cli.main import main
from dpledger.verify.reports.audits import suites_benchmark_lines

BY_NAME = {row.name: row for row in suite()}
EXACT_WITH_LIMIT = [row for row in suite() if row.limit is not None and row.true_epsilon is not None]


@pytest.mark.parametrize("row", EXACT_WITH_LIMIT, ids=lambda row: row.name)
def test_optimal_statistic_limit_stays_below_the_true_epsilon_and_grows_with_runs(row):
    limits = [row.limit(n, CONFIDENCE) for n in (10**4, 10**6)]
    assert 0 <= limits[0] <= limits[1] <= row.true_epsilon and limits[1] > 0


def test_suites_hold_dp_snipers_twenty_mechanisms_eight_of_them_buggy():
    assert len(BY_NAME) == 20
    assert {name for name, row in BY_NAME.items() if row.buggy} == {
        "NoisyHist2",
        "ReportNoisyMax3",
        "ReportNoisyMax4",
        "SVT3",
        "SVT4",
        "SVT5",
        "SVT6",
        "SVT34Parallel",
    }


@pytest.mark.parametrize("row", suite(), ids=lambda row: row.name)
def test_a_row_is_buggy_exactly_when_its_known_true_epsilon_exceeds_its_claim(row):
    if row.true_epsilon is not None:
        assert row.buggy == (row.true_epsilon > row.claimed + 1e-12)
    else:
        assert row.truth  # a bound or the papers' verdict stands in for the exact ε
    if not row.buggy:
        assert row.dp_sniper <= row.claimed  # DP-Sniper's published lower bounds are sound too


def test_murmur3_matches_its_reference_vectors():
    assert murmur3_32(b"", 0) == 0
    assert murmur3_32(b"", 1) & 0xFFFFFFFF == 0x514E28B7
    assert murmur3_32(b"hello", 0) == 0x248BFA47
    assert murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747B28C) & 0xFFFFFFFF == 0x2FA826CD


def test_rappor_filters_of_dp_snipers_pair_differ_in_six_bits_as_its_classifier_weights_show():
    rappor = Rappor(0.75)
    assert rappor.bits(1) == {3, 10, 13} and rappor.bits(0) == {0, 11, 18}  # two hashes collide in each
    assert math.isclose(rappor.pair_epsilon(1, 0), 6 * math.log(0.5125 / 0.4875))
    assert math.isclose(rappor.claimed_epsilon(), 8 * math.log(0.5125 / 0.4875))
    assert math.isclose(Rappor(0.95, instantaneous=False).pair_epsilon(1, 0), 6 * math.log(0.525 / 0.475))


def test_rappor_reports_each_filter_bit_with_q_star_or_p_star():
    reports = Rappor(0.75)(np.array([1]), 200_000, np.random.default_rng(0))
    freq = reports.mean(axis=0)
    assert np.allclose(freq[[3, 10, 13]], 0.5125, atol=0.005) and np.allclose(
        np.delete(freq, [3, 10, 13]), 0.4875, atol=0.005
    )


def test_geosample_is_the_clamped_two_sided_geometric_of_ratio_eight_ninths_exactly():
    mechanism, alpha = TruncatedGeometric(3, 5), Fraction(8, 9)
    for count in range(6):
        cdf = mechanism.cdf(count)
        pmf = [Fraction(high - low, cdf[-1]) for low, high in itertools.pairwise([0, *cdf])]
        inner = [(1 - alpha) / (1 + alpha) * alpha ** abs(z - count) for z in range(6)]
        inner[0], inner[-1] = alpha**count / (1 + alpha), alpha ** (5 - count) / (1 + alpha)
        assert pmf == inner
    assert math.isclose(mechanism.epsilon, math.log(9 / 8))


def test_geosample_draws_follow_its_cdf():
    draws = TruncatedGeometric(3, 5)(np.array([2]), 200_000, np.random.default_rng(1))
    cdf = TruncatedGeometric(3, 5).cdf(2)
    expected = np.diff([0, *cdf]) / cdf[-1]
    assert np.allclose(np.bincount(draws, minlength=6) / draws.size, expected, atol=0.004)


def test_geosample_refuses_a_count_outside_its_range():
    with pytest.raises(ValueError, match=r"in \[0, 5\]"):
        TruncatedGeometric(3, 5)(np.array([6]), 10, np.random.default_rng(0))


def test_at_threshold_moves_the_catalog_sparse_vectors_threshold():
    quiet = SparseVector(1e-9, 1e-9, None)  # almost no noise: ⊤ exactly when the answer reaches the threshold
    answers = np.array([0.4, 0.6, 0.9])
    out = AtThreshold(quiet, 0.5)(answers, 3, np.random.default_rng(0))
    assert (out == [0, 1, 1]).all() and (quiet(answers, 3, np.random.default_rng(0)) == 0).all()


def test_svt2_answers_at_most_cutoff_positives_and_stops():
    out = AboveThresholdRefresh(1e-9, 1e-9, 2)(
        np.array([2.0, 0.0, 2.0, 2.0, 2.0]), 4, np.random.default_rng(0)
    )
    assert (out == [1, 0, 1, -1, -1]).all()


def test_svt3_releases_the_compared_value_and_numerical_svt_a_fresh_one():
    rng = np.random.default_rng(0)
    svt3 = NumericSparseVector(1e-9, 1e-9, 1)(np.array([0.0, 3.0, 5.0]), 2, rng)
    assert (svt3 == [[BELOW, 3.0, STOPPED]] * 2).all()
    fresh = NumericSparseVector(1e-9, 1e-9, 1, release_scale=50.0)(np.array([3.0]), 1000, rng)
    assert fresh.std() > 10  # the release carries its own Laplace noise


def test_prefix_sum_differences_are_the_noisy_answers():
    out = PrefixSum(1e-9)(np.array([1.0, 2.0, 3.0]), 2, np.random.default_rng(0))
    assert (out == [[1.0, 3.0, 6.0]] * 2).all()


def test_audit_suites_json_sets_the_bound_beside_the_limit_and_dp_snipers_figure(capsys):
    status = main(
        ["audit", "suites", "--only", "NoisyHist2", "--samples", "20000", "--workers", "1", "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    (entry,) = payload["mechanisms"]
    assert status == 0 and entry["flagged"] and entry["buggy"] and entry["dp_sniper_published"] == 4.602
    limit = BY_NAME["NoisyHist2"].limit
    assert limit is not None  # NoisyHist2 has a known optimal-statistic limit
    assert 4.602 < entry["epsilon_lower"] <= 10 and math.isclose(entry["optimal_limit"], limit(20000, 0.95))
    assert payload["buggy_flagged"] == payload["buggy"] == 1 and payload["correct"] == 0


def test_audit_suites_refuses_unknown_names_with_status_2(capsys):
    assert main(["audit", "suites", "--only", "NoisyHist3"]) == 2
    assert "unknown suite mechanism" in capsys.readouterr().err


def test_report_marks_sizes_not_run_and_counts_false_alarms_per_size():
    run = {"epsilon_lower": 0.2, "verdict": "VIOLATION", "flagged": True, "seconds": 1.0}
    results = {
        "confidence": 0.95,
        "sizes": [100000, 10000000],
        "limit_samples": 1000000,
        "mechanisms": [
            {
                "name": "SVT5",
                "suites": "StatDP",
                "claimed_epsilon": 0.1,
                "true_epsilon": "inf",
                "buggy": True,
                "runs": {"100000": run, "10000000": {"skipped": "estimated 2000 s > 900 s"}},
                "seeds": {"samples": 1000000, "bounds": [0.375, 0.125, 0.25]},
                "limit": None,
                "limit_note": "no ratio",
                "dp_sniper": 1.76,
            }
        ],
        "false_alarms": {
            "samples": 100000,
            "repeats": 20,
            "per_mechanism": {"LaplaceMechanism": 1},
            "seconds": 3.0,
        },
    }
    text = "\n".join(suites_benchmark_lines(results))
    assert "0.2 ⚑ | not run (estimated 2000 s > 900 s) | 0.25 [0.125, 0.375] | —1 | — |" in text
    assert (
        "flagged (buggy)" in text
        and "over 3 seeds" in text
        and "typical" in text
        and "re-implementation" in text
    )
    assert "False alarms: 1 of 20 audits" in text and "at most 21.61% at 95% confidence" in text


@pytest.mark.slow
def test_no_correct_mechanism_is_flagged_and_no_bound_exceeds_the_truth_at_1e5_runs(capsys):
    status = main(["audit", "suites", "--samples", "100000", "--workers", "2", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert (
        status == 0 and payload["all_sound"] and payload["correct_flagged"] == 0 and payload["correct"] == 12
    )
