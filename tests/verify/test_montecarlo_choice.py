"""The Monte Carlo search's choice of events: value sets ranked by shrunk ratios, markers among
released numbers standardised apart, count events scored on their raw frequencies too, and the
candidates the audit estimates — one per event, with a slot for another statistic."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import InProcessExecutor
from dpledger.verify.audit.montecarlo.audit import kept
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import MarkedLaplace
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import BELOW, STOPPED
from dpledger.verify.audit.montecarlo.catalogs.suites import audit_row, select
from dpledger.verify.audit.montecarlo.events import CountAbove, IntervalEvent, ValueSetEvent, row_keys
from dpledger.verify.audit.montecarlo.search.learned import _count_candidates, _fit_count, fit_distinguisher
from dpledger.verify.audit.montecarlo.search.objective import Candidate, Objective
from dpledger.verify.audit.montecarlo.search.value_sets import shrunk_log_ratios, value_set_candidates
from dpledger.verify.audit.montecarlo.statistics import epsilon_lower_search, search_z

SERIAL = InProcessExecutor()
OBJECTIVE = Objective(0.0, search_z(0.05 * 0.75 / 2), None, (750_000, 750_000))


def outputs(name: str, runs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``runs`` outputs of the suite row ``name`` on its two inputs."""
    (row,) = select([name])
    rng = np.random.default_rng(seed)
    return row.mechanism(np.asarray(row.a), runs, rng), row.mechanism(np.asarray(row.b), runs, rng)


def test_shrunk_ratios_keep_most_of_a_frequent_values_ratio_and_little_of_a_rare_ones():
    # A value seen 6000 / 5500 times (ratio 0.087) and one seen 10 / 2 times (ratio 1.4), among
    # values whose ratios spread like the frequent one's: the rare value no longer leads.
    k_a = np.array([6000, 10, 50_000, 20_000, 3000])
    k_b = np.array([5500, 2, 51_000, 19_500, 2900])
    raw = np.log((k_a + 0.5) / 100_000) - np.log((k_b + 0.5) / 100_000)
    shrunk = shrunk_log_ratios(k_a, 100_000, k_b, 100_000)
    assert raw[1] > raw[0] and shrunk[0] > shrunk[1]
    assert shrunk[0] > raw[0] / 2 and abs(shrunk[1]) < raw[1] / 10


@pytest.mark.parametrize("seed", range(5))
def test_shrunk_ratios_keep_little_of_their_spread_when_it_is_all_noise(seed):
    rng = np.random.default_rng(seed)
    k_a, k_b = rng.poisson(30, 500), rng.poisson(30, 500)
    raw = np.log((k_a + 0.5) / 15_000) - np.log((k_b + 0.5) / 15_000)
    assert np.std(shrunk_log_ratios(k_a, 15_000, k_b, 15_000)) < np.std(raw) / 3


def test_value_sets_of_many_rare_outputs_score_nothing_when_the_inputs_agree():
    # 16 fair bits: 65536 rows, most seen once. Ranked and scored on raw counts, a set of rows seen
    # only on a scored as decisive (RAPPOR's reports: 9.3 on split 1, nothing on split 2).
    rng = np.random.default_rng(1)
    a, b = (rng.integers(0, 2, (100_000, 16), dtype=np.int8) for _ in range(2))
    found = value_set_candidates(a, b, 0, OBJECTIVE).candidates
    assert found and max(candidate.score for candidate in found) < 0


@pytest.mark.parametrize("seed", range(3))
def test_value_sets_of_a_sparse_vector_hold_its_most_telling_outputs(seed):
    # SVT1 (Lyu–Su–Li Alg. 1, T = 0.5): the first ⊤ at query 6, 7 or 8 has log ratio 0.088, 0.070,
    # 0.055 (exact), at query 5 or 9 0.033 and 0.043, at queries 1–4 or none at most 0.025; queries
    # 9 and 10 are the rarest, their raw ratios the noisiest.
    a, b = outputs("SVT1", 250_000, seed)
    (forward,) = [c for c in value_set_candidates(a, b, 0, OBJECTIVE).candidates if c.forward]
    assert isinstance(forward.event, ValueSetEvent)
    first_above = {row.index(1) for row in forward.event.shown}
    assert first_above & {5, 6} and first_above <= {4, 5, 6, 7, 8}


def test_numbers_among_markers_are_standardised_about_their_own_centre():
    # NumericalSVT on answers 2 vs 1: a released number's loss is its side of 1.5.
    a, b = outputs("NumericalSVT", 20_000)
    score = fit_distinguisher(a, b)
    assert sorted(score.markers.tolist()) == sorted([BELOW, STOPPED])
    assert np.all(np.abs(score.centre[:3] - 1.5) < 3)
    assert np.all(fit_distinguisher(a, b, markers=False).centre < -100)
    assert score.marked.shape == (2, 10)


