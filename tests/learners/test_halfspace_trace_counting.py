"""Halfspace traces counted by score (learners/halfspaces/arrangement_counting.py): the
listed trace's counts and labelings exactly on degenerate grids, representatives that realize
their labeling and depend on it alone, and LabelBoost through them with the listed distribution."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import dpledger.learners.halfspaces.geometry as geometry
from dpledger.learners.completion_scores import restrict
from dpledger.learners.halfspaces import GridHalfspaces
from dpledger.learners.halfspaces.arrangement_counting import (
    PlaneCells,
    PlaneTrace,
    central_labelings,
    record_counts,
)
from dpledger.learners.labelboost import labelboost, labelboost_counted
from dpledger.learners.randomness import Sampled, enumerate_outputs
from dpledger.learners.score_counts import ScoreCounts, unranked
from dpledger.learners.trace_counting import best_agreement, counted_trace


@st.composite
def grid_samples(draw, dimension: int = 2, max_grid: int = 3, max_points: int = 12):
    """(C, distinct points P, positions of S in P, labels of S): points of a small grid, so
    collinear triples, parallel lines, concurrent lines and the origin are frequent."""
    X = draw(st.integers(1, max_grid))
    coordinate = st.integers(-X, X)
    point = st.tuples(*[coordinate] * dimension)
    points = draw(st.lists(point, min_size=1, max_size=max_points, unique=True))
    P = np.unique(np.array(points, dtype=np.int64).reshape(len(points), dimension), axis=0)
    size = draw(st.integers(0, 8))
    index = np.array(draw(st.lists(st.integers(0, len(P) - 1), min_size=size, max_size=size)), dtype=np.int64)
    labels = np.array(draw(st.lists(st.integers(0, 1), min_size=size, max_size=size)), dtype=np.int64)
    return GridHalfspaces(dimension, X), (P if dimension == 2 else P.reshape(-1)), index, labels


def prefixes(C: GridHalfspaces, seed: int) -> list[tuple]:
    """The empty prefix, (w,) for both signs and one (w, a_1) per sign drawn from Definition 8.2's domain."""
    rng = np.random.default_rng(seed)
    result: list[tuple] = [(), (-1,), (1,)] if C.dimension == 2 else [(-1,), (1,)]
    if C.dimension == 2:
        for w in (-1, 1):
            domain = C.next_values((w,))
            result.append((w, domain[int(rng.integers(0, min(len(domain), 10**6)))]))
    return result


def listed_and_counted(C, prefix, P, index, labels):
    K = restrict(C, prefix)
    return K, K.trace(P), counted_trace(K, P, index, labels)


def assert_counted_equals_listed(C, P, index, labels, seed: int = 0) -> None:
    for prefix in prefixes(C, seed):
        _, listed, counted = listed_and_counted(C, prefix, P, index, labels)
        table = counted.score_counts()
        assert dict(zip(table.scores, table.counts, strict=True)) == dict(
            Counter(listed.agreement(index, labels).tolist())
        )
        seen = set()
        for score, labeling in unranked(counted):
            assert int(np.sum(labeling[index] == labels)) == score
            seen.add(labeling.tobytes())
        assert seen == {listed.labeling(i).tobytes() for i in range(listed.size)}


@settings(max_examples=60, deadline=None)
@given(grid_samples())
@example(
    (GridHalfspaces(2, 1), np.array([[-1, -1], [0, 0], [1, 1]]), np.array([0, 1, 2]), np.array([1, 0, 1]))
)
@example((GridHalfspaces(2, 2), np.array([[0, 1], [0, 2], [1, 0], [2, 0]]), np.array([2]), np.array([1])))
def test_counts_by_score_and_labelings_equal_the_listed_trace_on_grids(sample):
    assert_counted_equals_listed(*sample)


