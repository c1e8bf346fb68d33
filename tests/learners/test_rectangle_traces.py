"""Rectangles' implicit box trace and run-based completion scores: the enumerated
trace of the (restricted) class and the enumerated completion scores, exactly."""

from __future__ import annotations

import numpy as np

from dpledger.learners.completion_scores import completion_runs, completion_scores, restrict
from dpledger.learners.concept_classes import Rectangles


def small_instances(seed: int, count: int):
    """(class, points, a hypothesis) on tiny grids, points possibly repeated."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        C = Rectangles(int(rng.integers(2, 6)))
        hypotheses = list(C.completions())
        yield (
            C,
            rng.integers(0, C.domain_size, (int(rng.integers(1, 8)), 2)),
            hypotheses[rng.integers(len(hypotheses))],
        )


def test_box_trace_is_the_enumerated_trace_with_its_representatives():
    for C, X, h in small_instances(0, 40):
        P = C.distinct(X)
        for length in range(4):
            prefix = tuple(h[:length])
            trace = restrict(C, prefix).trace(P)
            listed = C.restrict(prefix).enumerated_trace(P) if prefix else C.enumerated_trace(P)
            found = {trace.labeling(i).tobytes(): trace.representative(i) for i in range(trace.size)}
            expected = {listed.labeling(i).tobytes(): listed.representative(i) for i in range(listed.size)}
            assert len(found) == trace.size and found.keys() == expected.keys()
            if prefix:
                assert found == expected
            for labeling, representative in found.items():
                assert (C.evaluate(representative, P) == np.frombuffer(labeling, dtype=np.int8)).all()


def test_box_trace_agreement_counts_the_agreeing_records():
    rng = np.random.default_rng(1)
    for C, X, h in small_instances(1, 20):
        P = C.distinct(X)
        index, labels = rng.integers(0, len(P), 6), rng.integers(0, 2, 6)
        trace = restrict(C, tuple(h[: rng.integers(4)])).trace(P)
        scores = trace.agreement(index, labels)
        assert [int(s) for s in scores] == [
            int(np.sum(trace.labeling(i)[index] == labels)) for i in range(trace.size)
        ]


def test_rectangle_completion_runs_equal_the_enumerated_completion_scores():
    rng = np.random.default_rng(2)
    for C, X, h in small_instances(2, 40):
        y = rng.integers(0, 2, len(X))
        for length in range(4):
            runs = completion_runs(C, tuple(h[:length]), X, y)
            assert runs is not None
            values, scores = completion_scores(C, tuple(h[:length]), X, y)
            expanded = [
                s
                for a, b, s in zip(runs.breakpoints[:-1], runs.breakpoints[1:], runs.scores, strict=True)
                for _ in range(b - a)
            ]
            assert (runs.breakpoints[0], runs.breakpoints[-1] - 1) == (values[0], values[-1])
            assert expanded == scores


def test_a_64_grid_trace_of_a_million_labelings_is_built_without_listing_point_sets():
    C = Rectangles(64)
    X = np.random.default_rng(3).integers(0, 64, (300, 2))
    trace = C.trace(X)
    assert trace.size > 10**6
    assert len(trace.agreement(np.arange(10), np.ones(10, dtype=np.int64))) == trace.size
