"""The exact auditor's speed-ups change no number: today's results pinned bit for bit (recorded
before the rank reduction and the executors were introduced), the rank reduction checked
distribution by distribution, and every executor giving the same result."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial

import pytest
import sympy

from dpledger.learners.randomness import enumerate_outputs
from dpledger.verify.audit.exact import worst_case
from dpledger.verify.audit.montecarlo.executors import InProcessExecutor, dask_executor
from dpledger.verify.paper.labelboost_audit import (
    LabelBoostAudit,
    _enumeration_key,
    _key_function,
    _rank_key,
    _rank_reduction,
    _run_labelboost,
    audit_labelboost,
)

# (class, D, |S|, |T|, release): ε interval, witness pair, certified δ(bound) upper bound, pairs —
# as printed by the auditor before the rank reduction (commit 94495e8), one enumeration per (S, set(T)).
PINNED = [
    (
        ("thresholds", 4, 2, 1, "carrier"),
        (1.196326566874807, 1.196326566874808),
        ((((0, 1), (1, 0)), (1,)), (((1, 0), (2, 0)), (1,))),
        5e-324,
        896,
    ),
    (
        ("intervals", 4, 2, 1, "continuation"),
        (0.20020277260280592, 0.20020277260280667),
        ((((0, 0), (1, 1)), (2,)), (((1, 1), (1, 1)), (2,))),
        5e-324,
        1112,
    ),
    (
        ("intervals", 4, 2, 1, "weights"),
        (1.1300081943930056, 1.1300081943930063),
        ((((0, 0), (0, 1)), (1,)), (((0, 0), (2, 1)), (1,))),
        5.4e-323,
        1112,
    ),
    (
        ("rectangles", 2, 2, 1, "carrier"),
        (0.6201145069582772, 0.6201145069582777),
        (((((0, 0), 0), ((0, 0), 0)), ((0, 0),)), ((((0, 0), 0), ((0, 0), 1)), ((0, 0),))),
        5e-324,
        896,
    ),
    (
        ("halfspaces", 2, 2, 1, "carrier"),
        (0.6201145069582772, 0.6201145069582777),
        (((((0, 0), 0), ((0, 0), 0)), ((0, 0),)), ((((0, 0), 0), ((0, 0), 1)), ((0, 0),))),
        5e-324,
        896,
    ),
    (
        ("intervals", 5, 2, 2, "carrier"),
        (1.1300081943930056, 1.1300081943930063),
        ((((0, 0), (0, 1)), (0, 1)), (((0, 0), (2, 1)), (0, 1))),
        2.5e-323,
        6750,
    ),
    (
        ("intervals", 5, 2, 2, "weights"),
        (1.1757898664184931, 1.1757898664184943),
        ((((0, 1), (1, 0)), (2, 4)), (((1, 0), (3, 1)), (2, 4))),
        9.4e-323,
        9500,
    ),
    (
        ("rectangles", 2, 2, 1, "weights"),
        (1.1300081943930056, 1.1300081943930063),
        (((((0, 0), 0), ((0, 0), 1)), ((0, 1),)), ((((0, 0), 1), ((1, 0), 1)), ((0, 1),))),
        5.4e-323,
        1112,
    ),
    (
        ("intervals", 4, 2, 1, "hypothesis"),
        (float("inf"), float("inf")),
        ((((0, 0), (0, 0)), (0,)), (((0, 0), (1, 0)), (0,))),
        0.6224593312018564,
        896,
    ),
]


@pytest.mark.parametrize(
    "case, epsilon, worst_pair, delta, pairs", PINNED, ids=[" ".join(map(str, p[0])) for p in PINNED]
)
def test_audit_results_are_unchanged_bit_for_bit(case, epsilon, worst_pair, delta, pairs):
    result = audit_labelboost(LabelBoostAudit(*case), workers=1)
    assert result.epsilon == epsilon and result.worst_pair == worst_pair
    assert result.delta_at_bound == delta and result.pairs == pairs


@pytest.mark.slow
def test_intervals_domain_6_three_plus_three_is_unchanged_bit_for_bit():
    """The issue's instance (288,288 pairs), pinned before the speed-ups."""
    result = audit_labelboost(LabelBoostAudit("intervals", 6, 3, 3, "carrier"), workers=2)
    assert result.pairs == 288288 and result.holds is True
    assert result.epsilon == (1.2717218473795764, 1.2717218473795773)
    assert result.worst_pair == ((((0, 1), (1, 0), (1, 0)), (1, 2, 4)), (((1, 0), (1, 0), (3, 1)), (1, 2, 4)))
    assert result.delta_at_bound == 5.4e-323