def test_counts_equal_the_listed_trace_on_full_grids_with_every_degeneracy():
    """[[±2]]²: 25 points, 5 through the origin on each axis, many lines through each vertex."""
    X = 2
    P = np.array([(a, b) for a in range(-X, X + 1) for b in range(-X, X + 1)])
    rng = np.random.default_rng(3)
    index, labels = rng.integers(0, len(P), 12), rng.integers(0, 2, 12)
    assert_counted_equals_listed(GridHalfspaces(2, X), P, index, labels)


@settings(max_examples=40, deadline=None)
@given(grid_samples(dimension=1, max_grid=5, max_points=10))
def test_one_dimensional_counts_equal_the_listed_trace(sample):
    assert_counted_equals_listed(*sample)


@settings(max_examples=25, deadline=None)
@given(grid_samples(max_points=9))
def test_representative_realizes_its_labeling_and_depends_on_it_alone(sample):
    C, P, index, labels = sample
    for prefix in prefixes(C, 1):
        _, listed, counted = listed_and_counted(C, prefix, P, index, labels)
        listed_representative = {
            listed.labeling(i).tobytes(): listed.representative(i) for i in range(listed.size)
        }
        for i in range(listed.size):
            labeling = listed.labeling(i)
            h = counted.representative(labeling)
            assert C.contains(h) and h[: len(prefix)] == prefix and np.array_equal(C.evaluate(h, P), labeling)
            assert counted.representative(labeling.copy()) == h
            if len(prefix) == 2:  # one free coefficient: the listed trace's own representative
                assert h == listed_representative[labeling.tobytes()]


@settings(max_examples=25, deadline=None)
@given(grid_samples(max_points=10))
def test_locating_a_cell_from_its_labels_finds_the_enumerated_cell(sample):
    C, P, index, labels = sample
    cells = PlaneCells(P, *record_counts(len(P), index, labels))
    for i in range(len(cells.cell_score)):
        name = cells.cell(i)
        labeling = cells.cell_labels(*name)
        assert cells.locate(labeling) == name
        a = cells.witness(*name)
        assert np.array_equal(C.evaluate((1, a[0], a[1]), P), labeling)
        assert all(a[0] * x + a[1] * y != 1 for x, y in P.tolist())  # strictly inside the cell
    assert len(cells.cell_score) == len(
        {cells.cell_labels(*cells.cell(i)).tobytes() for i in range(len(cells.cell_score))}
    )


def test_labelings_realized_at_both_signs_are_the_central_arrangement_cells():
    P = np.array([(a, b) for a in range(-2, 3) for b in range(-2, 3) if (a, b) != (0, 0)])
    positive = geometry.restricted_trace(GridHalfspaces(2, 2), (1,), P)
    negative = geometry.restricted_trace(GridHalfspaces(2, 2), (-1,), P)
    both = {positive.labeling(i).tobytes() for i in range(positive.size)} & {
        negative.labeling(i).tobytes() for i in range(negative.size)
    }
    assert both == {g.tobytes() for g in central_labelings(P)} and len(both) == 16  # 8 lines through 0
    trace = PlaneTrace(P, np.array([0]), np.array([1]), (-1, 1))
    assert int(trace.shared.sum()) == 16


def test_crossing_keys_order_the_crossings_exactly_at_the_largest_grid():
    X = geometry.MAX_GRID
    rng = np.random.default_rng(4)
    P = np.unique(
        np.vstack([rng.integers(-X, X + 1, (40, 2)), [[X, X - 1], [X - 1, X - 2], [-X, X], [X, -X + 1]]]),
        axis=0,
    )
    cells = PlaneCells(P, np.zeros(len(P), dtype=np.int64), np.zeros(len(P), dtype=np.int64))
    chunk = next(cells._chunks())
    for r, j in enumerate(chunk.J[:10]):
        crossing = np.flatnonzero(chunk.key[r] != np.iinfo(np.int64).max)
        exact = [Fraction(int(cells.norm[j] - P[j] @ P[k]), int(chunk.dot[r, k])) for k in crossing]
        for a in range(len(crossing)):
            for b in range(len(crossing)):
                assert (chunk.key[r, crossing[a]] < chunk.key[r, crossing[b]]) == (exact[a] < exact[b])