@pytest.mark.parametrize("name", ["SVT1", "RAPPOR"])
def test_bits_and_marker_only_outputs_get_no_markers(name):
    a, b = outputs(name, 20_000)
    assert fit_distinguisher(a, b).markers.size == 0
    floats = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert fit_distinguisher(*floats).markers.size == 0  # every entry an atom: nothing to set apart


def test_the_count_counts_numbers_above_their_centre_and_never_markers():
    rows = np.array([[-1000.0, 2.0, 1.0], [5.0, -1000.0, -1000.0], [0.0, 3.0, 2.0]])
    count = CountAbove(np.array([1.5, 1.5, 1.5]), np.array([-1000.0]))
    assert count(rows).tolist() == [1.0, 1.0, 2.0]
    assert CountAbove(np.array([-2000.0] * 3))(rows).tolist() == [3.0, 3.0, 3.0]


def test_a_marked_laplace_vectors_count_skips_its_markers():
    rng = np.random.default_rng(2)
    a, b = (MarkedLaplace(4.0)(np.asarray([x] * 4), 20_000, rng) for x in (0.0, 1.0))
    count = _fit_count(None, a, b)
    assert isinstance(count, CountAbove) and count.markers.tolist() == [MarkedLaplace.MARKER]
    assert np.all(np.abs(count.centre - 0.5) < 0.2)


def test_a_count_event_is_scored_on_its_raw_split_1_frequencies_not_on_the_model():
    # On a sparse vector the count's tilted model extrapolates its tails (scores 0.02–0.04 that
    # certified nothing on split 2); the score is the raw frequencies' bound.
    a, b = outputs("SVT1", 250_000, seed=2)
    count = _fit_count(None, a[:20_000], b[:20_000])
    for candidate in _count_candidates(count, a, b, 0, OBJECTIVE).candidates:
        assert isinstance(candidate.event, IntervalEvent)
        inside = [np.asarray(np.count_nonzero(candidate.event.indicator(x))) for x in (a, b)]
        p, q = (0, 1) if candidate.forward else (1, 0)
        observed = (inside[p], len(a), inside[q], len(b))
        k_p, n_p, k_q, n_q = OBJECTIVE.project(observed, candidate.forward, shrink=False)
        raw = epsilon_lower_search(k_p, n_p, k_q, n_q, OBJECTIVE.delta, OBJECTIVE.z)
        assert candidate.score == pytest.approx(float(raw), abs=1e-12)


def _candidate(family: str, score: float, forward: bool = True) -> Candidate:
    return Candidate(0, forward, ValueSetEvent(row_keys(np.zeros(1)), (0,)), family, score)


def test_the_estimated_candidates_hold_each_event_once_and_a_slot_for_another_statistic():
    same = [_candidate(family, 0.034) for family in ("distinguisher", "distinguisher on innovations")]
    ranked = [
        *same,
        _candidate("count", 0.030),
        _candidate("distinguisher (tied)", 0.026),
        _candidate("distinguisher", 0.025, forward=False),
        _candidate("values", 0.011),
        _candidate("pattern", 0.001),
    ]
    chosen = kept(ranked, 4)
    assert [c.family for c in chosen] == ["distinguisher", "count", "distinguisher (tied)", "values"]
    assert kept(ranked[:2], 3) == ranked[:1]
    assert kept(ranked, 1) == ranked[:1]


@pytest.mark.slow
def test_numerical_svt_is_certified_from_its_released_numbers_at_a_million_runs():
    # NumericalSVT (Wang et al. 2019, ε = 0.1): 0.005–0.015 over seeds 0–9 when its numbers were
    # standardised with the markers ⊥ and "stopped"; 0.02–0.03 now (the count of numbers above
    # their centre, or the learned score, with the markers set apart).
    (row,) = select(["NumericalSVT"])
    bounds = [audit_row(row, 1_000_000, SERIAL, seed=seed).real_epsilon_lower for seed in (0, 1)]
    assert min(bounds) > 0.015 and max(bounds) <= 0.1


@pytest.mark.slow
def test_sparse_vector_bounds_hold_up_on_every_seed():
    # SVT1's bound at 10⁶ was 0.011 on one seed in ten (the value set never estimated, a count
    # model's tail leading); the best fixed event, known in advance, certifies 0.05–0.09.
    (row,) = select(["SVT1"])
    bounds = [audit_row(row, 1_000_000, SERIAL, seed=seed).real_epsilon_lower for seed in range(2, 5)]
    assert min(bounds) > 0.04 and max(bounds) <= 0.1 + math.ulp(0.1)