@pytest.mark.slow
def test_domain_8_has_the_rank_patterns_of_domain_6_and_the_same_worst_case():
    """|P| ≤ |S| + |T| = 6 points, so D = 6 already holds every rank pattern: D = 8 (1,958,400 pairs)
    computes the same 1336 distributions and finds the same certified ε and witness."""
    result = audit_labelboost(LabelBoostAudit("intervals", 8, 3, 3, "carrier"), workers=2)
    assert result.pairs == 1958400 and result.distributions == 1336
    assert result.epsilon == (1.2717218473795764, 1.2717218473795773)
    assert result.worst_pair == ((((0, 1), (1, 0), (1, 0)), (1, 2, 4)), (((1, 0), (1, 0), (3, 1)), (1, 2, 4)))


def _on_rank_pattern(audit: LabelBoostAudit, key):
    """The distribution of ``key`` computed on its rank pattern (weights: renamed back)."""
    reduced, rename = _rank_reduction(key) if audit.release == "weights" else (_rank_key(key), lambda o: o)
    return {
        rename(o): p._mpi_ for o, p in enumerate_outputs(partial(_run_labelboost, audit, reduced)).items()
    }


@pytest.mark.parametrize(
    "name, domain, release",
    [
        ("thresholds", 4, "carrier"),
        ("intervals", 4, "carrier"),
        ("intervals", 4, "continuation"),
        ("rectangles", 2, "carrier"),
        ("thresholds", 4, "weights"),
        ("rectangles", 2, "weights"),
    ],
)
def test_rank_pattern_gives_the_same_certified_distribution_on_every_dataset(name, domain, release):
    """The invariance behind :func:`_rank_key` and :func:`_rank_reduction`: LabelBoost run on the
    rank pattern of (S, T) returns the same outputs with the same probability intervals, bit for bit."""
    audit = LabelBoostAudit(name, domain, 2, 1, release)
    keys = {_enumeration_key(d) for d in audit.datasets()}
    for key in keys:
        plain = enumerate_outputs(partial(_run_labelboost, audit, key))
        assert {o: p._mpi_ for o, p in plain.items()} == _on_rank_pattern(audit, key), key
    assert len({_rank_key(k) for k in keys}) < len(keys)  # the reduction saves work


def test_rank_key_merges_pairs_only_where_outputs_do_not_name_points():
    assert _key_function(LabelBoostAudit("intervals", 4, 2, 1, "carrier")) is _rank_key
    assert _key_function(LabelBoostAudit("intervals", 4, 2, 1, "weights")) is _enumeration_key
    assert _key_function(LabelBoostAudit("intervals", 4, 2, 1, "hypothesis")) is _enumeration_key
    assert _key_function(LabelBoostAudit("halfspaces", 2, 2, 1, "carrier")) is _enumeration_key


def test_rank_key_ranks_each_coordinate_separately():
    assert _rank_key((((2, 1), (5, 0)), (5, 5, 7))) == (((0, 1), (1, 0)), (1, 2))
    assert _rank_key(((((3, 1), 0),), ((0, 4),))) == ((((1, 0), 0),), ((0, 1),))


@pytest.mark.parametrize(
    "make_executor",
    [InProcessExecutor, partial(ThreadPoolExecutor, 2), partial(ProcessPoolExecutor, 2)],
    ids=["in-process", "threads", "processes"],
)
def test_every_executor_gives_the_same_audit(make_executor):
    audit = LabelBoostAudit("intervals", 5, 2, 2, "carrier")
    reference = audit_labelboost(audit, workers=1)
    with make_executor() as executor:
        assert audit_labelboost(audit, executor=executor) == reference


@pytest.mark.slow
def test_dask_executor_gives_the_same_audit():
    pytest.importorskip("distributed")
    audit = LabelBoostAudit("thresholds", 4, 2, 1, "weights")
    with dask_executor(None, workers=2, processes=False) as executor:
        assert audit_labelboost(audit, executor=executor) == audit_labelboost(audit, workers=1)


def _shifted_coin(d: int, rng) -> int:
    return d + rng.choice_log_weights([1, 0])  # d or d + 1, with probabilities e/(1+e), 1/(1+e)


def test_worst_case_with_a_reduction_enumerates_less_and_finds_the_same_worst_case():
    """``reduce``: the distribution of d is that of 0 shifted by d, so one enumeration serves all."""

    def neighbours(d):
        return [d - 1, d + 1]

    def shift(d):
        return 0, lambda output: output + d

    plain = worst_case(
        _shifted_coin, list(range(5)), neighbours, sympy.Integer(2), leaves_per_run=2, workers=1
    )
    reduced = worst_case(
        _shifted_coin, list(range(5)), neighbours, sympy.Integer(2), leaves_per_run=2, workers=1, reduce=shift
    )
    assert plain.epsilon[0] == float("inf")  # neighbours' supports differ: {d, d+1} against {d+1, d+2}
    assert (plain.distributions, reduced.distributions) == (5, 1)
    assert (reduced.epsilon, reduced.worst_pair, reduced.delta_at_bound) == (
        plain.epsilon,
        plain.worst_pair,
        plain.delta_at_bound,
    )
    assert reduced.worst_delta_profile == plain.worst_delta_profile