def test_counted_labelboost_has_exactly_the_listed_distribution_over_labelings():
    C = GridHalfspaces(2, 2)
    xs, ys, xt = [[0, 1], [1, 1], [2, -1], [-1, 0]], [1, 1, 0, 0], [[1, 0], [0, 0]]

    def run(rng, counted):
        result = (labelboost_counted if counted else labelboost)(C, xs, ys, xt, rng)
        assert result is not None
        assert np.array_equal(C.evaluate(result.hypothesis, result.points), result.labeling)
        return tuple(result.labeling.tolist()), result.candidates

    listed = enumerate_outputs(lambda rng: run(rng, False))
    counted = enumerate_outputs(lambda rng: run(rng, True))
    assert listed.keys() == counted.keys()
    for output, probability in listed.items():
        assert counted[output].a <= probability.b and probability.a <= counted[output].b


@pytest.mark.slow
def test_sampled_halfspace_labelboost_passes_a_chi_square_test_against_the_enumerated_distribution():
    C = restrict(GridHalfspaces(2, 2), (1,))
    xs, ys, xt = [[0, 1], [1, 1], [2, -1]], [1, 1, 0], [[1, 0], [-1, -2]]
    exact = cast(
        dict[tuple[int, ...], Any],
        enumerate_outputs(lambda rng: tuple(labelboost(C, xs, ys, xt, rng).labeling.tolist())),
    )  # output -> probability interval; the outputs are the labelings, as tuples
    draws, rng = 3000, Sampled(11)
    observed = Counter(tuple(labelboost(C, xs, ys, xt, rng).labeling.tolist()) for _ in range(draws))
    assert set(observed) <= set(exact)
    outputs = sorted(exact)
    expected = np.array([float(exact[o].mid) for o in outputs])
    _, p_value = stats.chisquare([observed[o] for o in outputs], expected / expected.sum() * draws)
    assert p_value > 1e-4


def test_sampled_halfspace_labelboost_never_lists_the_trace(monkeypatch):
    monkeypatch.setattr(geometry, "restricted_trace", lambda *args: pytest.fail("the trace was listed"))
    C, rng = GridHalfspaces(2, 256), np.random.default_rng(0)
    xs, xt = rng.integers(-256, 257, (300, 2)), rng.integers(-256, 257, (300, 2))
    ys = C.evaluate((1, Fraction(1, 50), Fraction(-1, 70)), xs)
    result = labelboost(C, xs, ys, xt, Sampled(0))
    assert result.candidates > 150_000
    assert np.array_equal(C.evaluate(result.hypothesis, xs), result.labeled)
    assert best_agreement(C, xs, ys) == 300
    second = labelboost(restrict(C, (result.hypothesis[0],)), xs, ys, xt, Sampled(1))
    assert second.hypothesis[0] == result.hypothesis[0]
    assert np.array_equal(C.evaluate(second.hypothesis, xt), second.carrier)


def test_both_restrictions_of_halfspaces_are_counted_with_their_prefix():
    C = GridHalfspaces(2, 3)
    P, index, labels = np.array([[-2, 1], [0, 3], [1, 1], [3, -1]]), np.array([0, 2, 3]), np.array([1, 0, 1])
    for K in (C.restrict((1,)), restrict(C, (1,))):
        counted = counted_trace(K, P, index, labels)
        assert counted is not None
        listed = np.bincount(K.trace(P).agreement(index, labels), minlength=len(labels) + 1)
        assert counted.score_counts() == ScoreCounts.of_histogram(listed)
        table = counted.score_counts()
        assert counted.representative(counted.labeling(table.scores[0], 0))[0] == 1
