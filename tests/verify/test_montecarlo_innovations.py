"""Innovations of correlated vector outputs: the learned statistics on decorrelated coordinates."""

from __future__ import annotations

import numpy as np

from dpledger.verify.audit.montecarlo import InProcessExecutor, NeighbourPair, audit
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace
from dpledger.verify.audit.montecarlo.catalogs.suite_mechanisms import PrefixSum
from dpledger.verify.audit.montecarlo.decorrelation import fit_innovations
from dpledger.verify.audit.montecarlo.events import StatisticEvent
from dpledger.verify.audit.montecarlo.search import Fits, search_pair

SERIAL = InProcessExecutor()
PREFIX_PAIR = [NeighbourPair(np.ones(10), np.zeros(10), "10 answers each moved by 1")]


def prefix_sums(runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return PrefixSum(10.0)(np.ones(10), runs, rng), PrefixSum(10.0)(np.zeros(10), runs, rng)


def test_innovations_of_prefix_sums_are_their_successive_differences():
    a, b = prefix_sums(20_000, 0)
    innovations = fit_innovations(a, b)
    assert innovations is not None  # prefix sums are correlated
    fresh, _ = prefix_sums(1000, 1)
    differences = np.diff(fresh, axis=1, prepend=0.0)
    u = innovations(fresh)
    assert np.allclose(innovations.whitening, np.triu(innovations.whitening))  # u_j reads y_1 … y_j only
    for j in range(10):
        assert np.corrcoef(u[:, j], differences[:, j])[0, 1] > 0.99


def test_innovations_are_not_offered_on_independent_coordinates():
    rng = np.random.default_rng(0)
    a, b = (Laplace(20.0)(data, 20_000, rng) for data in (np.zeros(20), np.ones(20)))
    assert fit_innovations(a, b) is None


def test_statistics_on_innovations_refitted_on_the_same_split_one_runs_are_identical():
    a, b = prefix_sums(40_000, 0)
    fresh, _ = prefix_sums(5000, 1)
    statistics = []
    for _ in range(2):
        result = search_pair(a, b, 0, 0.0, 1.96, fits=Fits())
        chosen = {
            c.family: c.event.statistic
            for c in result.candidates
            if "innovations" in c.family and isinstance(c.event, StatisticEvent)
        }
        statistics.append(chosen)
    assert statistics[0].keys() == statistics[1].keys() and statistics[0]
    for family, statistic in statistics[0].items():
        assert np.array_equal(statistic(fresh), statistics[1][family](fresh))


def test_prefix_sum_audit_at_two_hundred_thousand_runs_certifies_over_half_its_epsilon():
    # Measured: 0.66–0.74 over seeds 0–4 (the likelihood ratio on the differences); 0.29–0.42 before,
    # with scores of the prefix sums themselves. True ε = 1 (10 answers at 0.1).
    result = audit(PrefixSum(10.0), PREFIX_PAIR, 1.0, samples=200_000, stages=1, executor=SERIAL)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
    assert result.witness is not None
    assert 0.55 <= result.epsilon_lower < 1.0 and result.witness["family"].endswith("on innovations")
