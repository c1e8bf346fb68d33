"""The trace counted by score (learners/trace_counting.py): the listed trace's counts, labelings and
representatives exactly; LabelBoost through it has the listed exponential mechanism's distribution."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import numpy as np
import pytest
from scipy import stats

import dpledger.learners.boolean.composition as composition
import dpledger.learners.trace_counting as trace_counting
from dpledger.learners.boolean.composition import BooleanComposition, component_class
from dpledger.learners.boolean.formula import parse_formula
from dpledger.learners.completion_scores import restrict
from dpledger.learners.concept_classes import Intervals
from dpledger.learners.labelboost import labelboost, labelboost_counted
from dpledger.learners.randomness import Enumerated, Sampled, enumerate_outputs
from dpledger.learners.score_counts import CountedTraceLike, unranked
from dpledger.learners.trace_counting import CountedTrace, best_agreement, counted_trace

CASES = [
    ("x1 and (x2 or not x3)", ("thresholds", "intervals", "thresholds")),
    ("x1 or x2", ("intervals", "intervals")),
    ("(x1 and not x2) or (x2 and not x1) or x3", ("thresholds", "intervals", "intervals")),
]


def composed(formula: str, names: tuple[str, ...], domain: int = 12) -> BooleanComposition:
    return BooleanComposition(parse_formula(formula), [component_class(name, domain) for name in names])


def instances(seed: int, count: int):
    """(C(prefix), distinct points, positions of S in them, labels of S) on small random samples."""
    rng = np.random.default_rng(seed)
    for formula, names in CASES:
        C = composed(formula, names)
        for _ in range(count):
            xs, ys, xt = rng.integers(0, 12, 7), rng.integers(0, 2, 7), rng.integers(0, 12, 3)
            points, position = np.unique(np.concatenate((xs, xt)), return_inverse=True)
            for length in range(C.k):
                prefix = tuple(
                    C.component_trace(j, points).representatives[rng.integers(3)] for j in range(length)
                )
                yield restrict(C, prefix), points, position[:7], ys


def _counted(K, points, index, labels) -> CountedTraceLike:
    """The counted trace of a line composition (never None for the classes tested here)."""
    counted = counted_trace(K, points, index, labels)
    assert counted is not None
    return counted


def test_counts_by_score_equal_the_listed_trace_histogram():
    for K, points, index, labels in instances(0, 4):
        table = _counted(K, points, index, labels).score_counts()
        listed = Counter(K.trace(points).agreement(index, labels).tolist())
        assert dict(zip(table.scores, table.counts, strict=True)) == dict(listed)


def test_every_rank_unranks_to_a_distinct_listed_labeling_with_the_listed_representative():
    for K, points, index, labels in instances(1, 2):
        trace = K.trace(points)
        listed = {trace.labeling(i).tobytes(): trace.representative(i) for i in range(trace.size)}
        counted = _counted(K, points, index, labels)
        seen = set()
        for score, labeling in unranked(counted):
            assert int(np.sum(labeling[index] == labels)) == score
            seen.add(labeling.tobytes())
            assert counted.representative(labeling) == listed[labeling.tobytes()]
        assert seen == set(listed) and len(seen) == counted.score_counts().size


def test_counted_labelboost_has_exactly_the_listed_output_distribution():
    C = composed(*CASES[0], domain=8)
    K = restrict(C, ((3,),))
    xs, ys, xt = [1, 4, 6, 6], [0, 1, 1, 0], [2, 7]

    def run(rng, counted):
        result = (labelboost_counted if counted else labelboost)(K, xs, ys, xt, rng)
        assert result is not None
        return tuple(result.labeling.tolist()), result.hypothesis, result.candidates

    listed = enumerate_outputs(lambda rng: run(rng, False))
    counted = enumerate_outputs(lambda rng: run(rng, True))
    assert listed.keys() == counted.keys()
    for output, probability in listed.items():
        assert counted[output].a <= probability.b and probability.a <= counted[output].b
        assert float(probability.delta) < 1e-30 and float(counted[output].delta) < 1e-30


@pytest.mark.slow
def test_sampled_labelboost_passes_a_chi_square_test_against_the_enumerated_distribution():
    C = composed(*CASES[0], domain=8)
    xs, ys, xt = [1, 4, 6], [0, 1, 1], [2, 7]
    exact = cast(
        dict[tuple[int, ...], Any],
        enumerate_outputs(lambda rng: tuple(labelboost(C, xs, ys, xt, rng).labeling.tolist())),
    )  # output -> probability interval; the outputs are the labelings, as tuples
    draws, rng = 4000, Sampled(7)
    observed = Counter(tuple(labelboost(C, xs, ys, xt, rng).labeling.tolist()) for _ in range(draws))
    assert set(observed) <= set(exact)
    outputs = sorted(exact)
    expected = np.array([float(exact[o].mid) for o in outputs]) * draws
    _, p_value = stats.chisquare([observed[o] for o in outputs], expected / expected.sum() * draws)
    assert p_value > 1e-4


def test_sampled_labelboost_never_lists_a_trace_of_millions():
    C = composed(*CASES[0], domain=2**16)
    data = np.random.default_rng(0)
    xs = data.integers(0, 2**16, 200)
    result = labelboost(C, xs, C.evaluate(((1000,), (2000, 40000), (30000,)), xs), xs[:0], Sampled(0))
    assert result.candidates > 10**7
    assert (C.evaluate(result.hypothesis, xs) == result.labeled).all()


def test_enumerated_labelboost_keeps_the_listed_trace():
    class Recording(Enumerated):
        def __init__(self):
            super().__init__([], 64)

    result = labelboost(Intervals(6), [1, 2], [1, 0], [4], Recording())
    assert result.candidates == Intervals(6).trace([1, 2, 4]).size
    assert labelboost_counted(Intervals(6), [1, 2], [1, 0], [4], Sampled(0)) is None  # not a composition


def test_best_agreement_is_the_listed_trace_maximum():
    for K, points, index, labels in instances(2, 3):
        X = points[index]
        assert best_agreement(K, X, labels) == int(K.trace(points).agreement(index, labels).max())


def test_line_completion_scores_equal_the_enumerated_completions(monkeypatch):
    rng = np.random.default_rng(3)
    for formula, names in CASES:
        C = composed(formula, names, 14)
        X, y = rng.integers(0, 14, 9), rng.integers(0, 2, 9)
        P = C.distinct(X)
        for prefix in [(), C.complete()[:1]]:
            candidates = C.component_trace(len(prefix), P).labelings
            along_line = C.completion_disagreements(prefix, candidates, X, y)
            with monkeypatch.context() as patch:
                patch.setattr(composition, "LINE_PHASES", {})
                assert np.array_equal(along_line, C.completion_disagreements(prefix, candidates, X, y))


def test_counts_in_python_integers_equal_the_int64_counts(monkeypatch):
    for K, points, index, labels in instances(4, 1):
        fast = _counted(K, points, index, labels).score_counts()
        with monkeypatch.context() as patch:
            patch.setattr(trace_counting, "_INT64_SAFE", 1)  # the path for traces beyond 2^62 labelings
            exact = counted_trace(K, points, index, labels)
            assert isinstance(exact, CountedTrace) and exact.completions[0].dtype == object
            assert exact.score_counts() == fast
